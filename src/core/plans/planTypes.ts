/** The plan file format (`*.agents.json`, `.vscode/agents/*.json`) and a plan run's task states. */
import type { Isolation } from '../agent';

export interface PlanTask {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  readonly profile?: string;
  readonly dependsOn?: readonly string[];
  readonly isolation?: Isolation;
  /** Best of N: this many candidates (2..10) run the task; one is picked (planBestOf.ts). */
  readonly bestOf?: number;
}

export interface Plan {
  readonly title: string;
  /** Ref or sha the tasks without dependencies start from; default: HEAD at dispatch. */
  readonly base?: string;
  readonly maxParallel?: number;
  readonly tasks: readonly PlanTask[];
}

/**
 * waiting: dependencies not merged yet; queued: ready, waiting for a free slot; running; integrating:
 * finished, its work being merged into the integration branch; done: merged; failed; blocked: a
 * prerequisite failed; skipped: released by the user; conflicted: integration would conflict (plan
 * paused); stopped: Stop Plan; picking: a Best of N task whose candidates have ended, at least two
 * of them succeeded, waiting for the user to pick one (it holds no slot; its dependents wait).
 */
export type TaskState =
  | 'waiting'
  | 'queued'
  | 'running'
  | 'integrating'
  | 'done'
  | 'failed'
  | 'blocked'
  | 'skipped'
  | 'conflicted'
  | 'stopped'
  | 'picking';

/** What a plan run's scheduler needs to go on in a later window. Timings are clock readings (ms since the epoch). */
export interface SchedulerSnapshot {
  readonly started: boolean;
  readonly stopped: boolean;
  readonly tasks: Readonly<
    Record<string, { readonly state: TaskState; readonly reason?: string; readonly timings: TaskTimings }>
  >;
}

/** A plan run as saved in the workspace state; its task agents are found by their records' `plan` field. */
export interface PlanRunRecord {
  readonly id: string;
  readonly plan: Plan;
  readonly repoRoot: string;
  readonly baseSha: string;
  readonly integrationBranch: string;
  readonly integrationPath: string;
  readonly maxParallel: number;
  readonly scheduler: SchedulerSnapshot;
  /** Files that conflicted the last time a task was merged into the integration branch. */
  readonly conflicts: Readonly<Record<string, readonly string[]>>;
  /** The window that drives the run (runs its scheduler); only it starts, merges and stops tasks. */
  readonly driver?: WindowId;
  /** Stop Plan asked in another window: the driver stops the run and clears it. */
  readonly stopRequested?: boolean;
  /** Best of N tasks: the candidate picked (an agent id), whose work is the task's. */
  readonly picks?: Readonly<Record<string, string>>;
}

/**
 * A window process: host and pid, with the process's start time and the boot id where the system
 * tells them (Linux), so a later process given the same pid is not taken for it; `instance` tells
 * apart the plan services of one process.
 */
export interface WindowId {
  readonly host: string;
  readonly pid: number;
  readonly start?: string;
  readonly boot?: string;
  readonly instance: string;
}

/** What the scheduler asks of whoever runs the tasks (PlanRun: agents, git). */
export type StartPoint = 'base' | 'integration';
/** pick: a Best of N task's candidates have ended and the user is to pick one of those that succeeded. */
export type RunOutcome = 'succeeded' | 'failed' | 'stopped' | 'pick';
export type IntegrationOutcome = 'merged' | 'conflicts';

export interface TaskRunner {
  /** Starts the task's agent from `from`; resolves with its outcome when the agent ends. */
  run(task: PlanTask, from: StartPoint): Promise<RunOutcome>;
  /**
   * Follows the agent an earlier window started for a task that was running when it closed;
   * 'notStarted' when that window closed before the agent was made (the task is started again).
   */
  resume(task: PlanTask): Promise<RunOutcome | 'notStarted'>;
  /** Commits the task's work and merges it into the integration branch (forecast first). */
  integrate(task: PlanTask): Promise<IntegrationOutcome>;
  /** Stops the task's running agent (the run() promise then resolves 'stopped'). */
  stop(task: PlanTask): Promise<void>;
}

/** Clock readings of a task's latest attempt; a retry starts a new attempt. */
export interface TaskTimings {
  /** When it became ready (all prerequisites satisfied, or retried). */
  readonly queuedAt?: number;
  readonly startedAt?: number;
  /** When its run ended, however it ended. */
  readonly endedAt?: number;
  readonly integratedAt?: number;
}
