// What Discard and Merge do about the agent's folder itself, on a real AgentManager with real demo
// agents and real git: Discard lets go of the watch on the worktree it removes (the extension's Node
// watcher), and Merge refuses a record that names a branch without a worktree, or a worktree without
// a branch — shapes no dispatch of this version writes, but a record file in the registry can hold
// (written by another version, or by hand), and a merge of it would run git on the wrong folder.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { FolderWatch, FolderWatcher } from '../../src/core/ports';
import { NodeFolderWatcher } from '../../src/node/watch/nodeFolderWatcher';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture, quiet } from './managerFixture';
import { refusal } from './refusal';

/** The extension's Node watcher, with the watches it has open counted per folder. */
class CountingWatcher implements FolderWatcher {
  readonly inner = new NodeFolderWatcher();
  readonly open = new Map<string, number>();

  watch(folder: string, onChange: (paths?: readonly string[]) => void): FolderWatch {
    const watch = this.inner.watch(folder, onChange);
    this.open.set(folder, this.openOn(folder) + 1);
    let closed = false;
    const open = this.open;
    return {
      get complete() {
        return watch.complete;
      },
      focus: (paths) => watch.focus?.(paths),
      dispose: () => {
        if (!closed) {
          closed = true;
          open.set(folder, (open.get(folder) ?? 0) - 1);
        }
        watch.dispose();
      },
    };
  }

  openOn(folder: string): number {
    return this.open.get(folder) ?? 0;
  }
}

describe('Landing and the agent’s folder: Discard stops watching it, Merge needs both a worktree and a branch', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;

  beforeEach(() => {
    fx = new ManagerFixture();
  });

  afterEach(() => fx.dispose());

  it('Discard closes the watch on the worktree it removes; Restore opens one that sees the agent’s next file', async () => {
    const watcher = new CountingWatcher();
    const manager = fx.manager({ watcher });
    const landing = new AgentLanding(manager, fx.git, quiet);
    try {
      const agent = await fx.ran(manager, 'create feature.txt: feature', 'Watched');
      assert.equal(watcher.openOn(agent.cwd), 1, 'the finished agent’s worktree is watched');
      assert.ok(watcher.inner.used > 0);

      await landing.discard(agent.id);
      assert.equal(fs.existsSync(agent.cwd), false, 'the worktree is removed');
      assert.equal(watcher.openOn(agent.cwd), 0, 'no watch is left open on the removed folder');
      assert.equal(watcher.inner.used, 0, 'the watcher holds no system watch any more');

      await landing.restore(agent.id);
      assert.equal(watcher.openOn(agent.cwd), 1, 'the restored worktree is watched again, once');
      await waitFor('the restored change set', () => manager.get(agent.id).changedFiles.length === 1);
      fs.writeFileSync(path.join(agent.cwd, 'later.txt'), 'later\n');
      await waitFor('the watcher to show later.txt without a refresh being asked for', () =>
        manager.get(agent.id).changedFiles.some((f) => f.path === 'later.txt'),
      );
    } finally {
      watcher.inner.dispose();
    }
  });

  /** A finished agent with its work committed, then a second manager reading `shape(record)` from the store. */
  async function reread(
    shape: (record: AgentRecord) => AgentRecord,
  ): Promise<{ record: AgentRecord; manager: AgentManager; landing: AgentLanding }> {
    const first = fx.manager();
    const done = await fx.ran(first, 'create feature.txt: feature', 'Odd record');
    await new AgentLanding(first, fx.git, quiet).commit(done.id, 'work');
    const record = shape(first.get(done.id));
    fx.store.records = [record];
    const manager = fx.manager();
    return { record, manager, landing: new AgentLanding(manager, fx.git, quiet) };
  }

  it('Merge refuses a record that names a branch but no worktree (not marked removed): nothing touched', async () => {
    const { record, manager, landing } = await reread((r) => ({ ...r, cwd: fx.repo, worktreePath: undefined }));
    assert.equal(manager.get(record.id).worktreePresent, undefined);
    assert.ok(record.branch);
    const tip = git(fx.repo, 'rev-parse', record.branch);
    const before = recordWorkspace(fx.repo);
    const error = await refusal(landing.merge(record.id, 'merge', 'x'), 'noWorktreeBranch');
    assert.deepEqual(error.data, { title: 'Odd record' });
    assertUntouched(before, 'the workspace');
    assert.equal(git(fx.repo, 'rev-parse', record.branch), tip);
    assert.equal(manager.get(record.id).status, 'succeeded');
  });

  it('Merge refuses a record of a worktree on a detached HEAD with no branch: workspace and worktree untouched', async () => {
    const { record, manager, landing } = await reread(({ branch: _branch, ...r }) => r);
    const oldBranch = git(record.cwd, 'branch', '--show-current');
    git(record.cwd, 'checkout', '-q', '--detach');
    git(fx.repo, 'branch', '-q', '-D', oldBranch);
    assert.equal(record.branch, undefined);
    assert.ok(record.worktreePath);
    const [workspace, worktree] = [recordWorkspace(fx.repo), recordWorkspace(record.cwd)];
    const error = await refusal(landing.merge(record.id, 'squash', 'x'), 'noWorktreeBranch');
    assert.deepEqual(error.data, { title: 'Odd record' });
    await refusal(landing.commit(record.id, 'x'), 'noWorktreeBranch');
    assertUntouched(workspace, 'the workspace');
    assertUntouched(worktree, 'the detached worktree');
    assert.equal(manager.get(record.id).status, 'succeeded');
  });
});
