import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { topologicalOrder } from '../../src/core/plans/planGraph';
import { conflictReason, PlanScheduler } from '../../src/core/plans/planScheduler';
import type { PlanTask } from '../../src/core/plans/planTypes';
import { englishMessage, englishStored } from '../../src/ui/errorText';
import { FakeClock, FakeRunner, flush, plan, setup, statesOf, task } from './planSchedulerFixture';

const diamond = () => [task('a'), task('b', 'a'), task('c', 'a'), task('d', 'b', 'c')];

describe('plan scheduler', () => {
  it('runs a diamond: b and c after a is integrated, d after both', async () => {
    const { runner, scheduler } = setup(diamond());
    runner.holdMerges = true;
    const changed: (string | undefined)[] = [];
    scheduler.onDidChange((e) => changed.push(e.id));
    assert.deepEqual(statesOf(scheduler), { a: 'waiting', b: 'waiting', c: 'waiting', d: 'waiting' });

    scheduler.start();
    assert.deepEqual(runner.log, ['run a from base']);
    assert.deepEqual(statesOf(scheduler), { a: 'running', b: 'waiting', c: 'waiting', d: 'waiting' });
    assert.equal(englishStored(scheduler.reason('b') ?? ''), 'waiting for a');
    assert.equal(englishStored(scheduler.reason('d') ?? ''), 'waiting for b, c');

    runner.end('a');
    await flush();
    assert.equal(scheduler.states().get('a'), 'integrating');
    assert.deepEqual(runner.running(), [], 'b and c wait until a is merged, not just finished');

    runner.merge('a');
    await flush();
    assert.deepEqual(statesOf(scheduler), { a: 'done', b: 'running', c: 'running', d: 'waiting' });
    assert.ok(changed.includes('b') && changed.includes('c'));

    runner.end('b');
    await flush();
    runner.merge('b');
    await flush();
    assert.deepEqual(statesOf(scheduler), { a: 'done', b: 'done', c: 'running', d: 'waiting' });
    assert.equal(englishStored(scheduler.reason('d') ?? ''), 'waiting for c');

    runner.end('c');
    await flush();
    runner.merge('c');
    await flush();
    assert.equal(scheduler.states().get('d'), 'running');
    assert.equal(scheduler.finished, false);

    runner.end('d');
    await flush();
    runner.merge('d');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
    assert.deepEqual(runner.log, [
      'run a from base',
      'integrate a',
      'run b from integration',
      'run c from integration',
      'integrate b',
      'integrate c',
      'run d from integration',
      'integrate d',
    ]);
  });

  it('never runs more than maxParallel tasks; the next starts when one ends', async () => {
    const { runner, scheduler } = setup([task('t1'), task('t2'), task('t3'), task('t4')], 2);
    scheduler.start();
    assert.deepEqual(runner.running(), ['t1', 't2']);
    assert.deepEqual(statesOf(scheduler), { t1: 'running', t2: 'running', t3: 'queued', t4: 'queued' });

    runner.end('t2');
    await flush();
    assert.deepEqual(runner.running(), ['t1', 't3'], 't3 before t4: file order');
    assert.equal(scheduler.states().get('t4'), 'queued');

    runner.end('t1');
    await flush();
    assert.deepEqual(runner.running(), ['t3', 't4']);
    runner.end('t3');
    runner.end('t4');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
    assert.equal(runner.maxActiveRuns, 2);
  });

  it('starts ready tasks in topological order, ties broken by file order', async () => {
    const order = (tasks: PlanTask[]) => topologicalOrder(tasks).map((t) => t.id);
    assert.deepEqual(order([task('u', 'w'), task('v', 's'), task('s'), task('w'), task('c')]), [
      's',
      'v',
      'w',
      'u',
      'c',
    ]);
    // c's conflict pauses the plan while s and w land, so u and v become ready together.
    const { runner, scheduler } = setup([task('u', 'w'), task('v', 's'), task('s'), task('w'), task('c')], 3);
    runner.mergeResults.set('c', ['conflicts']);
    scheduler.start();
    runner.end('c');
    await flush();
    runner.end('s');
    runner.end('w');
    await scheduler.whenIdle();
    assert.deepEqual(statesOf(scheduler), { u: 'queued', v: 'queued', s: 'done', w: 'done', c: 'conflicted' });
    scheduler.retry('c');
    await flush();
    assert.deepEqual(
      runner.log.filter((l) => l.startsWith('run')),
      ['run s from base', 'run w from base', 'run c from base', 'run v from integration', 'run u from integration'],
    );
  });

  it('blocks the dependents of a failed task, transitively, and goes on with the rest', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a'), task('c', 'b'), task('e')]);
    scheduler.start();
    runner.end('a', 'failed');
    runner.end('e');
    await scheduler.whenIdle();
    assert.deepEqual(statesOf(scheduler), { a: 'failed', b: 'blocked', c: 'blocked', e: 'done' });
    assert.equal(englishStored(scheduler.reason('b') ?? ''), 'blocked by a');
    assert.equal(englishStored(scheduler.reason('c') ?? ''), 'blocked by a');
    assert.equal(scheduler.finished, false);
    assert.ok(!runner.log.includes('integrate a'), 'a failed run is not integrated');
  });

  it('retries a failed task (run, then integrate), after which everything completes', async () => {
    const { runner, scheduler } = setup(diamond());
    scheduler.start();
    runner.end('a', new Error('agent crashed'));
    await scheduler.whenIdle();
    assert.equal(scheduler.states().get('a'), 'failed');
    assert.equal(scheduler.reason('a'), 'agent crashed');
    assert.equal(englishStored(scheduler.reason('d') ?? ''), 'blocked by a');

    scheduler.retry('a');
    assert.deepEqual(statesOf(scheduler), { a: 'running', b: 'waiting', c: 'waiting', d: 'waiting' });
    assert.equal(englishStored(scheduler.reason('b') ?? ''), 'waiting for a');
    runner.end('a');
    await flush();
    runner.end('b');
    runner.end('c');
    await flush();
    runner.end('d');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
    assert.deepEqual(runner.log.slice(0, 3), ['run a from base', 'run a from base', 'integrate a']);
  });

  it('fails a task whose integration throws; retry runs it again', async () => {
    const { runner, scheduler } = setup([task('a')]);
    runner.mergeResults.set('a', [new Error('index.lock exists')]);
    scheduler.start();
    runner.end('a');
    await scheduler.whenIdle();
    assert.equal(scheduler.states().get('a'), 'failed');
    assert.equal(scheduler.reason('a'), 'index.lock exists');
    scheduler.retry('a');
    runner.end('a');
    await scheduler.whenIdle();
    assert.equal(scheduler.states().get('a'), 'done');
    assert.deepEqual(runner.log, ['run a from base', 'integrate a', 'run a from base', 'integrate a']);
  });

  it('rejects retry and skip from states that do not allow them', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a'), task('c')]);
    const invalid = (e: unknown) => AgentError.is(e, 'invalidTransition');
    scheduler.start();
    assert.throws(() => scheduler.retry('a'), invalid, 'running');
    assert.throws(() => scheduler.skip('a'), invalid, 'running');
    assert.throws(() => scheduler.retry('b'), invalid, 'waiting');
    assert.throws(() => scheduler.retry('nope'), invalid, 'unknown task');
    runner.end('c');
    await flush();
    assert.throws(() => scheduler.retry('c'), invalid, 'done');
    assert.throws(() => scheduler.skip('c'), invalid, 'done');
    runner.end('a', 'failed');
    await flush();
    assert.throws(() => scheduler.retry('b'), invalid, 'blocked');
    scheduler.skip('a');
    assert.throws(() => scheduler.retry('a'), invalid, 'skipped');
    assert.throws(() => scheduler.skip('a'), invalid, 'skipped twice');
  });

  it('skip releases the dependents of a failed task; they start from the integration branch', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a'), task('c', 'b')]);
    scheduler.start();
    runner.end('a', 'failed');
    await flush();
    assert.equal(scheduler.states().get('b'), 'blocked');
    scheduler.skip('a');
    assert.deepEqual(statesOf(scheduler), { a: 'skipped', b: 'running', c: 'waiting' });
    runner.end('b');
    await flush();
    runner.end('c');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
    assert.deepEqual(
      runner.log.filter((l) => l.startsWith('run')),
      ['run a from base', 'run b from integration', 'run c from integration'],
    );
  });

  it('looks through a skipped task: its dependents still wait for its prerequisites', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a'), task('c', 'b')]);
    scheduler.start();
    scheduler.skip('b');
    assert.deepEqual(statesOf(scheduler), { a: 'running', b: 'skipped', c: 'waiting' });
    assert.equal(englishStored(scheduler.reason('c') ?? ''), 'waiting for a');
    runner.end('a');
    await flush();
    assert.deepEqual(runner.running(), ['c']);
    runner.end('c');
    await scheduler.whenIdle();
    assert.ok(!runner.log.includes('run b from integration'));
    assert.equal(scheduler.finished, true);
  });

  it('stop: running tasks stop, nothing new starts, states are kept; retry resumes later', async () => {
    const { runner, scheduler } = setup([task('t1'), task('t2'), task('t3'), task('t4', 't1')], 2);
    const planEvents: number[] = [];
    scheduler.onDidChange((e) => e.id === undefined && planEvents.push(1));
    scheduler.start();
    assert.deepEqual(runner.running(), ['t1', 't2']);

    await scheduler.stop();
    assert.deepEqual(statesOf(scheduler), { t1: 'stopped', t2: 'stopped', t3: 'queued', t4: 'waiting' });
    assert.equal(scheduler.stopped, true);
    assert.equal(planEvents.length, 1);
    await flush();
    assert.deepEqual(runner.running(), [], 'nothing new starts after stop');
    assert.deepEqual(runner.log, ['run t1 from base', 'run t2 from base', 'stop t1', 'stop t2']);

    scheduler.retry('t1');
    assert.equal(scheduler.stopped, false);
    assert.deepEqual(runner.running(), ['t1', 't3'], 'retry resumes the plan');
    assert.equal(scheduler.states().get('t2'), 'stopped', 'other stopped tasks wait for their own retry');
    runner.end('t1');
    await flush();
    assert.deepEqual(runner.running(), ['t3', 't4']);
    runner.end('t3');
    runner.end('t4');
    await scheduler.whenIdle();
    assert.deepEqual(statesOf(scheduler), { t1: 'done', t2: 'stopped', t3: 'done', t4: 'done' });
    scheduler.retry('t2');
    runner.end('t2');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
  });

  it('start() after stop() resumes queued tasks without re-running stopped ones', async () => {
    const { runner, scheduler } = setup([task('t1'), task('t2')], 1);
    scheduler.start();
    await scheduler.stop();
    assert.deepEqual(statesOf(scheduler), { t1: 'stopped', t2: 'queued' });
    scheduler.start();
    assert.deepEqual(runner.running(), ['t2']);
    assert.equal(scheduler.states().get('t1'), 'stopped');
  });

  it('a conflict pauses the plan until the task is integrated again', async () => {
    const { runner, scheduler } = setup([task('a'), task('b'), task('c'), task('d')], 2);
    runner.mergeResults.set('a', ['conflicts']);
    scheduler.start();
    runner.end('a');
    await flush();
    // c took a's slot when a's run ended, before its merge was tried.
    assert.deepEqual(statesOf(scheduler), { a: 'conflicted', b: 'running', c: 'running', d: 'queued' });
    assert.equal(scheduler.reason('a'), conflictReason);
    assert.equal(scheduler.paused, true);

    runner.end('b');
    await flush();
    assert.deepEqual(runner.running(), ['c'], 'd does not start in the free slot while paused');
    runner.end('c');
    await scheduler.whenIdle();
    assert.deepEqual(
      statesOf(scheduler),
      { a: 'conflicted', b: 'done', c: 'done', d: 'queued' },
      'runs in flight still integrate',
    );

    scheduler.retry('a');
    assert.equal(scheduler.states().get('a'), 'integrating');
    await flush();
    assert.equal(scheduler.states().get('a'), 'done');
    assert.equal(scheduler.paused, false);
    assert.deepEqual(runner.running(), ['d']);
    assert.equal(runner.log.filter((l) => l === 'run a from base').length, 1, 'retry of a conflict only integrates');
    assert.equal(runner.log.filter((l) => l === 'integrate a').length, 2);
  });

  it('skipping a conflicted task unpauses the plan', async () => {
    const { runner, scheduler } = setup([task('a'), task('b', 'a'), task('c'), task('d')], 1);
    runner.mergeResults.set('a', ['conflicts']);
    scheduler.start();
    runner.end('a');
    await flush();
    runner.end('c');
    await scheduler.whenIdle();
    assert.deepEqual(statesOf(scheduler), { a: 'conflicted', b: 'waiting', c: 'done', d: 'queued' });
    scheduler.skip('a');
    assert.equal(scheduler.paused, false);
    assert.deepEqual(runner.running(), ['b'], 'b comes before d');
  });

  it('rejects a cycle, an unknown dependency, a duplicate id and a bad maxParallel', () => {
    const cases: [PlanTask[], RegExp, number?][] = [
      [[task('a', 'b'), task('b', 'a')], /cycle: a → b → a/],
      [[task('a', 'a')], /cycle: a → a/],
      [[task('x'), task('a', 'c'), task('b', 'a'), task('c', 'b')], /cycle: a → c → b → a/],
      [[task('a', 'ghost')], /"a" depends on "ghost"/],
      [[task('a'), task('a')], /two tasks have the id "a"/i],
      [[task('a')], /maxParallel/, 0],
    ];
    for (const [tasks, message, maxParallel] of cases) {
      assert.throws(
        () =>
          new PlanScheduler(plan(...tasks), new FakeRunner(), {
            maxParallel: maxParallel ?? 2,
            clock: new FakeClock(),
          }),
        (e) => AgentError.is(e, 'invalidPlan') && message.test(englishMessage(e)),
        String(message),
      );
    }
  });

  it('integrates one task at a time, in the order their runs ended', async () => {
    const { runner, scheduler } = setup([task('a'), task('b'), task('c', 'a', 'b')]);
    runner.holdMerges = true;
    scheduler.start();
    runner.end('b');
    runner.end('a');
    await flush();
    assert.deepEqual(statesOf(scheduler), { a: 'integrating', b: 'integrating', c: 'waiting' });
    assert.deepEqual(
      runner.log.filter((l) => l.startsWith('integrate')),
      ['integrate b'],
    );
    runner.merge('b');
    await flush();
    assert.deepEqual(
      runner.log.filter((l) => l.startsWith('integrate')),
      ['integrate b', 'integrate a'],
    );
    assert.equal(scheduler.states().get('c'), 'waiting');
    runner.merge('a');
    await flush();
    assert.equal(scheduler.states().get('c'), 'running');
    assert.equal(runner.maxActiveMerges, 1);
  });

  it('records queued, started, ended and integrated times from the clock', async () => {
    const { runner, clock, scheduler } = setup([task('a'), task('b', 'a')]);
    runner.holdMerges = true;
    scheduler.start();
    clock.time = 1500;
    runner.end('a');
    await flush();
    clock.time = 1700;
    runner.merge('a');
    await flush();
    clock.time = 2000;
    runner.end('b');
    await flush();
    clock.time = 2100;
    runner.merge('b');
    await scheduler.whenIdle();
    assert.deepEqual(Object.fromEntries(scheduler.timings()), {
      a: { queuedAt: 1000, startedAt: 1000, endedAt: 1500, integratedAt: 1700 },
      b: { queuedAt: 1700, startedAt: 1700, endedAt: 2000, integratedAt: 2100 },
    });
  });

  it('whenIdle waits for running and integrating tasks', async () => {
    const { runner, scheduler } = setup([task('a')]);
    runner.holdMerges = true;
    scheduler.start();
    let idle = false;
    void scheduler.whenIdle().then(() => (idle = true));
    runner.end('a');
    await flush();
    assert.equal(idle, false, 'a is integrating');
    runner.merge('a');
    await flush();
    assert.equal(idle, true);
  });

  describe('restored from a snapshot (a later window)', () => {
    /** What a window saves and the next one reads: plain JSON. */
    const restore = (tasks: PlanTask[], from: PlanScheduler, maxParallel = 4) => {
      const runner = new FakeRunner();
      const clock = new FakeClock();
      clock.time = 5000;
      const restored = JSON.parse(JSON.stringify(from.snapshot()));
      return { runner, clock, scheduler: new PlanScheduler(plan(...tasks), runner, { maxParallel, clock, restored }) };
    };

    it('goes on where the earlier window stopped: follows running agents, merges again, keeps timings', async () => {
      const first = setup(diamond());
      first.runner.holdMerges = true;
      first.scheduler.start();
      first.runner.end('a');
      await flush();
      first.runner.merge('a');
      await flush();
      first.clock.time = 1200;
      first.runner.end('b');
      await flush();
      assert.deepEqual(statesOf(first.scheduler), { a: 'done', b: 'integrating', c: 'running', d: 'waiting' });

      const { runner, scheduler } = restore(diamond(), first.scheduler);
      assert.deepEqual(statesOf(scheduler), { a: 'done', b: 'integrating', c: 'running', d: 'waiting' });
      assert.equal(englishStored(scheduler.reason('d') ?? ''), 'waiting for b, c');
      assert.deepEqual(runner.log, [], 'nothing moves before resume()');
      assert.deepEqual(scheduler.timings().get('a'), first.scheduler.timings().get('a'));
      assert.equal(scheduler.timings().get('b')?.endedAt, 1200);

      scheduler.resume();
      await flush();
      assert.deepEqual(runner.log, ['resume c', 'integrate b'], 'c is followed, not started again; b is merged again');
      runner.end('c');
      await flush();
      assert.deepEqual(runner.log.slice(2), ['integrate c', 'run d from integration']);
      runner.end('d');
      await scheduler.whenIdle();
      assert.equal(scheduler.finished, true);
      assert.equal(scheduler.timings().get('d')?.startedAt, 5000, 'new readings come from the new clock');
    });

    it('starts again a task whose agent was never made, and respects maxParallel meanwhile', async () => {
      const first = setup([task('a'), task('b'), task('c')], 2);
      first.scheduler.start();
      assert.deepEqual(statesOf(first.scheduler), { a: 'running', b: 'running', c: 'queued' });
      const { runner, scheduler } = restore([task('a'), task('b'), task('c')], first.scheduler, 2);
      runner.notStarted.add('b');
      scheduler.resume();
      await flush();
      assert.deepEqual(runner.log, ['resume a', 'resume b', 'run b from base']);
      assert.deepEqual(statesOf(scheduler), { a: 'running', b: 'running', c: 'queued' });
      assert.equal(scheduler.timings().get('b')?.startedAt, 5000);
      runner.end('a');
      await flush();
      assert.deepEqual(runner.running().sort(), ['b', 'c']);
    });

    it('a stopped plan stays stopped and a paused one paused until the user acts', async () => {
      const stopped = setup([task('a'), task('b', 'a')]);
      stopped.scheduler.start();
      await stopped.scheduler.stop();
      const again = restore([task('a'), task('b', 'a')], stopped.scheduler);
      assert.equal(again.scheduler.stopped, true);
      again.scheduler.resume();
      await flush();
      assert.deepEqual(again.runner.log, []);
      again.scheduler.retry('a');
      assert.deepEqual(again.runner.log, ['run a from base']);
      assert.equal(again.scheduler.stopped, false);

      const paused = setup([task('a'), task('b')]);
      paused.runner.mergeResults.set('a', ['conflicts']);
      paused.scheduler.start();
      paused.runner.end('a');
      await flush();
      const later = restore([task('a'), task('b')], paused.scheduler);
      assert.equal(later.scheduler.paused, true);
      assert.equal(later.scheduler.reason('a'), conflictReason);
      later.scheduler.resume();
      await flush();
      assert.deepEqual(later.runner.log, ['resume b'], 'b was running; nothing new starts while a is conflicted');
    });
  });
});
