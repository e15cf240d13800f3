// Refresh of every agent (ui/commands/refreshAll.ts): what it waits for, what it leaves to its
// background pass, and that a newer refresh stops an older pass. Real git: test/git/changeFreshness.test.ts.
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { RefreshAll } from '../../src/ui/commands/refreshAll';
import { agentRecord } from './agentRecords';

function setup(records: AgentRecord[], current: Set<string>) {
  const calls: string[] = [];
  const held: (() => void)[] = [];
  let hold = false;
  const refresh = new RefreshAll({
    list: () => records,
    refreshChanges: async (id) => {
      calls.push(id);
      if (hold) {
        await new Promise<void>((resolve) => held.push(resolve));
      }
    },
    unchanged: async (cwd) => {
      if (cwd.endsWith('broken')) {
        throw new Error('unreadable');
      }
      return current.has(cwd);
    },
  });
  return { refresh, calls, holdNext: () => (hold = true), release: () => held.splice(0).forEach((r) => r()) };
}

describe('RefreshAll', () => {
  const records = ['a', 'b', 'c', 'd', 'broken'].map((id) => agentRecord(id));
  const cwd = (id: string) => `/r/repo.worktrees/${id}`;

  it('waits for the agents that may have changed; the rest follow in the background', async () => {
    const { refresh, calls } = setup(records, new Set([cwd('b'), cwd('c'), cwd('d')]));
    assert.deepEqual(await refresh.run(), { refreshed: 2, deferred: 3 });
    assert.deepEqual(calls, ['a', 'broken'], 'a check that fails counts as changed');
    await refresh.settled();
    assert.deepEqual([...calls].sort(), ['a', 'b', 'broken', 'c', 'd']);
  });

  it('never checks an agent without a worktree: it is refreshed at once', async () => {
    const gone = [agentRecord('x', { worktreePresent: false }), agentRecord('y', { worktreeMissing: true })];
    const { refresh, calls } = setup(gone, new Set([cwd('x'), cwd('y')]));
    assert.deepEqual(await refresh.run(), { refreshed: 2, deferred: 0 });
    assert.deepEqual(calls, ['x', 'y']);
  });

  it('a newer refresh stops the background pass of the older one', async () => {
    const { refresh, calls, holdNext, release } = setup(records, new Set([cwd('b'), cwd('c'), cwd('d')]));
    await refresh.run();
    holdNext();
    await new Promise((resolve) => setTimeout(resolve, 5)); // the pass has started: b and c in flight
    assert.deepEqual(calls.slice(2).sort(), ['b', 'c']);
    refresh.dispose();
    release();
    await refresh.settled();
    assert.ok(!calls.includes('d'), `d was refreshed after the pass was stopped: ${calls.join(',')}`);
  });

  it('recomputes whole, in the background, the agents whose refresh covered only what the watcher reported', async () => {
    const calls: string[] = [];
    const refresh = new RefreshAll({
      list: () => records,
      refreshChanges: async (id) => {
        calls.push(`whole ${id}`);
      },
      refreshSeen: async (id) => (calls.push(`seen ${id}`), id === 'a'),
      unchanged: async (c) => c === cwd('c') || c === cwd('d'),
    });
    assert.deepEqual(await refresh.run(), { refreshed: 3, deferred: 2 });
    assert.deepEqual(calls, ['seen a', 'seen b', 'seen broken'], 'the command waits for these only');
    await refresh.settled();
    assert.deepEqual(calls.slice(3).sort(), ['whole b', 'whole broken', 'whole c', 'whole d'], 'a was whole already');
  });
});
