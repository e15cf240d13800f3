// The plan scheduler's promises that planScheduler.test.ts leaves unchecked (found by mutation testing):
// exact error codes, change events only on a change, stop() reporting a runner's failure, runs
// that throw or reject with something else than an Error, queue times kept while a task waits.
import * as assert from 'node:assert/strict';
import { AgentError, storedLine } from '../../src/core/errors';
import { topologicalOrder } from '../../src/core/plans/planGraph';
import { PlanScheduler, type PlanChange } from '../../src/core/plans/planScheduler';
import { englishStored } from '../../src/ui/errorText';
import type { IntegrationOutcome, PlanTask, RunOutcome, StartPoint, TaskRunner } from '../../src/core/plans/planTypes';

interface Pending {
  resolve(value: RunOutcome): void;
  reject(error: unknown): void;
}

/** Runs end when the test says so; merges succeed; stop() does what `stopWith` says. */
class Runner implements TaskRunner {
  readonly log: string[] = [];
  readonly pending = new Map<string, Pending>();
  /** run() of these tasks throws synchronously instead of returning a promise. */
  readonly throwing = new Map<string, unknown>();
  stopWith: (task: PlanTask) => Promise<void> = async (task) => this.end(task.id, 'stopped');

  run(task: PlanTask, from: StartPoint): Promise<RunOutcome> {
    this.log.push(`run ${task.id} from ${from}`);
    if (this.throwing.has(task.id)) {
      throw this.throwing.get(task.id);
    }
    return new Promise((resolve, reject) => this.pending.set(task.id, { resolve, reject }));
  }

  resume(task: PlanTask): Promise<RunOutcome | 'notStarted'> {
    this.log.push(`resume ${task.id}`);
    return new Promise((resolve, reject) => this.pending.set(task.id, { resolve, reject }));
  }

  async integrate(task: PlanTask): Promise<IntegrationOutcome> {
    this.log.push(`integrate ${task.id}`);
    return 'merged';
  }

  stop(task: PlanTask): Promise<void> {
    this.log.push(`stop ${task.id}`);
    return this.stopWith(task);
  }

  end(id: string, outcome: RunOutcome = 'succeeded'): void {
    const run = this.pending.get(id);
    assert.ok(run, `${id} is not running`);
    this.pending.delete(id);
    run.resolve(outcome);
  }

  fail(id: string, reason: unknown): void {
    const run = this.pending.get(id);
    assert.ok(run, `${id} is not running`);
    this.pending.delete(id);
    run.reject(reason);
  }
}

const clock = { time: 1000, now: () => clock.time };

function task(id: string, ...dependsOn: string[]): PlanTask {
  return { id, title: id, prompt: `do ${id}`, dependsOn };
}

/** A task as a plan file may write it: no dependsOn at all. */
function bare(id: string): PlanTask {
  return { id, title: id, prompt: `do ${id}` };
}

