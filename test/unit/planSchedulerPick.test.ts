import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { PlanScheduler } from '../../src/core/plans/planScheduler';
import type { IntegrationOutcome } from '../../src/core/plans/planTypes';
import { englishStored } from '../../src/ui/errorText';
import { FakeClock, FakeRunner, bestOf, flush, plan, statesOf, task } from './planSchedulerFixture';

// The scheduler's `picking` state: a Best of N task whose candidates have ended waits for a pick,
// holding no slot, its dependents waiting, until picked() merges the candidate the runner was told.

const clock = new FakeClock();

function refusedWith(code: string): (e: unknown) => boolean {
  return (e) => AgentError.isCode(e, code as never);
}

describe('plan scheduler: a Best of N task waiting for a pick', () => {
  it('waits for the pick with its dependent; the pick merges it and the dependent starts from integration', async () => {
    const runner = new FakeRunner();
    const scheduler = new PlanScheduler(plan(bestOf(task('a'), 2), task('b', 'a')), runner, { maxParallel: 2, clock });
    scheduler.start();
    runner.end('a', 'pick');
    await flush();
    assert.deepEqual(statesOf(scheduler), { a: 'picking', b: 'waiting' });
    assert.equal(englishStored(scheduler.reason('b') ?? ''), 'waiting for a');
    assert.equal(scheduler.finished, false);
    assert.equal(scheduler.paused, false, 'a task waiting for a pick does not pause the plan');
    await scheduler.whenIdle(); // nothing runs or merges: idle, yet unfinished
    assert.deepEqual(runner.log, ['run a from base'], 'nothing is merged before the pick');

    scheduler.picked('a');
    assert.equal(scheduler.states().get('a'), 'integrating');
    await flush();
    assert.deepEqual(statesOf(scheduler), { a: 'done', b: 'running' });
    assert.deepEqual(runner.log, ['run a from base', 'integrate a', 'run b from integration']);
    runner.end('b', 'succeeded');
    await scheduler.whenIdle();
    assert.equal(scheduler.finished, true);
  });

  it('holds no slot: another task starts while one waits for a pick', async () => {
    const runner = new FakeRunner();
    const scheduler = new PlanScheduler(plan(bestOf(task('a'), 3), task('c')), runner, { maxParallel: 1, clock });
    scheduler.start();
    assert.deepEqual(runner.running(), ['a']);
    runner.end('a', 'pick');
    await flush();
    assert.deepEqual(runner.running(), ['c']);
    assert.deepEqual(statesOf(scheduler), { a: 'picking', c: 'running' });
  });

  it('picked() only for a task waiting for a pick; such a task cannot be retried but may be skipped', async () => {
    const runner = new FakeRunner();
    const scheduler = new PlanScheduler(plan(bestOf(task('a'), 2), task('b', 'a')), runner, { maxParallel: 2, clock });
    scheduler.start();
    assert.throws(() => scheduler.picked('a'), refusedWith('taskNotPicking'));
    assert.throws(() => scheduler.picked('nope'), refusedWith('noSuchTask'));
    runner.end('a', 'pick');
    await flush();
    assert.throws(() => scheduler.retry('a'), refusedWith('taskNotRetryable'));
    scheduler.skip('a');
    assert.deepEqual(statesOf(scheduler), { a: 'skipped', b: 'running' }, 'skipped: its dependent goes on');
    assert.ok(!runner.log.includes('integrate a'));
  });

  it('a later window keeps the task waiting for its pick (no run is followed), then merges the pick', async () => {
    const runner = new FakeRunner();
    const first = new PlanScheduler(plan(bestOf(task('a'), 2), task('b', 'a')), runner, { maxParallel: 2, clock });
    first.start();
    runner.end('a', 'pick');
    await flush();
    const later = new FakeRunner();
    const restored = new PlanScheduler(plan(bestOf(task('a'), 2), task('b', 'a')), later, {
      maxParallel: 2,
      clock,
      restored: first.snapshot(),
    });
    restored.resume();
    await flush();
    assert.deepEqual(statesOf(restored), { a: 'picking', b: 'waiting' });
    assert.deepEqual(later.log, []);
    restored.picked('a');
    await flush();
    assert.deepEqual(later.log, ['integrate a', 'run b from integration']);
  });

  it('stop() asks an integrating task to stop too (its agent may be fixing a failed check)', async () => {
    const runner = new FakeRunner();
    let release: (o: IntegrationOutcome) => void = () => undefined;
    runner.integrate = async (t) => {
      runner.log.push(`integrate ${t.id}`);
      return new Promise<IntegrationOutcome>((resolve) => (release = resolve));
    };
    runner.stop = async (t) => {
      runner.log.push(`stop ${t.id}`);
      release('merged');
    };
    const scheduler = new PlanScheduler(plan(task('a')), runner, { maxParallel: 1, clock });
    scheduler.start();
    runner.end('a', 'succeeded');
    await flush();
    assert.equal(scheduler.states().get('a'), 'integrating');
    await scheduler.stop();
    assert.deepEqual(runner.log, ['run a from base', 'integrate a', 'stop a']);
    assert.equal(scheduler.states().get('a'), 'done');
  });
});
