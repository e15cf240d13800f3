import * as assert from 'node:assert/strict';
import type { AgentStatus, QuotaPause } from '../../src/core/agent';
import {
  capOf,
  claimHoldsMs,
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

describe('quota resumes under the caps (maxConcurrentAgents, providerLimits)', () => {
  const pause = (resumeAt: number, claimedAt?: number): QuotaPause => ({
    provider: 'claude',
    pausedAt: 0,
    resumeAt,
    resetGiven: true,
    attempt: 1,
    message: 'limit',
    ...(claimedAt === undefined ? {} : { claimedAt }),
  });
  const paused = (id: string, quota: QuotaPause, provider = 'claude', repoRoot = '/r') => ({
    ...rec(id, 'paused', 1, repoRoot),
    provider,
    quota,
  });
  const other = (id: string, status: AgentStatus, createdAt: number) => ({
    ...rec(id, status, createdAt),
    provider: 'codex',
  });
  const now = 10_000;

  it('a paused agent holds no place while it waits; a claimed resume does, until its claim lapses', () => {
    const waiting = [paused('p', pause(now + 60_000)), other('r', 'running', 2)];
    assert.equal(liveCount(waiting, '/r', now), 1);
    assert.equal(mustQueue(waiting, '/r', 2, 0, undefined, 'codex', now), false, 'its place is free meanwhile');
    const claimed = [paused('p', pause(now - 5, now - 1)), other('r', 'running', 2)];
    assert.equal(liveCount(claimed, '/r', now), 2, 'a window is resuming it');
    assert.equal(mustQueue(claimed, '/r', 2, 0, undefined, 'codex', now), true);
    assert.equal(liveCount(claimed, '/r', now + claimHoldsMs + 10), 1, 'a lapsed claim holds nothing');
    assert.deepEqual(
      dueToStart(claimed, '/r', 2, 0, undefined, now + claimHoldsMs + 10).map((r) => r.id),
      ['p'],
      'and is due again',
    );
  });

  it('due resumes go first, oldest resume time first, before older queued dispatches; without room they wait', () => {
    const records = [
      other('q', 'queued', 0),
      paused('late', pause(now - 10)),
      paused('early', pause(now - 20)),
      paused('notYet', pause(now + 1)),
      other('r', 'running', 3),
    ];
    assert.deepEqual(
      dueToStart(records, '/r', 3, 0, undefined, now).map((r) => r.id),
      ['early', 'late'],
    );
    assert.deepEqual(
      dueToStart(records, '/r', 2, 0, undefined, now).map((r) => r.id),
      ['early'],
    );
    assert.deepEqual(dueToStart(records, '/r', 1, 0, undefined, now), [], 'no room: the resumes wait');
    assert.deepEqual(
      dueToStart(records, '/r', 5, 0, undefined, now).map((r) => r.id),
      ['early', 'late', 'q'],
    );
    assert.equal(mustQueue(records, '/r', 3, 0, undefined, 'codex', now), true, 'a new dispatch never overtakes them');
    assert.deepEqual(queuedRepositories([paused('x', pause(now - 1), 'claude', '/s')], now), ['/s']);
    assert.deepEqual(
      dueToStart(records, '/r', 5).map((r) => r.id),
      ['q'],
      'without a time, no resume is due',
    );
  });

  it('a due resume waits while its provider is at its cap, and lets another provider by', () => {
    const caps = { caps: new Map([['claude', 1]]) };
    const records = [
      paused('p', pause(now - 1)),
      { ...rec('c', 'running', 2), provider: 'claude' },
      other('q', 'queued', 3),
    ];
    assert.deepEqual(
      dueToStart(records, '/r', 0, 0, caps, now).map((r) => r.id),
      ['q'],
    );
    assert.deepEqual(
      dueToStart(records.slice(0, 1), '/r', 0, 0, caps, now).map((r) => r.id),
      ['p'],
    );
  });
});
