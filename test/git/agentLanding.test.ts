import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { MergeStrategy } from '../../src/core/git';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';

/** Every file under dir (except .git) with its bytes and mode: "byte-identical" made checkable. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel))) {
      if (name === '.git') {
        continue;
      }
      const file = path.join(rel, name);
      const stat = fs.lstatSync(path.join(dir, file));
      if (stat.isDirectory()) {
        walk(file);
      } else {
        out[file] = `${(stat.mode & 0o777).toString(8)} ${fs.readFileSync(path.join(dir, file)).toString('base64')}`;
      }
    }
  };
  walk('');
  return out;
}

describe('AgentLanding: commit, merge, conflicts, discard and restore with real git', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  const run = (prompt: string, title: string) => fx.ran(manager, prompt, title);

  for (const strategy of ['merge', 'squash', 'rebase'] as MergeStrategy[]) {
    it(`merges with the ${strategy} strategy after committing the agent's work`, async () => {
      const agent = await run('create feature.txt: new feature\nreplace app.js: hi => hello', `Feature ${strategy}`);
      git(fx.repo, 'commit', '-q', '--allow-empty', '-m', 'main moved on');
      const first = await landing.merge(agent.id, strategy, `Land ${strategy}`);
      assert.deepEqual(first, { kind: 'uncommitted', files: 2 });
      assert.ok(await landing.commit(agent.id, 'Agent work'));
      const result = await landing.merge(agent.id, strategy, `Land ${strategy}`);
      assert.equal(result.kind, 'merged');
      assert.equal(manager.get(agent.id).status, 'merged');
      assert.equal(manager.get(agent.id).mergedInto, 'main');
      assert.equal(fs.readFileSync(path.join(fx.repo, 'feature.txt'), 'utf8'), 'new feature');
      assert.equal(git(fx.repo, 'status', '--porcelain'), '');
      const parents = git(fx.repo, 'rev-list', '--parents', '-n', '1', 'HEAD').split(' ').length - 1;
      assert.equal(parents, strategy === 'merge' ? 2 : 1);
      if (strategy === 'rebase') {
        assert.equal(
          git(fx.repo, 'rev-parse', 'HEAD'),
          git(fx.repo, 'rev-parse', agent.branch!),
          'main fast-forwarded to the rebased branch',
        );
      }
    });
  }

  it('forecasts a conflict, leaves the workspace untouched, and resolves in the agent worktree', async () => {
    const a = await run('replace app.js: hi => from A', 'Agent A');
    const b = await run('replace app.js: hi => from B', 'Agent B');
    await landing.commit(a.id, 'A');
    await landing.commit(b.id, 'B');
    assert.equal((await landing.merge(a.id, 'merge', 'A')).kind, 'merged');
    const head = git(fx.repo, 'rev-parse', 'HEAD');
    const workspace = recordWorkspace(fx.repo);
    const result = await landing.merge(b.id, 'merge', 'B');
    assert.deepEqual(result, { kind: 'conflicts', files: ['app.js'], target: 'main' });
    assertUntouched(workspace, 'the workspace after a forecast conflict');
    assert.equal(git(fx.repo, 'rev-parse', 'HEAD'), head);
    assert.equal(git(fx.repo, 'status', '--porcelain'), '');
    assert.equal(manager.get(b.id).status, 'succeeded');
    const beforeResolving = recordWorkspace(fx.repo);
    assert.deepEqual(await landing.resolveInWorktree(b.id), ['app.js']);
    assertUntouched(beforeResolving, 'resolving in the agent worktree leaves the workspace untouched');
    assert.match(
      fs.readFileSync(path.join(b.cwd, 'app.js'), 'utf8'),
      /<<<<<<<[\s\S]*from B[\s\S]*=======[\s\S]*from A/,
    );
    assert.equal(git(fx.repo, 'status', '--porcelain'), '', 'the main worktree is still untouched');
  });

  it('sends the conflicts to the agent as one follow-up naming the branches and every file, and it runs again', async () => {
    const a = await run('replace app.js: hi => from A\ncreate notes.md: from A', 'Agent A');
    const b = await run('replace app.js: hi => from B\ncreate notes.md: from B', 'Agent B');
    await landing.commit(a.id, 'A');
    await landing.commit(b.id, 'B');
    assert.equal((await landing.merge(a.id, 'merge', 'A')).kind, 'merged');
    const result = await landing.merge(b.id, 'merge', 'B');
    assert.equal(result.kind, 'conflicts');
    const files = result.kind === 'conflicts' ? result.files : [];
    assert.deepEqual([...files].sort(), ['app.js', 'notes.md']);
    const workspace = recordWorkspace(fx.repo);
    await landing.sendConflictsToAgent(b.id, files);
    const branch = manager.get(b.id).branch!;
    assert.deepEqual(manager.get(b.id).followUps, [
      [
        `Merge the branch main into your branch ${branch} (git merge main) and resolve the conflicts in these files:`,
        ...files.map((f) => `- ${f}`),
        'Keep the intent of both sides, then commit the merge.',
      ].join('\n'),
    ]);
    await fx.finished(manager, b.id);
    assertUntouched(workspace, 'sending the conflicts to the agent leaves the workspace untouched');
  });

  it('refuses to merge over uncommitted workspace changes to the same files', async () => {
    const agent = await run('replace app.js: hi => agent', 'Touches app');
    await landing.commit(agent.id, 'agent');
    fs.writeFileSync(path.join(fx.repo, 'app.js'), 'my own edit\n');
    const workspace = recordWorkspace(fx.repo);
    const result = await landing.merge(agent.id, 'merge', 'x');
    assert.deepEqual(result, { kind: 'dirtyMain', files: ['app.js'] });
    assertUntouched(workspace, 'a refused merge leaves the workspace untouched');
    assert.equal(fs.readFileSync(path.join(fx.repo, 'app.js'), 'utf8'), 'my own edit\n');
    assert.equal(manager.get(agent.id).status, 'succeeded');
    // The offered way out: park the user's edit in the stash, then merge.
    await landing.stashBlockingChanges(agent.id, result.kind === 'dirtyMain' ? result.files : []);
    assert.match(git(fx.repo, 'stash', 'list'), /Parallel Agents: before merging "Touches app"/);
    assert.equal((await landing.merge(agent.id, 'merge', 'x')).kind, 'merged');
    assert.equal(fs.readFileSync(path.join(fx.repo, 'app.js'), 'utf8'), 'console.log("agent");\n');
  });

  it('discards without losing work: Restore brings the worktree back byte for byte', async () => {
    const agent = await run('create committed.txt: c', 'Keeper');
    await landing.commit(agent.id, 'first part');
    await manager.followUp(agent.id, 'create notes/untracked.md: u\nreplace app.js: hi => changed\ndelete README.md');
    await fx.finished(manager, agent.id);
    fs.writeFileSync(path.join(agent.cwd, 'tool.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    fs.writeFileSync(path.join(agent.cwd, 'blob.bin'), Buffer.from([0, 1, 2, 255, 0, 7]));
    const before = listing(agent.cwd);
    const statusBefore = git(agent.cwd, 'status', '--porcelain');
    await landing.discard(agent.id);
    const discarded = manager.get(agent.id);
    assert.equal(discarded.status, 'discarded');
    assert.equal(discarded.worktreePresent, false);
    assert.ok(!fs.existsSync(agent.cwd));
    assert.equal(git(fx.repo, 'branch', '--list', agent.branch!), '');
    assert.equal(discarded.savedRef, `refs/parallel-agents/saved/${agent.id}`);
    await landing.restore(agent.id);
    assert.deepEqual(listing(agent.cwd), before);
    assert.equal(git(agent.cwd, 'status', '--porcelain'), statusBefore);
    assert.equal(manager.get(agent.id).status, 'succeeded');
    assert.equal(git(agent.cwd, 'log', '-1', '--format=%s'), 'first part');
    // Saved work goes only when asked, and only when old enough.
    const now = Date.now();
    assert.equal(await landing.deleteSavedWork([fx.repo], 24 * 3600 * 1000, now), 0);
    const savedAt =
      Number(git(fx.repo, 'for-each-ref', '--format=%(committerdate:unix)', 'refs/parallel-agents/')) * 1000;
    assert.equal(
      await landing.deleteSavedWork([fx.repo], 5_000, savedAt + 5_000),
      0,
      'exactly as old as the limit: kept',
    );
    assert.equal(await landing.deleteSavedWork([fx.repo], 0, now + 10_000), 1);
    assert.equal(git(fx.repo, 'for-each-ref', 'refs/parallel-agents/'), '');
  });

  it('cleans up a squash-merged agent: worktree and branch gone, saved ref kept', async () => {
    const agent = await run('create squashed.txt: s', 'Squashed');
    await landing.commit(agent.id, 'agent');
    assert.equal((await landing.merge(agent.id, 'squash', 'squash it')).kind, 'merged');
    const unmerged = await run('create later.txt: l', 'Unmerged');
    assert.deepEqual(await landing.cleanUp(), { removed: 1 });
    assert.ok(!fs.existsSync(agent.cwd));
    assert.equal(git(fx.repo, 'branch', '--list', agent.branch!), '', 'content is in main, so the branch goes');
    assert.ok(git(fx.repo, 'rev-parse', '--verify', `refs/parallel-agents/saved/${agent.id}`));
    assert.deepEqual(
      manager.list().map((r) => r.id),
      [unmerged.id],
    );
    assert.ok(fs.existsSync(unmerged.cwd));
  });
});
