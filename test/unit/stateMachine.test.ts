import * as assert from 'node:assert/strict';
import { allStatuses, assertTransition, canTransition } from '../../src/core/agents/agentStateMachine';
import { AgentError } from '../../src/core/errors';

describe('agent state machine', () => {
  it('follows the lifecycle forward', () => {
    const path = [
      'queued',
      'preparing',
      'running',
      'waiting-for-input',
      'running',
      'succeeded',
      'reviewed',
      'merged',
      'discarded',
    ] as const;
    for (let i = 1; i < path.length; i++) {
      assert.ok(canTransition(path[i - 1], path[i]), `${path[i - 1]} -> ${path[i]}`);
    }
  });

  it('never moves backwards from a finished run, except to run a follow-up', () => {
    for (const finished of ['succeeded', 'failed', 'stopped', 'interrupted', 'reviewed'] as const) {
      for (const back of ['queued', 'preparing', 'waiting-for-input'] as const) {
        assert.equal(canTransition(finished, back), false, `${finished} -> ${back}`);
      }
      assert.ok(canTransition(finished, 'running'), `${finished} -> running (follow-up)`);
    }
    assert.equal(canTransition('merged', 'running'), false);
  });

  it('leaves discarded only by a restore to a finished status', () => {
    for (const to of allStatuses()) {
      const restorable = [
        'succeeded',
        'failed',
        'stopped',
        'interrupted',
        'timed-out',
        'needs-permission',
        'detached',
        'reviewed',
        'merged',
      ].includes(to);
      assert.equal(canTransition('discarded', to), restorable, to);
    }
  });

  it('ends a run in "needs permission", a finished status that can be reviewed, merged, discarded or followed up', () => {
    assert.ok(canTransition('running', 'needs-permission'));
    assert.ok(canTransition('waiting-for-input', 'needs-permission'));
    for (const to of ['running', 'reviewed', 'merged', 'discarded'] as const) {
      assert.ok(canTransition('needs-permission', to), to);
    }
    for (const to of ['queued', 'preparing', 'succeeded', 'failed'] as const) {
      assert.equal(canTransition('needs-permission', to), false, to);
    }
    assert.equal(canTransition('succeeded', 'needs-permission'), false);
  });

  it('rejects an invalid transition with a typed error', () => {
    assert.throws(
      () => assertTransition('merged', 'running'),
      (e) => AgentError.is(e, 'invalidTransition'),
    );
    assert.doesNotThrow(() => assertTransition('running', 'stopped'));
  });

  it('lets a reload interrupt any active status', () => {
    for (const active of ['queued', 'preparing', 'running', 'waiting-for-input'] as const) {
      assert.ok(canTransition(active, 'interrupted'), active);
    }
  });

  it('detaches a running terminal agent whose terminal did not come back; reopened, reviewed, merged or discarded from there', () => {
    assert.ok(canTransition('running', 'detached'));
    assert.ok(canTransition('waiting-for-input', 'detached'));
    for (const to of ['running', 'reviewed', 'merged', 'discarded'] as const) {
      assert.ok(canTransition('detached', to), to);
    }
    for (const to of [
      'queued',
      'preparing',
      'waiting-for-input',
      'succeeded',
      'failed',
      'stopped',
      'interrupted',
    ] as const) {
      assert.equal(canTransition('detached', to), false, to);
    }
    for (const from of ['queued', 'preparing', 'succeeded', 'failed', 'stopped', 'reviewed', 'merged'] as const) {
      assert.equal(canTransition(from, 'detached'), false, from);
    }
  });
});
