/**
 * Runs a plan as a graph. Tasks without dependencies start from the plan's base, every other task
 * from the integration branch, once all its prerequisites are satisfied there. A task is satisfied
 * when it is done (merged into the integration branch); a skipped task is transparent: it counts as
 * satisfied once its own prerequisites are, so skipping b in a → b → c lets c start only after a
 * has landed (c still starts from 'integration': any task with a prerequisite does).
 *
 * Invariants: at most maxParallel tasks are `running` (an integrating task holds no slot); one
 * integration at a time, in the order the runs ended; ready tasks start in topological order,
 * ties broken by file order; nothing starts before start(), after stop() (until start() or a
 * retry resumes) or while a task is `conflicted` (the plan is paused; runs in flight still end and
 * integrate). `waiting`, `queued` and `blocked` are derived from the prerequisites and recomputed
 * after every change; the other states change only on a runner outcome or a user action.
 */
import { SerialQueue } from '../../util/async';
import { Emitter, type Event } from '../../util/event';
import { AgentError, storedLine } from '../errors';
import {
  buildEntries,
  derive,
  derivedStates,
  type Entry,
  entryFor,
  retryable,
  skippable,
  snapshotOf,
} from './planEntries';
import type { Plan, RunOutcome, SchedulerSnapshot, TaskRunner, TaskState, TaskTimings } from './planTypes';
import type { Clock } from '../ports';

export interface PlanSchedulerOptions {
  /** Wins over plan.maxParallel: the caller resolves plan value vs setting. Integer >= 1. */
  readonly maxParallel: number;
  readonly clock: Clock;
  /** The state an earlier window saved; nothing moves until resume(). */
  readonly restored?: SchedulerSnapshot;
}

/** `id` names the task whose state or reason changed; no id: the plan was stopped or resumed. */
export interface PlanChange {
  readonly id?: string;
}

export const conflictReason = storedLine('taskConflicted', {});

export class PlanScheduler {
  private readonly entries: readonly Entry[];
  private readonly byId: ReadonlyMap<string, Entry>;
  private readonly integrations = new SerialQueue();
  private readonly changes = new Emitter<PlanChange>();
  private idleWaiters: (() => void)[] = [];
  // Stryker disable next-line BooleanLiteral: the constructor assigns it before anything reads it
  private started = false;
  // Stryker disable next-line BooleanLiteral: the constructor assigns it before anything reads it
  private stopRequested = false;

  readonly onDidChange: Event<PlanChange> = this.changes.event;

  constructor(
    plan: Plan,
    private readonly runner: TaskRunner,
    private readonly options: PlanSchedulerOptions,
  ) {
    if (!Number.isInteger(options.maxParallel) || options.maxParallel < 1) {
      throw new AgentError('invalidMaxParallel', { value: options.maxParallel });
    }
    const saved = options.restored;
    ({ entries: this.entries, byId: this.byId } = buildEntries(plan, saved));
    this.started = saved?.started ?? false;
    this.stopRequested = saved?.stopped ?? false;
    this.refresh();
  }

  /** Everything a later window needs to go on with this plan (see `restored`). */
  snapshot(): SchedulerSnapshot {
    return snapshotOf(this.entries, this.started, this.stopRequested);
  }

  /**
   * Goes on with a restored plan: follows the runs an earlier window started, merges again the
   * tasks it was merging (merging a branch already merged changes nothing), then starts what is ready.
   */
  resume(): void {
    for (const entry of this.entries) {
      if (entry.state === 'running') {
        this.follow(entry, this.runner.resume(entry.task));
      } else if (entry.state === 'integrating') {
        this.integrate(entry);
      }
    }
    this.settle();
  }

  /** Every task is done or skipped. */
  get finished(): boolean {
    return this.entries.every((e) => e.state === 'done' || e.state === 'skipped');
  }

  /** A task is conflicted: no task starts until it is retried or skipped. */
  get paused(): boolean {
    return this.entries.some((e) => e.state === 'conflicted');
  }

  /** stop() was called and neither start() nor retry() has resumed the plan since. */
  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Starts the plan; after stop() it resumes it (stopped tasks stay stopped until retried). */
  start(): void {
    this.started = true;
    this.clearStop();
    this.settle();
  }

  /**
   * Failed or stopped: runs it again (run, then integrate); conflicted: integrates it again.
   * Resumes a stopped plan.
   */
  retry(id: string): void {
    const entry = entryFor(this.byId, id, retryable, 'retried');
    this.clearStop();
    if (entry.state === 'conflicted') {
      entry.timings.integratedAt = undefined;
      this.set(entry, 'integrating');
      this.integrate(entry);
    } else {
      entry.timings = {};
      this.set(entry, 'queued');
    }
    this.settle();
  }

