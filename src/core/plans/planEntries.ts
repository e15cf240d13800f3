/**
 * The scheduler's book of a plan's tasks: one entry per task in topological order, built fresh or
 * from a snapshot an earlier window saved, saved back to one, looked up for a retry or a skip, and
 * the derived states (`waiting`, `queued`, `blocked`) with their kept reasons, computed from each
 * task's prerequisites.
 */
import { AgentError, storedLine } from '../errors';
import { topologicalOrder } from './planGraph';
import type { Plan, PlanTask, SchedulerSnapshot, TaskState } from './planTypes';

export interface Entry {
  readonly task: PlanTask;
  /** Position in topological order. */
  readonly index: number;
  readonly prerequisites: readonly Entry[];
  state: TaskState;
  reason?: string;
  timings: { queuedAt?: number; startedAt?: number; endedAt?: number; integratedAt?: number };
}

export const derivedStates: ReadonlySet<TaskState> = new Set(['waiting', 'queued', 'blocked']);
export const retryable: ReadonlySet<TaskState> = new Set(['failed', 'stopped', 'conflicted']);
export const skippable: ReadonlySet<TaskState> = new Set([
  'waiting',
  'queued',
  'blocked',
  'failed',
  'stopped',
  'conflicted',
  'picking',
]);
export const pickable: ReadonlySet<TaskState> = new Set(['picking']);

/** The plan's entries in topological order, each as `saved` left it (fresh: `waiting`), and them by id. */
export function buildEntries(
  plan: Plan,
  saved: SchedulerSnapshot | undefined,
): { entries: readonly Entry[]; byId: Map<string, Entry> } {
  const byId = new Map<string, Entry>();
  const entries = topologicalOrder(plan.tasks).map((task, index) => {
    const prerequisites = [...new Set(task.dependsOn ?? [])].map((id) => byId.get(id) as Entry);
    const was = saved?.tasks[task.id];
    const entry: Entry = {
      task,
      index,
      prerequisites,
      state: was?.state ?? 'waiting',
      reason: was?.reason,
      timings: { ...was?.timings },
    };
    byId.set(task.id, entry);
    return entry;
  });
  return { entries, byId };
}

/** The entry of task `id`, which must be in one of the `allowed` states; `code` says it is not. */
export function entryFor(
  byId: ReadonlyMap<string, Entry>,
  id: string,
  allowed: ReadonlySet<TaskState>,
  code: 'taskNotRetryable' | 'taskNotSkippable' | 'taskNotPicking',
): Entry {
  const entry = byId.get(id);
  if (!entry) {
    throw new AgentError('noSuchTask', { taskId: id });
  }
  if (!allowed.has(entry.state)) {
    throw new AgentError(code, { taskId: id, state: entry.state });
  }
  return entry;
}

/** What buildEntries needs to rebuild these entries as they are now. */
export function snapshotOf(entries: readonly Entry[], started: boolean, stopped: boolean): SchedulerSnapshot {
  const tasks = Object.fromEntries(
    entries.map((e) => [
      e.task.id,
      { state: e.state, ...(e.reason === undefined ? {} : { reason: e.reason }), timings: { ...e.timings } },
    ]),
  );
  return { started, stopped, tasks };
}

/** The derived state of `entry` and its reason; its prerequisites must be up to date. */
export function derive(entry: Entry, started: boolean): [TaskState, string | undefined] {
  const failed = new Set<Entry>();
  const missing = new Set<Entry>();
  collectUnsatisfied(entry, failed, missing);
  if (failed.size > 0) {
    return ['blocked', storedLine('taskBlockedBy', { tasks: ids(failed) })];
  }
  if (missing.size > 0) {
    return ['waiting', storedLine('taskWaitingFor', { tasks: ids(missing) })];
  }
  return started ? ['queued', undefined] : ['waiting', undefined];
}

/**
 * Failed roots behind `entry` go to `failed`, unsatisfied prerequisites to `missing`; skipped ones
 * are looked through.
 */
function collectUnsatisfied(entry: Entry, failed: Set<Entry>, missing: Set<Entry>): void {
  for (const p of entry.prerequisites) {
    if (p.state === 'failed') {
      failed.add(p);
    } else if (p.state === 'skipped' || p.state === 'blocked') {
      collectUnsatisfied(p, failed, missing);
    } else if (p.state !== 'done') {
      missing.add(p);
    }
  }
}

function ids(entries: ReadonlySet<Entry>): string[] {
  return [...entries].sort((a, b) => a.index - b.index).map((e) => e.task.id);
}
