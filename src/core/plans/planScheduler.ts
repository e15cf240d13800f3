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
import { Emitter, type Event } from '../../util/event';
import { AgentError } from '../errors';
import {
  buildEntries,
  derive,
  derivedStates,
  type Entry,
  entryFor,
  pickable,
  retryable,
  skippable,
  snapshotOf,
} from './planEntries';
import { TaskFlow } from './planTaskFlow';
import type { Plan, SchedulerSnapshot, TaskRunner, TaskState, TaskTimings } from './planTypes';
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

export { conflictReason } from './planTaskFlow';

export class PlanScheduler {
  private readonly entries: readonly Entry[];
  private readonly byId: ReadonlyMap<string, Entry>;
  private readonly flow: TaskFlow;
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
    this.flow = new TaskFlow(runner, options.clock, {
      set: (entry, state, reason) => this.set(entry, state, reason),
      settle: () => this.settle(),
    });
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
        this.flow.follow(entry, this.runner.resume(entry.task));
      } else if (entry.state === 'integrating') {
        this.flow.integrate(entry);
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
    const entry = entryFor(this.byId, id, retryable, 'taskNotRetryable');
    this.clearStop();
    if (entry.state === 'conflicted') {
      entry.timings.integratedAt = undefined;
      this.set(entry, 'integrating');
      this.flow.integrate(entry);
    } else {
      entry.timings = {};
      this.set(entry, 'queued');
    }
    this.settle();
  }

  /** Gives up on a task that is not running or integrating; its dependents go on without it. */
  skip(id: string): void {
    this.set(entryFor(this.byId, id, skippable, 'taskNotSkippable'), 'skipped');
    this.settle();
  }

  /** A Best of N task waiting for a pick: the runner knows the candidate picked; its work is merged now. */
  picked(id: string): void {
    const entry = entryFor(this.byId, id, pickable, 'taskNotPicking');
    this.set(entry, 'integrating');
    this.flow.integrate(entry);
    this.settle();
  }

  /**
   * Stops every running task (they become `stopped`, their work kept) and starts nothing new; an
   * integrating task is asked to stop too (an agent fixing a failed check after its merge).
   */
  async stop(): Promise<void> {
    if (!this.stopRequested) {
      this.stopRequested = true;
      this.changes.fire({});
    }
    const running = this.entries.filter((e) => e.state === 'running' || e.state === 'integrating');
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
        this.flow.launch(entry);
      }
    }
  }

  private canStartAnother(): boolean {
    const running = this.entries.filter((e) => e.state === 'running').length;
    return this.started && !this.stopRequested && !this.paused && running < this.options.maxParallel;
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
