// Stacked agents with real git and the real demo agent: an agent dispatched on top of another's
// work starts from its parent's worktree as it is (uncommitted files included), shows only its own
// work, and Rebase on Parent carries that work onto the parent's newer work, or refuses, changing nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { parentRanSince } from '../../src/core/agents/stacking';
import { AgentError, type AgentErrorCode } from '../../src/core/errors';
import { englishMessage } from '../../src/ui/errorText';
import { git, type ManagerFixture } from './managerFixture';
import { eachStack, read } from './stackFixture';

describe('stacked agents (real git, real demo agent)', function () {
  this.timeout(60000);
  const stack = eachStack();
  const { agent, followUp, changes, refs } = stack;
  let fx: ManagerFixture;
  let manager: AgentManager;
  beforeEach(() => ({ fx, manager } = stack));

  /** Rejects with `code` whose English text matches `words`. */
  async function refused(run: Promise<unknown>, code: AgentErrorCode, words: RegExp): Promise<void> {
    await assert.rejects(run, (e: unknown) => {
      assert.ok(AgentError.isCode(e, code), String(e));
      assert.match(englishMessage(e), words);
      return true;
    });
  }

  it("starts from the parent's worktree as it is, shows only its own work, and rebases onto the parent's new work", async () => {
    const parent = await agent('create base.txt: one\nappend app.js: // parent');
    const parentStatus = git(parent.cwd, 'status', '--porcelain');
    const parentIndex = fs.readFileSync(
      git(parent.cwd, 'rev-parse', '--git-path', 'index').replace(/^(?!\/)/, `${parent.cwd}/`),
    );

    const stackedFrom = Date.now();
    const child = await agent('create child.txt: c', parent.id);
    const { at, ...link } = child.stackedOn ?? { at: undefined };
    assert.deepEqual(link, { id: parent.id, title: parent.title });
    assert.ok(at !== undefined && at >= stackedFrom && at <= Date.now(), 'the snapshot time is kept');
    assert.equal(parentRanSince(child, manager.get(parent.id)), false, 'the parent has not run since');
    assert.notEqual(child.baseSha, git(fx.repo, 'rev-parse', 'HEAD'), 'based on a snapshot, not on HEAD');
    assert.equal(read(child.cwd, 'base.txt'), 'one', "the parent's uncommitted file is in the child's worktree");
    assert.match(read(child.cwd, 'app.js'), /\/\/ parent/);
    assert.deepEqual(changes(child.id), ['untracked child.txt'], "the child's diff is its own work alone");
    // The snapshot touched nothing of the parent's and left no ref behind.
    assert.equal(git(parent.cwd, 'status', '--porcelain'), parentStatus);
    assert.deepEqual(
      fs.readFileSync(git(parent.cwd, 'rev-parse', '--git-path', 'index').replace(/^(?!\/)/, `${parent.cwd}/`)),
      parentIndex,
    );
    assert.doesNotMatch(refs(), /refs\/parallel-agents\/stack\//);

    await followUp(parent.id, 'create more.txt: m');
    assert.equal(parentRanSince(manager.get(child.id), manager.get(parent.id)), true, 'the parent ran since');
    const oldBase = manager.get(child.id).baseSha;
    await manager.rebaseOnParent(child.id);
    const rebased = manager.get(child.id);
    assert.notEqual(rebased.baseSha, oldBase);
    assert.ok((rebased.stackedOn?.at ?? 0) >= (manager.get(parent.id).endedAt ?? Infinity), 'a new snapshot time');
    assert.equal(parentRanSince(rebased, manager.get(parent.id)), false, 'not since the rebase');
    assert.equal(read(child.cwd, 'more.txt'), 'm', "the parent's new work is under the child's");
    assert.equal(read(child.cwd, 'child.txt'), 'c', "the child's own work is kept");
    assert.deepEqual(changes(child.id), ['untracked child.txt'], 'still its own work alone');
    assert.equal(git(child.cwd, 'rev-parse', 'HEAD'), rebased.baseSha, 'its branch is at the new snapshot');
    assert.doesNotMatch(refs(), /refs\/parallel-agents\/stack\//);
  });

  it('replays commits of its own with rebase --onto', async () => {
    const parent = await agent('create base.txt: one');
    const child = await agent('create child.txt: c', parent.id);
    git(child.cwd, 'add', '-A');
    git(child.cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'child work');
    await followUp(parent.id, 'create more.txt: m');
    await manager.rebaseOnParent(child.id);
    const rebased = manager.get(child.id);
    assert.equal(git(child.cwd, 'rev-parse', 'HEAD~1'), rebased.baseSha, 'its commit sits on the new snapshot');
    assert.equal(git(child.cwd, 'log', '-1', '--format=%s'), 'child work');
    assert.equal(read(child.cwd, 'more.txt'), 'm');
    assert.deepEqual(changes(child.id), ['added child.txt']);
  });

  it('refuses a rebase whose work does not apply, changing nothing', async () => {
    const parent = await agent('create a.txt: one');
    const child = await agent('replace a.txt: one => child', parent.id);
    await followUp(parent.id, 'replace a.txt: one => parent');
    const before = { head: git(child.cwd, 'rev-parse', 'HEAD'), status: git(child.cwd, 'status', '--porcelain') };
    await refused(
      manager.rebaseOnParent(child.id),
      'rebaseOnParentConflict',
      /does not apply cleanly .* Nothing was changed/,
    );
    assert.equal(read(child.cwd, 'a.txt'), 'child');
    assert.deepEqual(
      { head: git(child.cwd, 'rev-parse', 'HEAD'), status: git(child.cwd, 'status', '--porcelain') },
      before,
    );
    assert.equal(manager.get(child.id).baseSha, child.baseSha, 'the record keeps its base');

    // With commits of its own and uncommitted changes: refused before git moves anything.
    git(child.cwd, 'add', '-A');
    git(child.cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'child work');
    fs.writeFileSync(path.join(child.cwd, 'a.txt'), 'edited');
    await refused(manager.rebaseOnParent(child.id), 'rebaseOnParentUncommitted', /1 commits of its own/);
    assert.equal(read(child.cwd, 'a.txt'), 'edited');
  });

  it('refuses to stack on what has no worktree, or to rebase what is not stacked, leaving nothing', async () => {
    const plain = await agent('create p.txt: p');
    await refused(manager.rebaseOnParent(plain.id), 'notStacked', /is not stacked on another agent/);

    const before = { refs: refs(), count: manager.list().length };
    await refused(
      manager.dispatch({ prompt: 'create x.txt: x', profile: 'demo', folder: fx.repo, stackOn: 'no-such-agent' }),
      'noSuchAgent',
      /no-such-agent/,
    );
    await refused(
      manager.dispatch({ prompt: 'x', profile: 'demo', folder: fx.repo, stackOn: plain.id, isolation: 'terminal' }),
      'startNeedsWorktree',
      /another agent's work works in a worktree of its own/,
    );
    manager.annotate(plain.id, { worktreePresent: false });
    await refused(
      manager.dispatch({ prompt: 'create x.txt: x', profile: 'demo', folder: fx.repo, stackOn: plain.id }),
      'stackParentUnfit',
      /its worktree is gone/,
    );
    assert.equal(refs(), before.refs, 'no branch or ref');
    assert.equal(manager.list().length, before.count, 'no record');

    // A parent forgotten after the stack: the child's own work stays, and Rebase says why it cannot.
    manager.annotate(plain.id, { worktreePresent: undefined });
    const child = await agent('create c.txt: c', plain.id);
    manager.forget(plain.id);
    await refused(manager.rebaseOnParent(child.id), 'stackParentGone', /no longer in the list/);
    assert.equal(read(child.cwd, 'c.txt'), 'c');
  });
});
