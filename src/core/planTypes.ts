/** The plan file format (`*.agents.json`, `.vscode/agents/*.json`) and a plan run's task states. */
import type { Isolation } from './agent';

export interface PlanTask {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly profile?: string;
  readonly dependsOn?: readonly string[];
  readonly isolation?: Isolation;
}

export interface Plan {
  readonly title: string;
  /** Ref or sha the tasks without dependencies start from; default: HEAD at dispatch. */
  readonly base?: string;
  readonly maxParallel?: number;
  readonly tasks: readonly PlanTask[];
}

export interface PlanProblem {
  /** The task concerned (undefined for plan-level problems). */
  readonly taskId?: string;
  /** JSON-ish path of the field, e.g. "tasks[2].dependsOn". */
  readonly field: string;
  readonly message: string;
}

/**
 * waiting: dependencies not merged yet; queued: ready, waiting for a free slot; running; integrating:
 * finished, its work being merged into the integration branch; done: merged; failed; blocked: a
 * prerequisite failed; skipped: released by the user; conflicted: integration would conflict (plan
 * paused); stopped: Stop Plan.
 */
export type TaskState = 'waiting' | 'queued' | 'running' | 'integrating' | 'done' | 'failed' | 'blocked' | 'skipped' | 'conflicted' | 'stopped';
