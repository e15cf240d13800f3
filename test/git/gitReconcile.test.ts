import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import type { NodeGit } from '../../src/node/git/createGit';
import { parseRefs } from '../../src/node/git/refParsers';
import { git, ReconcileFixture, snapshot } from './reconcileFixture';
import { englishMessage } from '../../src/ui/errorText';

describe('the git calls of Reconcile (worktrees, refs, snapshots) on real git: listing, saving and checking out never harm a folder it did not make', function () {
  this.timeout(60000);
  let f: ReconcileFixture;
  let port: NodeGit;

  beforeEach(() => {
    f = new ReconcileFixture();
    port = f.fx.git;
  });

  afterEach(async () => {
    await f.dispose();
  });

  /** A folder of the user's at dir, with a file in it. */
  function usersFolder(dir: string): Record<string, string> {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'mine.txt'), 'the user was here\n');
    return snapshot(dir);
  }

  it('Adopt of a branch orphan whose folder is taken by a folder of the user fails and leaves that folder and the branch as they were', async () => {
    const tip = f.branchOrphan('taken');
    const dir = path.join(f.root, 'taken');
    const files = usersFolder(dir);
    await f.reconciler.run();
    await assert.rejects(f.reconciler.adopt({ branch: 'agents/taken' }), (e: unknown) =>
      AgentError.is(e, 'worktreeFailed'),
    );
    assert.deepEqual(snapshot(dir), files);
    assert.equal(f.tip('agents/taken'), tip);
    assert.deepEqual(f.registrations(), [`${f.repo} refs/heads/main`]);
    assert.deepEqual(f.manager.list(), []);
    assert.deepEqual(
      f.reconciler.orphans().map((o) => o.branch),
      ['agents/taken'],
      'still listed, to try again once the folder is moved',
    );
  });

  it('Restore Missing onto a folder the user made at that place fails and leaves the folder as it was', async () => {
    const dir = f.worktreeOrphan('back');
    await f.reconciler.run();
    const record = await f.reconciler.adopt({ path: dir });
    await f.landing.commit(record.id, 'keep it');
    fs.rmSync(dir, { recursive: true, force: true });
    await f.reconciler.run();
    const files = usersFolder(dir);
    await assert.rejects(f.reconciler.restoreMissing(record.id));
    assert.deepEqual(snapshot(dir), files);
    assert.equal(f.manager.get(record.id).worktreeMissing, true);
  });

  it('checkoutWorktree removes the worktree it made when git or a hook fails, and checks the branch out otherwise', async () => {
    const dir = path.join(f.root, 'refused');
    await assert.rejects(port.checkoutWorktree(f.repo, dir, 'main'), (e: unknown) =>
      AgentError.is(e, 'worktreeFailed'),
    );
    assert.equal(fs.existsSync(dir), false, 'the folder it made is gone');
    assert.deepEqual(f.registrations(), [`${f.repo} refs/heads/main`]);

    // A hook of the repository fails after git made the folder and registered it.
    git(f.repo, 'branch', 'agents/hooked');
    const hook = path.join(f.repo, '.git', 'hooks', 'post-checkout');
    fs.writeFileSync(hook, '#!/bin/sh\nexit 3\n', { mode: 0o755 });
    await assert.rejects(port.checkoutWorktree(f.repo, dir, 'agents/hooked'), (e: unknown) =>
      AgentError.is(e, 'worktreeFailed'),
    );
    fs.rmSync(hook);
    assert.equal(fs.existsSync(dir), false, 'the half-made worktree is removed');
    assert.deepEqual(f.registrations(), [`${f.repo} refs/heads/main`]);
    assert.ok(f.tip('agents/hooked'), 'the branch stays');

    git(f.repo, 'branch', 'agents/fine');
    await port.checkoutWorktree(f.repo, dir, 'agents/fine');
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/fine');
  });

  it('pruneWorktree refuses a folder that exists and drops only the registration asked for', async () => {
    const live = f.worktreeOrphan('live');
    const files = snapshot(live);
    const a = path.join(f.root, 'a');
    const b = path.join(f.root, 'b');
    git(f.repo, 'worktree', 'add', '-q', '-b', 'agents/a', a);
    git(f.repo, 'worktree', 'add', '-q', '-b', 'agents/b', b);
    fs.rmSync(a, { recursive: true, force: true });
    fs.rmSync(b, { recursive: true, force: true });

    await assert.rejects(port.pruneWorktree(f.repo, live), (e: unknown) => {
      assert.ok(AgentError.is(e, 'worktreeFailed'), String(e));
      assert.match(englishMessage(e), /still exists on disk; it is not stale/);
      return true;
    });
    assert.deepEqual(snapshot(live), files);
    await port.pruneWorktree(f.repo, a);
    assert.deepEqual(f.registrations().sort(), [
      `${f.repo} refs/heads/main`,
      `${b} refs/heads/agents/b prunable`,
      `${live} refs/heads/agents/live`,
    ]);
  });

  it('saveBranch points a full ref at a copy of the tip with the tip as parent, dated by that commit, and refuses a short ref name', async () => {
    const tip = f.branchOrphan('keep');
    assert.throws(
      () => port.saveBranch(f.repo, 'agents/keep', 'saved/keep', 'm'),
      (e: unknown) => AgentError.is(e, 'gitFailed'),
    );
    assert.deepEqual(f.refs()['refs/parallel-agents/saved/keep'], undefined);
    const saved = await port.saveBranch(f.repo, 'agents/keep', 'refs/parallel-agents/saved/keep', 'why it was saved');
    assert.equal(saved.ref, 'refs/parallel-agents/saved/keep');
    assert.equal(saved.sha, f.ref(saved.ref));
    assert.equal(git(f.repo, 'rev-parse', `${saved.sha}^`), tip);
    assert.equal(git(f.repo, 'rev-parse', `${saved.sha}^{tree}`), git(f.repo, 'rev-parse', `${tip}^{tree}`));
    assert.equal(git(f.repo, 'log', '-1', '--format=%B', saved.sha), 'why it was saved');
    assert.equal(saved.date, Number(git(f.repo, 'log', '-1', '--format=%ct', saved.sha)) * 1000);
    assert.equal(f.tip('agents/keep'), tip, 'the branch is not moved');
  });

  it('lists refs under the prefixes asked for, with their first parent, and merge bases', async () => {
    const base = git(f.repo, 'rev-parse', 'HEAD');
    const tip = f.branchOrphan('listed');
    const refs = await port.listRefs(f.repo, ['refs/heads/agents/']);
    assert.deepEqual(refs, [
      { name: 'refs/heads/agents/listed', sha: tip, parent: git(f.repo, 'rev-parse', `${tip}^`) },
    ]);
    const root = (await port.listRefs(f.repo, ['refs/heads/main']))[0];
    assert.deepEqual(root, { name: 'refs/heads/main', sha: base }, 'a root commit has no parent');
    assert.equal(await port.mergeBase(f.repo, 'HEAD', 'refs/heads/agents/listed'), base);
    assert.deepEqual(parseRefs(''), []);
    assert.deepEqual(parseRefs(`refs/heads/m\0${'a'.repeat(40)}\0${'b'.repeat(40)} ${'c'.repeat(40)}\n`), [
      { name: 'refs/heads/m', sha: 'a'.repeat(40), parent: 'b'.repeat(40) },
    ]);
  });
});
