/**
 * The dispatch queue's arithmetic (parallelAgents.maxConcurrentAgents), on records alone: which
 * agents of a repository count against the cap, whether a new dispatch waits, which queued agents
 * start now and in what order. The records are every window's (the registry is shared), so the cap
 * is per repository, not per window.
 */
import type { AgentRecord, AgentStatus } from '../agent';

/** Statuses whose run is live: these count against the cap. */
export const liveStatuses: ReadonlySet<AgentStatus> = new Set(['preparing', 'running', 'waiting-for-input']);

type Queued = Pick<AgentRecord, 'id' | 'repoRoot' | 'status' | 'createdAt'>;

/** The cap as set: a whole number above 0; anything else (0, negative, not a number) is no limit. */
export function capOf(value: number | undefined): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

export function liveCount(records: readonly Queued[], repoRoot: string): number {
  return records.filter((r) => r.repoRoot === repoRoot && liveStatuses.has(r.status)).length;
}

/** The repository's queued agents, oldest dispatch first (ties by id, so every window agrees). */
export function queuedIn<R extends Queued>(records: readonly R[], repoRoot: string): R[] {
  return records
    .filter((r) => r.repoRoot === repoRoot && r.status === 'queued')
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Whether a new dispatch waits: the live agents, the starts under way (`starting`, not live in
 * the records yet) and the agents already waiting fill the cap. Those waiting count, so a new
 * dispatch never overtakes them.
 */
export function mustQueue(records: readonly Queued[], repoRoot: string, cap: number, starting = 0): boolean {
  return cap > 0 && liveCount(records, repoRoot) + starting + queuedIn(records, repoRoot).length >= cap;
}

/** The queued agents of the repository that may start now, in the order they should. */
export function dueToStart<R extends Queued>(records: readonly R[], repoRoot: string, cap: number, starting = 0): R[] {
  const queued = queuedIn(records, repoRoot);
  if (cap <= 0) {
    return queued;
  }
  return queued.slice(0, Math.max(0, cap - liveCount(records, repoRoot) - starting));
}

/** 1 for the next agent to start; undefined when the agent is not queued. */
export function queuePosition(records: readonly Queued[], id: string): number | undefined {
  const record = records.find((r) => r.id === id);
  if (!record || record.status !== 'queued') {
    return undefined;
  }
  return queuedIn(records, record.repoRoot).findIndex((r) => r.id === id) + 1;
}

/** The repositories that have agents waiting. */
export function queuedRepositories(records: readonly Queued[]): string[] {
  return [...new Set(records.filter((r) => r.status === 'queued').map((r) => r.repoRoot))];
}
