/**
 * A plan task with `bestOf: N`: N candidates (core/agents/bestOf.ts) run the task from the same
 * base. Once all have ended, none succeeded: the task failed (or stopped, when every one was
 * stopped); exactly one succeeded: it is the task's work, picked on its own (there is nothing to
 * choose between); two or more: the task waits for a pick. The picked candidate is merged like any
 * task's agent; the others are then discarded, their work saved (Restore Agent brings it back).
 */
import type { AgentRecord } from '../agent';
import { type AgentManager, candidatesOf } from '../agents';
import { AgentError } from '../errors';
import type { PlanTask, RunOutcome } from './planTypes';
import { agentEnd } from './planAgentEnd';

/** Statuses of a candidate that may be picked: it ran to a good end. */
const pickable: ReadonlySet<AgentRecord['status']> = new Set(['succeeded', 'reviewed']);

export interface CandidatesEnd {
  readonly outcome: RunOutcome;
  /** The one candidate that succeeded, picked on its own. */
  readonly picked?: string;
}

/** Dispatches the task's candidates (all of `profile`) and resolves once every one has ended. */
export async function runCandidates(
  manager: AgentManager,
  task: PlanTask,
  where: { readonly runId: string; readonly folder: string; readonly base: string; readonly profile: string },
): Promise<CandidatesEnd> {
  const candidates = await manager.dispatchBestOf({
    prompt: task.prompt,
    title: task.title,
    profiles: Array.from({ length: task.bestOf ?? 0 }, () => where.profile),
    folder: where.folder,
    base: where.base,
    plan: { runId: where.runId, taskId: task.id },
  });
  return candidatesEnd(manager, candidates);
}

/** The candidates an earlier window dispatched for the task's attempt started at `startedAt`; none: not started. */
export async function resumeCandidates(
  manager: AgentManager,
  runId: string,
  task: PlanTask,
  startedAt: number,
): Promise<CandidatesEnd | 'notStarted'> {
  const candidates = taskCandidates(manager.list(), runId, task.id).filter((r) => r.createdAt >= startedAt);
  return candidates.length === 0 ? 'notStarted' : candidatesEnd(manager, candidates);
}

async function candidatesEnd(manager: AgentManager, candidates: readonly AgentRecord[]): Promise<CandidatesEnd> {
  const ended = await Promise.all(candidates.map((c) => agentEnd(manager, c.id)));
  const succeeded = ended.filter((r) => pickable.has(r.status));
  if (succeeded.length === 1) {
    return { outcome: 'succeeded', picked: succeeded[0].id };
  }
  if (succeeded.length > 1) {
    return { outcome: 'pick' };
  }
  const stopped = ended.every((r) => ['stopped', 'interrupted', 'detached'].includes(r.status));
  return { outcome: stopped ? 'stopped' : 'failed' };
}

/** Every candidate of the plan run's task, of every attempt, in the order they were made. */
export function taskCandidates(records: readonly AgentRecord[], runId: string, taskId: string): AgentRecord[] {
  return records
    .filter((r) => r.bestOf && r.plan?.runId === runId && r.plan.taskId === taskId)
    .sort((a, b) => a.createdAt - b.createdAt || (a.bestOf?.index ?? 0) - (b.bestOf?.index ?? 0));
}

/** The agents of the task that run now: a Best of N task's candidates, any other task's own `agent`. */
export function runningAgents(
  manager: Pick<AgentManager, 'list' | 'isRunning'>,
  runId: string,
  task: PlanTask,
  agent: string | undefined,
): string[] {
  const ids = task.bestOf ? taskCandidates(manager.list(), runId, task.id).map((r) => r.id) : [agent];
  return ids.filter((id): id is string => id !== undefined && manager.isRunning(id));
}

/** Throws notTaskCandidate unless agent `id` is a candidate of the run's task that succeeded. */
export function checkPick(manager: Pick<AgentManager, 'get'>, runId: string, taskId: string, id: string): void {
  const record = manager.get(id);
  if (!record.bestOf || record.plan?.runId !== runId || record.plan.taskId !== taskId || !pickable.has(record.status)) {
    throw new AgentError('notTaskCandidate', { title: record.title, taskId });
  }
}

/** After the picked candidate's merge: the other candidates of its group that are still there are discarded. */
export async function discardOthers(
  manager: Pick<AgentManager, 'get' | 'list'>,
  discard: (id: string) => Promise<void>,
  picked: string,
): Promise<string[]> {
  const group = manager.get(picked).bestOf?.group;
  const others = group
    ? candidatesOf(manager.list(), group).filter((r) => r.id !== picked && !['merged', 'discarded'].includes(r.status))
    : [];
  for (const other of others) {
    await discard(other.id);
  }
  return others.map((r) => r.id);
}
