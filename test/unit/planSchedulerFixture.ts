// The plan scheduler's tests' fakes: a task runner whose runs end when the test says so, a clock
// that moves only when told, and the small builders the scheduler tests share.
import * as assert from 'node:assert/strict';
import { PlanScheduler } from '../../src/core/plans/planScheduler';
import type {
  IntegrationOutcome,
  Plan,
  PlanTask,
  RunOutcome,
  StartPoint,
  TaskRunner,
  TaskState,
} from '../../src/core/plans/planTypes';

export interface Deferred<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  promise: Promise<T>;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { resolve, reject, promise };
}

/** Runs end only when the test says so; merges succeed unless scripted or held. Unexpected calls throw. */
export class FakeRunner implements TaskRunner {
  readonly log: string[] = [];
  readonly runs = new Map<string, Deferred<RunOutcome>>();
  /** Scripted results of integrate() per task, consumed in order; default 'merged'. */
  readonly mergeResults = new Map<string, (IntegrationOutcome | Error)[]>();
  /** When set, integrate() waits for merge(). */
  holdMerges = false;
  readonly heldMerges: { id: string; done: Deferred<IntegrationOutcome> }[] = [];
  activeMerges = 0;
  maxActiveMerges = 0;
  maxActiveRuns = 0;

  run(task: PlanTask, from: StartPoint): Promise<RunOutcome> {
    this.log.push(`run ${task.id} from ${from}`);
    assert.ok(!this.runs.has(task.id), `${task.id} started twice`);
    const run = deferred<RunOutcome>();
    this.runs.set(task.id, run);
    this.maxActiveRuns = Math.max(this.maxActiveRuns, this.runs.size);
    return run.promise;
  }

  /** Tasks whose agent the earlier window never made: resume() answers 'notStarted'. */
  readonly notStarted = new Set<string>();

  resume(task: PlanTask): Promise<RunOutcome | 'notStarted'> {
    this.log.push(`resume ${task.id}`);
    if (this.notStarted.has(task.id)) {
      return Promise.resolve('notStarted');
    }
    assert.ok(!this.runs.has(task.id), `${task.id} followed twice`);
    const run = deferred<RunOutcome>();
    this.runs.set(task.id, run);
    return run.promise;
  }

  async integrate(task: PlanTask): Promise<IntegrationOutcome> {
    this.log.push(`integrate ${task.id}`);
    this.activeMerges++;
    this.maxActiveMerges = Math.max(this.maxActiveMerges, this.activeMerges);
    try {
      await Promise.resolve();
      if (this.holdMerges) {
        const done = deferred<IntegrationOutcome>();
        this.heldMerges.push({ id: task.id, done });
        return await done.promise;
      }
      const result = this.mergeResults.get(task.id)?.shift() ?? 'merged';
      if (result instanceof Error) {
        throw result;
      }
      return result;
    } finally {
      this.activeMerges--;
    }
  }

  async stop(task: PlanTask): Promise<void> {
    this.log.push(`stop ${task.id}`);
    this.end(task.id, 'stopped');
  }

  end(id: string, outcome: RunOutcome | Error = 'succeeded'): void {
    const run = this.runs.get(id);
    assert.ok(run, `${id} is not running`);
    this.runs.delete(id);
    if (outcome instanceof Error) {
      run.reject(outcome);
    } else {
      run.resolve(outcome);
    }
  }

  merge(id: string, outcome: IntegrationOutcome = 'merged'): void {
    const held = this.heldMerges.shift();
    assert.equal(held?.id, id, 'the merge in progress');
    held.done.resolve(outcome);
  }

  running(): string[] {
    return [...this.runs.keys()];
  }
}

export class FakeClock {
  time = 1000;
  now(): number {
    return this.time;
  }
}

export function task(id: string, ...dependsOn: string[]): PlanTask {
  return { id, title: id, prompt: `do ${id}`, dependsOn };
}

export function plan(...tasks: PlanTask[]): Plan {
  return { title: 'test plan', tasks };
}

/** Lets every pending promise callback run (the fake clock is never advanced by this). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function setup(tasks: PlanTask[], maxParallel = 4) {
  const runner = new FakeRunner();
  const clock = new FakeClock();
  const scheduler = new PlanScheduler(plan(...tasks), runner, { maxParallel, clock });
  return { runner, clock, scheduler };
}

export function statesOf(scheduler: PlanScheduler): Record<string, TaskState> {
  return Object.fromEntries(scheduler.states());
}

/** The task as a Best of N task of `n` candidates. */
export function bestOf(t: PlanTask, n: number): PlanTask {
  return { ...t, bestOf: n };
}