  /** Gives up on a task that is not running or integrating; its dependents go on without it. */
  skip(id: string): void {
    // Stryker disable next-line StringLiteral: only 'retried' picks the other code; any other verb means skipped
    this.set(entryFor(this.byId, id, skippable, 'skipped'), 'skipped');
    this.settle();
  }

  /** Stops every running task (they become `stopped`, their work kept) and starts nothing new. */
  async stop(): Promise<void> {
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.changes.fire({});
    }
    const running = this.entries.filter((e) => e.state === 'running');
    const results = await Promise.allSettled(running.map(async (e) => this.runner.stop(e.task)));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) {
      throw failure.reason;
    }
    await this.whenIdle();
  }

  /** Every task's state, in topological order. */
  states(): ReadonlyMap<string, TaskState> {
    return new Map(this.entries.map((e) => [e.task.id, e.state]));
  }

  /** Why the task is where it is, as kept (taskWaitingFor, taskBlockedBy, conflictReason, a run's or merge's error). */
  reason(id: string): string | undefined {
    return this.byId.get(id)?.reason;
  }

  timings(): ReadonlyMap<string, TaskTimings> {
    return new Map(this.entries.map((e) => [e.task.id, { ...e.timings }]));
  }

  /** Resolves when no task runs or integrates and none can start (the plan may be unfinished). */
  whenIdle(): Promise<void> {
    return this.busy ? new Promise((resolve) => this.idleWaiters.push(resolve)) : Promise.resolve();
  }

  dispose(): void {
    this.changes.dispose();
  }

  private get busy(): boolean {
    return this.entries.some((e) => e.state === 'running' || e.state === 'integrating');
  }

  private clearStop(): void {
    if (this.stopRequested) {
      this.stopRequested = false;
      this.changes.fire({});
    }
  }

  private settle(): void {
    this.refresh();
    this.pump();
    if (!this.busy) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      waiters.forEach((resolve) => resolve());
    }
  }

  /** Entries come in topological order, so every prerequisite is already up to date. */
  private refresh(): void {
    for (const entry of this.entries) {
      if (derivedStates.has(entry.state)) {
        const [state, reason] = derive(entry, this.started);
        this.set(entry, state, reason);
      }
    }
  }

  /** Flags are read per task: a change listener may stop the plan while tasks are being started. */
  private pump(): void {
    for (const entry of this.entries) {
      if (entry.state === 'queued' && this.canStartAnother()) {
        this.launch(entry);
      }
    }
  }

  private canStartAnother(): boolean {
    const running = this.entries.filter((e) => e.state === 'running').length;
    return this.started && !this.stopRequested && !this.paused && running < this.options.maxParallel;
  }

  private launch(entry: Entry): void {
    entry.timings = { queuedAt: entry.timings.queuedAt, startedAt: this.options.clock.now() };
    this.set(entry, 'running');
    let run: Promise<RunOutcome>;
    try {
      run = this.runner.run(entry.task, entry.prerequisites.length > 0 ? 'integration' : 'base');
    } catch (e) {
      run = Promise.reject(e);
    }
    this.follow(entry, run);
  }

  private follow(entry: Entry, run: Promise<RunOutcome | 'notStarted'>): void {
    run.then(
      (outcome) => {
        if (outcome === 'notStarted') {
          entry.timings = {};
          this.set(entry, 'queued');
          this.settle();
        } else {
          this.endRun(entry, outcome === 'succeeded' ? 'integrating' : outcome);
        }
      },
      (e: unknown) => this.endRun(entry, 'failed', messageOf(e)),
    );
  }

  private endRun(entry: Entry, state: TaskState, reason?: string): void {
    entry.timings.endedAt = this.options.clock.now();
    this.set(entry, state, reason);
    if (state === 'integrating') {
      this.integrate(entry);
    }
    this.settle();
  }

  private integrate(entry: Entry): void {
    void this.integrations.run(async () => {
      try {
        if ((await this.runner.integrate(entry.task)) === 'merged') {
          entry.timings.integratedAt = this.options.clock.now();
          this.set(entry, 'done');
        } else {
          this.set(entry, 'conflicted', conflictReason);
        }
      } catch (e) {
        this.set(entry, 'failed', messageOf(e));
      }
      this.settle();
    });
  }

  private set(entry: Entry, state: TaskState, reason?: string): void {
    if (entry.state === state && entry.reason === reason) {
      return;
    }
    // Stryker disable next-line StringLiteral,ConditionalExpression: queued has no reason; already queued returned
    if (state === 'queued' && entry.state !== 'queued') {
      entry.timings.queuedAt = this.options.clock.now();
    }
    entry.state = state;
    entry.reason = reason;
    this.changes.fire({ id: entry.task.id });
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
