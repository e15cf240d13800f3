// AgentLanding in the less travelled states a user can still reach: a running agent, a worktree
// already removed, a detached HEAD, Delete Saved Work over many agents of one repository.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { englishMessage } from '../../src/ui/errorText';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';
import { rejection } from './refusal';

const hasBranch = (repo: string, branch: string) => git(repo, 'branch', '--list', branch) !== '';

describe('AgentLanding edge cases a user can reach', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  const finished = (prompt: string, title: string) => fx.ran(manager, prompt, title);

  it('Merge refuses a running agent; Discard stops it first and saves its work; Restore brings it back stopped', async () => {
    const record = await manager.dispatch({
      prompt: 'create started.txt: s\nsleep 60',
      profile: 'demo',
      folder: fx.repo,
      title: 'Busy',
    });
    await waitFor('the agent to write its first file', () =>
      fs.existsSync(path.join(manager.get(record.id).cwd, 'started.txt')),
    );
    assert.ok(manager.isRunning(record.id));
    await rejection(landing.merge(record.id, 'merge', 'x'), 'invalidTransition');
    assert.ok(manager.isRunning(record.id), 'a refused merge does not stop the agent');

    await landing.discard(record.id);
    const discarded = manager.get(record.id);
    assert.ok(!manager.isRunning(record.id));
    assert.equal(discarded.status, 'discarded');
    assert.equal(discarded.statusBeforeDiscard, 'stopped');
    assert.ok(!fs.existsSync(discarded.cwd));
    assert.equal(git(fx.repo, 'show', `${discarded.savedRef}:started.txt`), 's');
    await rejection(landing.merge(record.id, 'merge', 'x'), 'invalidTransition');
    await rejection(landing.commit(record.id, 'x'), 'invalidTransition');

    await landing.restore(record.id);
    assert.equal(manager.get(record.id).status, 'stopped');
    assert.equal(manager.get(record.id).worktreePresent, true);
    assert.equal(fs.readFileSync(path.join(discarded.cwd, 'started.txt'), 'utf8'), 's');
  });

  it('Discard after Remove after merge keeps the saved work, and Restore brings it back', async () => {
    const agent = await finished('create feature.txt: feature', 'Merged');
    await landing.commit(agent.id, 'work');
    fs.writeFileSync(path.join(agent.cwd, 'draft.txt'), 'uncommitted\n');
    assert.equal((await landing.merge(agent.id, 'merge', 'Land')).kind, 'uncommitted');
    await landing.commit(agent.id, 'draft too');
    assert.equal((await landing.merge(agent.id, 'merge', 'Land')).kind, 'merged');
    await landing.removeMergedWorktree(agent.id);
    const saved = manager.get(agent.id).savedRef;
    assert.ok(saved);

    await landing.discard(agent.id);
    assert.equal(manager.get(agent.id).status, 'discarded');
    assert.equal(manager.get(agent.id).savedRef, saved, 'the saved work is still known');
    await landing.restore(agent.id);
    assert.equal(manager.get(agent.id).status, 'merged');
    assert.equal(fs.readFileSync(path.join(agent.cwd, 'draft.txt'), 'utf8'), 'uncommitted\n');
  });

  it('Restore refuses an agent whose worktree is still there (never removed, or restored already), touching it not at all', async () => {
    const agent = await finished('create feature.txt: feature', 'Present');
    const before = recordWorkspace(agent.cwd);
    await rejection(landing.restore(agent.id), 'invalidTransition');
    assertUntouched(before);
    await landing.discard(agent.id);
    await landing.restore(agent.id);
    const restored = recordWorkspace(agent.cwd);
    await rejection(landing.restore(agent.id), 'invalidTransition');
    assertUntouched(restored, 'a second Restore');
    assert.equal(manager.get(agent.id).status, 'succeeded');
  });

  it('Restore brings back the worktree of a merged agent removed after its merge; it stays merged', async () => {
    const agent = await finished('create feature.txt: feature', 'Merged then removed');
    await landing.commit(agent.id, 'work');
    fs.writeFileSync(path.join(agent.cwd, 'draft.txt'), 'kept aside\n');
    await landing.commit(agent.id, 'draft');
    assert.equal((await landing.merge(agent.id, 'merge', 'Land')).kind, 'merged');
    await landing.removeMergedWorktree(agent.id);
    assert.equal(fs.existsSync(agent.cwd), false);
    await landing.restore(agent.id);
    const restored = manager.get(agent.id);
    assert.equal(restored.status, 'merged', 'a merged agent comes back merged');
    assert.equal(restored.worktreePresent, true);
    assert.equal(fs.readFileSync(path.join(agent.cwd, 'draft.txt'), 'utf8'), 'kept aside\n');
    const before = recordWorkspace(agent.cwd);
    const again = await rejection(landing.restore(agent.id), 'invalidTransition');
    assert.ok(AgentError.isCode(again, 'noSavedWorktree'), again.code);
    assert.deepEqual(again.data, { title: 'Merged then removed' });
    assertUntouched(before, 'a second Restore');
  });

  it('Commit refreshes the change set: a new file shows as added, not untracked', async () => {
    const agent = await finished('create feature.txt: feature', 'Committer');
    assert.deepEqual(
      agent.changedFiles.map((f) => [f.path, f.kind]),
      [['feature.txt', 'untracked']],
    );
    await landing.commit(agent.id, 'work');
    assert.deepEqual(
      manager.get(agent.id).changedFiles.map((f) => [f.path, f.kind]),
      [['feature.txt', 'added']],
    );
  });

  it('on a detached HEAD, Merge is refused touching nothing, and Clean Up keeps every branch', async () => {
    const agent = await finished('create feature.txt: feature', 'Detached');
    await landing.commit(agent.id, 'work');
    assert.equal((await landing.merge(agent.id, 'squash', 'Land')).kind, 'merged');
    const other = await finished('create other.txt: other', 'Other');
    await landing.commit(other.id, 'work');
    git(fx.repo, 'checkout', '-q', '--detach');
    const [main, worktree] = [recordWorkspace(fx.repo), recordWorkspace(other.cwd)];
    const error = await rejection(landing.merge(other.id, 'merge', 'x'), 'gitFailed');
    assert.ok(AgentError.isCode(error, 'workspaceDetachedHead'), error.message);
    assert.match(englishMessage(error), /detached HEAD/);
    assertUntouched(main, 'the workspace');
    assertUntouched(worktree, 'the agent worktree');

    assert.deepEqual(await landing.cleanUp(), { removed: 1 });
    assert.ok(!fs.existsSync(agent.cwd));
    assert.ok(hasBranch(fx.repo, agent.branch!), 'no current branch to compare with: the branch stays');
  });

  it('Delete Saved Work deletes each saved ref older than asked once, however many agents name the repository', async () => {
    const a = await finished('create a.txt: a', 'A');
    const b = await finished('create b.txt: b', 'B');
    await landing.discard(a.id);
    await landing.discard(b.id);
    const now = Date.now() + 10_000;
    assert.equal(await landing.deleteSavedWork([fx.repo, fx.repo, fx.repo], 0, now), 2);
    assert.equal(git(fx.repo, 'for-each-ref', 'refs/parallel-agents/'), '');
  });
});
