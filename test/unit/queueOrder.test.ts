import * as assert from 'node:assert/strict';
import type { AgentStatus } from '../../src/core/agent';
import {
  capOf,
  dueToStart,
  liveCount,
  mustQueue,
  queuePosition,
  queuedIn,
  queuedRepositories,
} from '../../src/core/agents/queueOrder';

const rec = (id: string, status: AgentStatus, createdAt: number, repoRoot = '/r') => ({
  id,
  status,
  createdAt,
  repoRoot,
});

describe('dispatch queue order (maxConcurrentAgents)', () => {
  const records = [
    rec('run', 'running', 1),
    rec('wait', 'waiting-for-input', 2),
    rec('prep', 'preparing', 3),
    rec('done', 'succeeded', 4),
    rec('q3', 'queued', 30),
    rec('q1', 'queued', 10),
    rec('q2b', 'queued', 20),
    rec('q2a', 'queued', 20),
    rec('other', 'running', 5, '/other'),
    rec('otherQ', 'queued', 1, '/other'),
  ];

  it('reads the setting: a whole number above 0 caps, anything else is no limit', () => {
    assert.equal(capOf(3), 3);
    for (const v of [0, -1, 1.5, Number.NaN, undefined]) {
      assert.equal(capOf(v), 0, String(v));
    }
  });

  it('counts live runs (preparing, running, waiting for input) per repository; queued and ended ones do not', () => {
    assert.equal(liveCount(records, '/r'), 3);
    assert.equal(liveCount(records, '/other'), 1);
    assert.equal(liveCount(records, '/none'), 0);
  });

  it('orders the queue by dispatch time, ties by id, per repository', () => {
    assert.deepEqual(
      queuedIn(records, '/r').map((r) => r.id),
      ['q1', 'q2a', 'q2b', 'q3'],
    );
    assert.deepEqual(
      ['q1', 'q2a', 'q2b', 'q3', 'otherQ', 'run', 'nope'].map((id) => queuePosition(records, id)),
      [1, 2, 3, 4, 1, undefined, undefined],
    );
    assert.deepEqual(queuedRepositories(records).sort(), ['/other', '/r']);
  });

  it('queues a dispatch when live runs, starts under way and waiting agents fill the cap', () => {
    const none = [rec('a', 'running', 1)];
    assert.equal(mustQueue(none, '/r', 0), false, 'no limit');
    assert.equal(mustQueue(none, '/r', 2), false);
    assert.equal(mustQueue(none, '/r', 2, 1), true, 'a start under way counts');
    assert.equal(mustQueue(none, '/r', 1), true);
    assert.equal(mustQueue(none, '/elsewhere', 1), false, 'another repository has its own cap');
    // A free slot with an agent waiting: the new dispatch goes behind it, not before.
    assert.equal(mustQueue([...none, rec('q', 'queued', 2)], '/r', 2), true);
  });

  it('starts the oldest queued agents there is room for; all of them without a cap', () => {
    assert.deepEqual(dueToStart(records, '/r', 3), []);
    assert.deepEqual(
      dueToStart(records, '/r', 5).map((r) => r.id),
      ['q1', 'q2a'],
    );
    assert.deepEqual(
      dueToStart(records, '/r', 5, 1).map((r) => r.id),
      ['q1'],
    );
    assert.deepEqual(
      dueToStart(records, '/r', 0).map((r) => r.id),
      ['q1', 'q2a', 'q2b', 'q3'],
    );
    assert.deepEqual(dueToStart(records, '/r', 2), [], 'over the cap (it was lowered): nothing starts');
  });
});
