/**
 * The dispatch queue's arithmetic (parallelAgents.maxConcurrentAgents), on records alone: which
 * agents of a repository count against the cap, whether a new dispatch waits, which queued agents
 * start now and in what order. The records are every window's (the registry is shared), so the cap
 * is per repository, not per window.
 *
 * A paused agent (on its provider's limit) holds no place while it waits: it has no process, and a
 * pause may last hours. Once its resume time has come it is due, and a due resume takes room before
 * any queued dispatch (oldest resume time first); without room it waits, still paused. From the
 * moment a window claims its resume (quotaResumer.ts) until its claim lapses it counts as live.
 */
import type { AgentRecord, AgentStatus } from '../agent';
import { recordProvider } from './quotaPause';

/** Statuses whose run is live: these count against the cap. */
export const liveStatuses: ReadonlySet<AgentStatus> = new Set(['preparing', 'running', 'waiting-for-input']);

type Queued = Pick<AgentRecord, 'id' | 'repoRoot' | 'status' | 'createdAt'> &
  Partial<Pick<AgentRecord, 'provider' | 'profile' | 'quota'>>;

/** A claim older than this (its window went away before the resume began) no longer holds. */
export const claimHoldsMs = 60_000;

/**
 * Whether a window is resuming the paused agent: its claim, made at most claimHoldsMs before `now`,
 * holds. Without `now` any claim holds.
 */
export function resuming(record: Pick<Queued, 'status' | 'quota'>, now?: number): boolean {
  const claimedAt = record.status === 'paused' ? record.quota?.claimedAt : undefined;
  return claimedAt !== undefined && (now === undefined || now - claimedAt <= claimHoldsMs);
}

/** Whether the paused agent's resume time has come and no window is resuming it: it waits for room. */
export function resumeDue(record: Pick<Queued, 'status' | 'quota'>, now: number): boolean {
  return record.status === 'paused' && !!record.quota && record.quota.resumeAt <= now && !resuming(record, now);
}

/** Counts against the caps: a live run, or a resume a window has claimed. */
export function holdsPlace(record: Pick<Queued, 'status' | 'quota'>, now?: number): boolean {
  return liveStatuses.has(record.status) || resuming(record, now);
}

/**
 * parallelAgents.providerLimits: most live agents of a provider at once, counted over every agent of
 * the records (a provider's limits are the account's, not a repository's); `starting`: starts under
 * way per provider, not live in the records yet.
 */
export interface ProviderLimits {
  readonly caps: ReadonlyMap<string, number>;
  readonly starting?: ReadonlyMap<string, number>;
}

const noProviderLimits: ProviderLimits = { caps: new Map() };
const providerOfQueued = (r: Queued): string => recordProvider({ provider: r.provider, profile: r.profile ?? '' });

/** The cap as set: a whole number above 0; anything else (0, negative, not a number) is no limit. */
export function capOf(value: number | undefined): number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

export function liveCount(records: readonly Queued[], repoRoot: string, now?: number): number {
  return records.filter((r) => r.repoRoot === repoRoot && holdsPlace(r, now)).length;
}

