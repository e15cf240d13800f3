import * as assert from 'node:assert/strict';
import type { AgentRecord, ChangedFile } from '../../src/core/agent';
import {
  isViewed,
  keptMarks,
  pathsToStamp,
  reviewOrder,
  reviewQueue,
  sameMarks,
  viewedCount,
} from '../../src/core/review';

const file = (path: string, kind: ChangedFile['kind'] = 'modified'): ChangedFile => ({ path, kind, binary: false });

function record(id: string, patch: Partial<AgentRecord>): AgentRecord {
  return {
    id,
    title: id,
    prompt: '',
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status: 'succeeded',
    repoRoot: '/r',
    cwd: `/r.worktrees/${id}`,
    createdAt: 1,
    changedFiles: [file('a.ts')],
    ...patch,
  } as AgentRecord;
}

describe('viewed marks', () => {
  it('stamps only marked files that are not deleted', () => {
    const files = [file('a'), file('b', 'deleted'), file('c')];
    assert.deepEqual(pathsToStamp({ a: 'h1', b: 'deleted' }, files), ['a']);
    assert.deepEqual(pathsToStamp(undefined, files), []);
  });

  it('keeps a mark whose stamp is unchanged, drops one changed again or no longer changed, keeps a mark made meanwhile', () => {
    const files = [file('a'), file('b', 'deleted'), file('c'), file('d')];
    const kept = keptMarks(
      { a: 'h1', b: 'deleted', c: 'h3', gone: 'h9', d: 'new' },
      files,
      new Map([
        ['a', 'h1'],
        ['c', 'h3-changed'],
        ['gone', 'h9'],
      ]),
    );
    assert.deepEqual(kept, { a: 'h1', b: 'deleted', d: 'new' });
    assert.equal(keptMarks(undefined, files, new Map()), undefined);
    assert.deepEqual(keptMarks({ a: 'h1' }, files, new Map([['a', undefined]])), {}, 'a file that cannot be read');
  });

  it('a file viewed, then deleted by the agent, is unviewed', () => {
    assert.deepEqual(keptMarks({ b: 'h2' }, [file('b', 'deleted')], new Map()), {});
    assert.deepEqual(keptMarks({ b: 'h2' }, [file('b', 'deleted')], new Map([['b', 'h2']])), {});
  });

  it('a deleted file that comes back is unviewed', () => {
    assert.deepEqual(keptMarks({ b: 'deleted' }, [file('b', 'modified')], new Map([['b', 'h2']])), {});
  });

  it('compares marks by content', () => {
    assert.ok(sameMarks({ a: '1', b: '2' }, { b: '2', a: '1' }));
    assert.ok(sameMarks(undefined, {}));
    assert.ok(!sameMarks({ a: '1' }, { a: '2' }));
    assert.ok(!sameMarks({ a: '1' }, { a: '1', b: '2' }));
  });

  it('queues finished agents with unviewed changes by finish time, then creation', () => {
    const queue = reviewQueue([
      record('late', { endedAt: 30 }),
      record('running', { status: 'running' }),
      record('early', { endedAt: 10 }),
      record('viewed', { endedAt: 5, viewedFiles: { 'a.ts': 'h' } }),
      record('empty', { endedAt: 1, changedFiles: [] }),
      record('merged', { endedAt: 2, status: 'merged' }),
      record('missing', { endedAt: 3, worktreeMissing: true }),
      record('tie-b', { endedAt: 20, createdAt: 7 }),
      record('tie-a', { endedAt: 20, createdAt: 6 }),
      record('partly', { endedAt: 25, changedFiles: [file('a.ts'), file('b.ts')], viewedFiles: { 'a.ts': 'h' } }),
    ]);
    assert.deepEqual(
      queue.map((r) => r.id),
      ['early', 'tie-a', 'tie-b', 'partly', 'late'],
    );
  });

  it('keeps no mark for a file never marked, even when its stamp cannot be read', () => {
    const files = [file('a'), file('b'), file('c', 'deleted')];
    assert.deepEqual(keptMarks({}, files, new Map([['a', undefined]])), {});
    assert.deepEqual(keptMarks({ x: 'h' }, files, new Map([['b', 'h2']])), {});
    assert.deepEqual(pathsToStamp({ a: 'h1' }, files), ['a']);
  });

  it('counts viewed files and puts the unviewed first, each group in its order', () => {
    const r = record('r', {
      changedFiles: [file('a'), file('b'), file('c'), file('d')],
      viewedFiles: { a: 'h', c: 'deleted', gone: 'h' },
    });
    assert.deepEqual(viewedCount(r), { viewed: 2, total: 4 });
    assert.deepEqual(
      reviewOrder(r).map((f) => f.path),
      ['b', 'd', 'a', 'c'],
    );
    assert.equal(isViewed(r, 'a'), true);
    assert.equal(isViewed(r, 'b'), false);
    assert.equal(isViewed(record('n', {}), 'a.ts'), false);
    assert.deepEqual(viewedCount(record('n', {})), { viewed: 0, total: 1 });
  });

  it('queues a finished agent that has no end time by its creation time; reviewed or queued ones wait not', () => {
    const queue = reviewQueue([
      record('ended-late', { endedAt: 40, createdAt: 1 }),
      record('no-end', { status: 'failed', createdAt: 30 }),
      record('stopped', { status: 'stopped', endedAt: 10 }),
      record('reviewed', { status: 'reviewed', endedAt: 35 }),
      record('queued', { status: 'queued', createdAt: 0 }),
    ]);
    assert.deepEqual(
      queue.map((r) => r.id),
      ['stopped', 'no-end', 'ended-late'],
    );
  });
});
