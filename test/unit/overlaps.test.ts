import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { findOverlaps, sameOverlaps } from '../../src/core/landing/overlaps';
import { agentRecord, modified } from './agentRecords';

function agent(id: string, files: string[], extra: Partial<AgentRecord> = {}): AgentRecord {
  return agentRecord(id, { changedFiles: modified(files), ...extra });
}

describe('overlaps between agents', () => {
  it('names the other agents for each shared file', () => {
    const index = findOverlaps([
      agent('a', ['x.js', 'y.js']),
      agent('b', ['x.js']),
      agent('c', ['x.js', 'z.js']),
      agent('d', ['z.js']),
    ]);
    assert.deepEqual(index.get('a')?.get('x.js'), ['b', 'c']);
    assert.equal(index.get('a')?.has('y.js'), false);
    assert.deepEqual(index.get('c')?.get('z.js'), ['d']);
    assert.deepEqual([...index.keys()].sort(), ['a', 'b', 'c', 'd']);
  });

  it('ignores merged and discarded agents and other repositories', () => {
    const index = findOverlaps([
      agent('a', ['x.js']),
      agent('m', ['x.js'], { status: 'merged' }),
      agent('o', ['x.js'], { repoRoot: '/other', cwd: '/other.worktrees/o' }),
    ]);
    assert.equal(index.size, 0);
  });

  it('compares a workspace agent in a subfolder by repository path', () => {
    const index = findOverlaps([
      agent('a', ['src/x.js']),
      agent('t', ['x.js'], { isolation: 'terminal', cwd: '/r/repo/src' }),
    ]);
    assert.deepEqual(index.get('t')?.get('x.js'), ['a']);
    assert.deepEqual(index.get('a')?.get('src/x.js'), ['t']);
  });

  it('tells equal indexes apart from different ones', () => {
    const one = findOverlaps([agent('a', ['x']), agent('b', ['x'])]);
    assert.ok(sameOverlaps(one, findOverlaps([agent('b', ['x']), agent('a', ['x'])])));
    assert.ok(!sameOverlaps(one, findOverlaps([agent('a', ['x']), agent('b', ['y'])])));
  });
});