/** The repository's due resumes (resumeDue), oldest resume time first (ties by id). */
export function dueResumesIn<R extends Queued>(records: readonly R[], repoRoot: string, now: number): R[] {
  return records
    .filter((r) => r.repoRoot === repoRoot && resumeDue(r, now))
    .sort((a, b) => a.quota!.resumeAt - b.quota!.resumeAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The repository's queued agents, oldest dispatch first (ties by id, so every window agrees). */
export function queuedIn<R extends Queued>(records: readonly R[], repoRoot: string): R[] {
  return records
    .filter((r) => r.repoRoot === repoRoot && r.status === 'queued')
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Whether a new dispatch of `provider` waits: it would not be among those due if it joined the queue
 * last. So the live agents, the starts under way and the agents already waiting fill the cap (those
 * waiting count: a new dispatch never overtakes them, nor a due resume), and so do its provider's cap
 * and a quota pause of its provider; agents of other providers waiting on theirs do not hold it back.
 */
export function mustQueue(
  records: readonly Queued[],
  repoRoot: string,
  cap: number,
  starting = 0,
  limits: ProviderLimits = noProviderLimits,
  provider?: string,
  now?: number,
): boolean {
  const candidate: Queued = { id: '\uffff', repoRoot, status: 'queued', createdAt: Infinity, provider, profile: '' };
  return !dueToStart([...records, candidate], repoRoot, cap, starting, limits, now).includes(candidate);
}

/**
 * The agents of the repository that may start now, in the order they should: the due resumes (with
 * `now`; status paused), then the queued agents, oldest first, within the room the cap leaves,
 * skipping (not stopping at) one whose provider is at its cap, or for a queued agent paused on a
 * limit (an agent of it is `paused`).
 */
export function dueToStart<R extends Queued>(
  records: readonly R[],
  repoRoot: string,
  cap: number,
  starting = 0,
  limits: ProviderLimits = noProviderLimits,
  now?: number,
): R[] {
  let room = cap > 0 ? cap - liveCount(records, repoRoot, now) - starting : Infinity;
  const used = providerLoad(records, limits.starting, now);
  const paused = pausedProviders(records);
  const due: R[] = [];
  const resumes = now === undefined ? [] : dueResumesIn(records, repoRoot, now);
  for (const record of [...resumes, ...queuedIn(records, repoRoot)]) {
    if (room <= 0) {
      break;
    }
    const provider = providerOfQueued(record);
    const providerCap = limits.caps.get(provider);
    const held = record.status === 'queued' && paused.has(provider);
    if (held || (providerCap !== undefined && (used.get(provider) ?? 0) >= providerCap)) {
      continue;
    }
    due.push(record);
    room--;
    used.set(provider, (used.get(provider) ?? 0) + 1);
  }
  return due;
}

/** Live agents per provider (claimed resumes too), over every repository, plus the starts under way. */
export function providerLoad(
  records: readonly Queued[],
  starting?: ReadonlyMap<string, number>,
  now?: number,
): Map<string, number> {
  const load = new Map<string, number>(starting ?? []);
  for (const record of records.filter((r) => holdsPlace(r, now))) {
    const provider = providerOfQueued(record);
    load.set(provider, (load.get(provider) ?? 0) + 1);
  }
  return load;
}

/** Providers with an agent paused on their limit: their queued agents wait rather than start into it. */
export function pausedProviders(records: readonly Queued[]): Set<string> {
  return new Set(records.filter((r) => r.status === 'paused').map(providerOfQueued));
}

/** Why a dispatch of `provider` waits: its provider is paused on a limit, at its cap, or the repository's cap. */
export function queueReason(
  records: readonly Queued[],
  provider: string,
  limits: ProviderLimits,
): 'quota' | 'provider' | 'cap' {
  if (pausedProviders(records).has(provider)) {
    return 'quota';
  }
  const providerCap = limits.caps.get(provider);
  return providerCap !== undefined && (providerLoad(records, limits.starting).get(provider) ?? 0) >= providerCap
    ? 'provider'
    : 'cap';
}

/** 1 for the next agent to start; undefined when the agent is not queued. */
export function queuePosition(records: readonly Queued[], id: string): number | undefined {
  const record = records.find((r) => r.id === id);
  if (!record || record.status !== 'queued') {
    return undefined;
  }
  return queuedIn(records, record.repoRoot).findIndex((r) => r.id === id) + 1;
}

/** The repositories that have agents waiting: queued, or (with `now`) a due resume. */
export function queuedRepositories(records: readonly Queued[], now?: number): string[] {
  const waits = (r: Queued) => r.status === 'queued' || (now !== undefined && resumeDue(r, now));
  return [...new Set(records.filter(waits).map((r) => r.repoRoot))];
}