function setup(tasks: PlanTask[], maxParallel = 4) {
  clock.time = 1000;
  const runner = new Runner();
  const scheduler = new PlanScheduler({ title: 'p', tasks }, runner, { maxParallel, clock });
  const events: PlanChange[] = [];
  scheduler.onDidChange((e) => events.push(e));
  return { runner, scheduler, events };
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('plan scheduler (promises found by mutation testing)', () => {
  it('refuses a maxParallel that is not a whole number of at least 1, with its own code', () => {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => new PlanScheduler({ title: 'p', tasks: [task('a')] }, new Runner(), { maxParallel: value, clock }),
        (e) => AgentError.isCode(e, 'invalidMaxParallel') && Object.is(e.data.value, value),
        String(value),
      );
    }
    const one = setup([task('a'), task('b')], 1);
    one.scheduler.start();
    assert.deepEqual([...one.runner.pending.keys()], ['a'], 'maxParallel 1 runs one task');
  });

  it('names the exact reason retry and skip are refused', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a')]);
    scheduler.start();
    assert.throws(
      () => scheduler.retry('ghost'),
      (e) => AgentError.isCode(e, 'noSuchTask') && e.data.taskId === 'ghost',
    );
    assert.throws(
      () => scheduler.skip('ghost'),
      (e) => AgentError.isCode(e, 'noSuchTask') && e.data.taskId === 'ghost',
    );
    assert.throws(
      () => scheduler.retry('a'),
      (e) => AgentError.isCode(e, 'taskNotRetryable') && e.data.taskId === 'a' && e.data.state === 'running',
    );
    assert.throws(
      () => scheduler.skip('a'),
      (e) => AgentError.isCode(e, 'taskNotSkippable') && e.data.taskId === 'a' && e.data.state === 'running',
    );
    runner.end('a');
    await flush();
    assert.throws(
      () => scheduler.skip('a'),
      (e) => AgentError.isCode(e, 'taskNotSkippable') && e.data.state === 'done',
    );
  });

  it('runs tasks written without dependsOn, from the base', async () => {
    const { runner, scheduler } = setup([bare('a'), { ...bare('b'), dependsOn: ['a'] }]);
    assert.deepEqual(
      topologicalOrder({ title: 'p', tasks: [{ ...bare('b'), dependsOn: ['a'] }, bare('a')] }).map((t) => t.id),
      ['a', 'b'],
      'a plan or its task list',
    );
    scheduler.start();
    runner.end('a');
    await flush();
    runner.end('b');
    await scheduler.whenIdle();
    assert.deepEqual(runner.log, ['run a from base', 'integrate a', 'run b from integration', 'integrate b']);
    assert.equal(scheduler.finished, true);
  });

  it('names only the cycle, not the tasks that lead into it', () => {
    assert.throws(
      () => topologicalOrder([task('x'), task('t', 'a'), task('a', 'b'), task('b', 'a')]),
      (e) => AgentError.isCode(e, 'dependencyCycle') && e.data.cycle.join(' ') === 'a b a',
    );
  });

  it('lists what a task waits for in plan order, whatever order dependsOn names them in', () => {
    const { scheduler } = setup([task('a'), task('b'), task('c'), task('d', 'c', 'a', 'b', 'a')]);
    assert.equal(englishStored(scheduler.reason('d') ?? ''), 'waiting for a, b, c');
    assert.equal(scheduler.reason('a'), undefined, 'ready tasks have no reason');
    assert.equal(scheduler.reason('ghost'), undefined);
  });

  it('lists the failed tasks that block a task in plan order', async () => {
    const { runner, scheduler } = setup([task('a'), task('b'), task('c'), task('d', 'c', 'b', 'a')]);
    scheduler.start();
    runner.end('c', 'failed');
    runner.end('a', 'failed');
    runner.end('b', 'failed');
    await scheduler.whenIdle();
    assert.equal(scheduler.states().get('d'), 'blocked');
    assert.equal(englishStored(scheduler.reason('d') ?? ''), 'blocked by a, b, c');
  });

  it('fires a change for each task whose state or reason changes, and none for the rest', async () => {
    const { runner, scheduler, events } = setup([task('a'), task('b', 'a'), task('c')], 1);
    const fired = (): PlanChange[] => [...events];
    assert.deepEqual(fired(), [], 'building it fires nothing');
    scheduler.start();
    assert.deepEqual(
      fired(),
      [{ id: 'a' }, { id: 'c' }, { id: 'a' }],
      'a and c queued, a running; no plan-level event',
    );
    events.length = 0;
    runner.end('a');
    await flush();
    assert.deepEqual(
      fired().map((e) => e.id),
      ['a', 'c', 'a', 'b'],
      'a integrating, c takes the slot, a done, b queued (no slot for it)',
    );
  });

  it('keeps the time a task was queued while it waits for a slot', async () => {
    const { runner, scheduler } = setup([task('a'), task('b')], 1);
    scheduler.start();
    clock.time = 1500;
    runner.end('a');
    await flush();
    assert.deepEqual(scheduler.timings().get('b'), { queuedAt: 1000, startedAt: 1500 });
    clock.time = 1800;
    runner.end('b');
    await scheduler.whenIdle();
    assert.deepEqual(scheduler.timings().get('b'), {
      queuedAt: 1000,
      startedAt: 1500,
      endedAt: 1800,
      integratedAt: 1800,
    });
  });

  it('fails a task whose run throws at once or rejects with something else than an Error', async () => {
    const { runner, scheduler } = setup([task('a'), task('b'), task('c')]);
    runner.throwing.set('a', new Error('spawn ENOENT'));
    scheduler.start();
    runner.fail('b', 'killed by signal');
    runner.fail('c', 42);
    await scheduler.whenIdle();
    assert.deepEqual(Object.fromEntries(scheduler.states()), { a: 'failed', b: 'failed', c: 'failed' });
    assert.equal(scheduler.reason('a'), 'spawn ENOENT');
    assert.equal(scheduler.reason('b'), 'killed by signal');
    assert.equal(scheduler.reason('c'), '42');
  });

  it('stop() fires one plan event however often it is called, and start() on a plan never stopped fires none', async () => {
    const { scheduler, events } = setup([task('a')]);
    scheduler.start();
    assert.equal(events.filter((e) => e.id === undefined).length, 0);
    await scheduler.stop();
    await scheduler.stop();
    assert.equal(events.filter((e) => e.id === undefined).length, 1);
    assert.equal(scheduler.stopped, true);
    scheduler.start();
    assert.equal(events.filter((e) => e.id === undefined).length, 2, 'start() after stop() fires once');
    assert.equal(scheduler.stopped, false);
  });

  it("stop() rejects with a runner's failure to stop a task, after asking every running task to stop", async () => {
    const { runner, scheduler } = setup([task('a'), task('b')]);
    runner.stopWith = async (t) => {
      if (t.id === 'a') {
        throw new Error('cannot signal a');
      }
      runner.end(t.id, 'stopped');
    };
    scheduler.start();
    await assert.rejects(scheduler.stop(), /cannot signal a/);
    assert.deepEqual(runner.log.slice(2), ['stop a', 'stop b']);
    assert.equal(scheduler.states().get('b'), 'stopped');
    assert.equal(scheduler.states().get('a'), 'running', 'a did not stop');
  });

  it('snapshot() holds each state, a reason only where there is one, and copies of the timings', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a')]);
    scheduler.start();
    const snap = scheduler.snapshot();
    assert.deepEqual(snap, {
      started: true,
      stopped: false,
      tasks: {
        a: { state: 'running', timings: { queuedAt: 1000, startedAt: 1000 } },
        b: { state: 'waiting', reason: storedLine('taskWaitingFor', { tasks: ['a'] }), timings: {} },
      },
    });
    runner.end('a');
    await flush();
    assert.equal(scheduler.states().get('b'), 'running');
    assert.deepEqual(snap.tasks.a.timings, { queuedAt: 1000, startedAt: 1000 }, 'a copy, not the live timings');
    const times = scheduler.timings().get('b')!;
    (times as { startedAt?: number }).startedAt = 1;
    assert.equal(scheduler.timings().get('b')?.startedAt, 1000, 'timings() hands out copies too');
  });

  it('after dispose() no change reaches a listener', async () => {
    const { runner, scheduler, events } = setup([task('a')]);
    scheduler.dispose();
    scheduler.start();
    runner.end('a');
    await scheduler.whenIdle();
    assert.deepEqual(events, []);
  });
});
