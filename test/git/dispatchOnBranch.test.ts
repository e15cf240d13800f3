// Dispatch Agent on Branch with real git and the real demo agent: an existing branch (checked out
// in a worktree of the agent's own, never deleted by the extension) and a pull request's head
// fetched from a real (bare, local) remote.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError, type AgentErrorCode } from '../../src/core/errors';
import type { AgentLanding } from '../../src/core/landing';
import { forgetMissing } from '../../src/core/reconcile/missingRepairs';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { englishMessage } from '../../src/ui/errorText';
import { eachWithLanding, git, type ManagerFixture, quiet } from './managerFixture';

describe('Dispatch Agent on Branch (real git, real demo agent)', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  /** A branch `name` one commit ahead of main (adding `file`), not checked out anywhere. */
  function makeBranch(name: string, file: string): string {
    git(fx.repo, 'switch', '-q', '-c', name);
    fs.writeFileSync(path.join(fx.repo, file), `${name}\n`);
    git(fx.repo, 'add', file);
    git(fx.repo, 'commit', '-q', '-m', `work on ${name}`);
    const tip = git(fx.repo, 'rev-parse', 'HEAD');
    git(fx.repo, 'switch', '-q', 'main');
    return tip;
  }

  const worktreeCount = () =>
    git(fx.repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length;

  /** Rejects with `code`, whose English message matches `words`; nothing is left behind. */
  async function refused(run: Promise<unknown>, code: AgentErrorCode, words: RegExp): Promise<void> {
    const branchesBefore = git(fx.repo, 'for-each-ref', '--format=%(refname) %(objectname)');
    await assert.rejects(run, (e: unknown) => {
      assert.ok(AgentError.isCode(e, code), String(e));
      assert.match(englishMessage(e), words);
      return true;
    });
    assert.equal(manager.list().length, 0, 'no record');
    assert.equal(git(fx.repo, 'for-each-ref', '--format=%(refname) %(objectname)'), branchesBefore, 'no ref');
    assert.ok(
      !fs.existsSync(path.join(fx.tmp, 'repo.worktrees')) ||
        fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).length === 0,
    );
  }

  it("works on an existing branch: its head is the base, the agent's commits land on it, Discard keeps it", async () => {
    const tip = makeBranch('feature/login', 'login.txt');
    const record = await manager.dispatch({
      prompt: 'append login.txt: more\ncreate extra.txt: x',
      profile: 'demo',
      folder: fx.repo,
      start: { branch: 'feature/login' },
    });
    assert.equal(record.branch, 'feature/login');
    assert.equal(record.branchExisted, true);
    assert.equal(record.baseSha, tip);
    assert.equal(record.worktreePath, path.join(fx.tmp, 'repo.worktrees', 'feature-login'));
    assert.equal(git(record.cwd, 'symbolic-ref', '--short', 'HEAD'), 'feature/login');
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    // The diff is the agent's own work, not the branch's commit over main.
    assert.deepEqual(done.changedFiles.map((f) => `${f.kind} ${f.path}`).sort(), [
      'modified login.txt',
      'untracked extra.txt',
    ]);
    const sha = await landing.commit(record.id, 'agent work');
    assert.ok(sha);
    assert.equal(git(fx.repo, 'rev-parse', 'feature/login'), sha, 'the commit is on the existing branch');
    assert.equal(git(fx.repo, 'rev-parse', `${sha}^`), tip);

    await landing.discard(record.id);
    const discarded = manager.get(record.id);
    assert.equal(discarded.status, 'discarded');
    assert.ok(!fs.existsSync(record.worktreePath!), 'the worktree is gone');
    assert.equal(git(fx.repo, 'rev-parse', 'feature/login'), sha, 'the branch stays, with the agent commit');
    assert.ok(discarded.savedRef, 'the work is saved too');
    assert.equal(git(fx.repo, 'rev-parse', `${discarded.savedRef}^`), sha);
    // Restore brings the worktree back on the same branch.
    await landing.restore(record.id);
    assert.equal(git(record.worktreePath!, 'symbolic-ref', '--short', 'HEAD'), 'feature/login');
  });

  it('merges an agent on an existing branch as usual, and Clean Up keeps the branch', async () => {
    makeBranch('topic', 'topic.txt');
    const record = await manager.dispatch({
      prompt: 'create more.txt: m',
      profile: 'demo',
      folder: fx.repo,
      start: { branch: 'refs/heads/topic' },
    });
    assert.equal(record.branch, 'topic');
    await fx.finished(manager, record.id);
    await landing.commit(record.id, 'more');
    const merged = await landing.merge(record.id, 'merge', 'Merge topic');
    assert.equal(merged.kind, 'merged');
    assert.ok(fs.existsSync(path.join(fx.repo, 'topic.txt')) && fs.existsSync(path.join(fx.repo, 'more.txt')));
    await landing.cleanUp();
    assert.equal(manager.list().length, 0);
    assert.ok(!fs.existsSync(record.worktreePath!));
    assert.match(git(fx.repo, 'branch', '--list', 'topic'), /topic/, 'the merged pre-existing branch stays');
  });

  it('forgets a missing agent on an existing branch without deleting the branch', async () => {
    const tip = makeBranch('kept', 'kept.txt');
    const record = await manager.dispatch({
      prompt: 'create k.txt: k',
      profile: 'demo',
      folder: fx.repo,
      start: { branch: 'kept' },
    });
    await fx.finished(manager, record.id);
    const sha = await landing.commit(record.id, 'k');
    assert.notEqual(sha, tip);
    fs.rmSync(record.worktreePath!, { recursive: true, force: true });
    manager.annotate(record.id, { worktreeMissing: true });
    await forgetMissing({ manager, git: fx.git, fs: new NodeFileSystem(), logger: quiet }, record.id);
    assert.equal(manager.list().length, 0);
    assert.equal(git(fx.repo, 'rev-parse', 'kept'), sha);
    assert.ok(!git(fx.repo, 'worktree', 'list').includes('repo.worktrees'), 'the stale registration is pruned');
  });

  it('refuses a branch checked out in the main worktree, in another worktree, or missing, leaving nothing', async () => {
    makeBranch('elsewhere', 'e.txt');
    const other = path.join(fx.tmp, 'other-wt');
    git(fx.repo, 'worktree', 'add', '-q', other, 'elsewhere');
    const before = worktreeCount();
    const dispatch = (branch: string, folder = fx.repo) =>
      manager.dispatch({ prompt: 'create a.txt: a', profile: 'demo', folder, start: { branch } });
    await refused(dispatch('main'), 'branchCheckedOut', /main: it is the branch checked out in .*repo\b/);
    await refused(
      dispatch('elsewhere'),
      'branchCheckedOut',
      /elsewhere: it is checked out in the worktree at .*other-wt/,
    );
    // From the other worktree, main is the main worktree's.
    await refused(
      dispatch('main', other),
      'branchCheckedOut',
      /main: it is checked out in the main worktree at .*repo\b/,
    );
    await refused(dispatch('nope'), 'branchNotFound', /no local branch named nope/);
    await refused(dispatch('main~1'), 'branchNotFound', /no local branch named main~1/);
    await assert.rejects(
      manager.dispatch({
        prompt: 'x',
        profile: 'demo',
        folder: fx.repo,
        isolation: 'terminal',
        start: { branch: 'x' },
      }),
      (e: unknown) => AgentError.isCode(e, 'startNeedsWorktree'),
    );
    assert.equal(worktreeCount(), before);
  });

  it('gives a branch asked for by two dispatches at once to one of them; the other leaves nothing', async () => {
    makeBranch('contested', 'c.txt');
    const results = await Promise.allSettled(
      ['one', 'two'].map((title) =>
        manager.dispatch({
          prompt: 'create a.txt: a',
          profile: 'demo',
          folder: fx.repo,
          title,
          start: { branch: 'contested' },
        }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
    const lost = results.find((r) => r.status === 'rejected');
    assert.ok(AgentError.is(lost?.reason, 'worktreeFailed'), String(lost?.reason));
    assert.equal(manager.list().length, 1);
    assert.equal(worktreeCount(), 2);
    const winner = manager.list()[0];
    assert.deepEqual(fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')), [path.basename(winner.worktreePath!)]);
    await fx.finished(manager, winner.id);
  });

  describe('on a pull request', () => {
    let remote: string;
    let prHead: string;

    beforeEach(() => {
      remote = path.join(fx.tmp, 'remote.git');
      git(fx.tmp, 'init', '-q', '--bare', remote);
      git(fx.repo, 'push', '-q', remote, 'main');
      // The pull request's commit exists only in the remote, under refs/pull/7/head.
      prHead = makeBranch('contrib', 'contrib.txt');
      git(fx.repo, 'push', '-q', remote, `contrib:refs/pull/7/head`);
      git(fx.repo, 'branch', '-q', '-D', 'contrib');
      git(fx.repo, 'reflog', 'expire', '--expire=now', '--all');
      git(fx.repo, 'gc', '-q', '--prune=now');
      assert.throws(() => git(fx.repo, 'cat-file', '-e', prHead), 'the commit is only in the remote');
      assert.equal(git(remote, 'rev-parse', 'refs/pull/7/head'), prHead);
    });

    it('fetches refs/pull/7/head of origin into a new branch agents/pr-7 and starts there', async () => {
      git(fx.repo, 'remote', 'add', 'origin', remote);
      const record = await manager.dispatch({
        prompt: 'create review.txt: ok',
        profile: 'demo',
        folder: fx.repo,
        start: { pullRequest: 7 },
      });
      assert.equal(record.branch, 'agents/pr-7');
      assert.equal(record.branchExisted, undefined);
      assert.equal(record.baseSha, prHead);
      assert.equal(git(record.cwd, 'rev-parse', 'HEAD'), prHead);
      assert.ok(fs.existsSync(path.join(record.cwd, 'contrib.txt')));
      assert.equal(git(fx.repo, 'for-each-ref', '--format=%(refname)', 'refs/parallel-agents/'), '', 'no ref left');
      const done = await fx.finished(manager, record.id);
      assert.deepEqual(
        done.changedFiles.map((f) => f.path),
        ['review.txt'],
      );
      // A second agent on the same pull request gets a branch of its own.
      const again = await manager.dispatch({
        prompt: 'create b.txt: b',
        profile: 'demo',
        folder: fx.repo,
        start: { pullRequest: 7 },
      });
      assert.equal(again.branch, 'agents/pr-7-2');
      await fx.finished(manager, again.id);
      // Its branch was made by the dispatch: Discard deletes it, as for any agent.
      await landing.discard(record.id);
      assert.equal(git(fx.repo, 'branch', '--list', 'agents/pr-7'), '');
    });

    it('refuses pull request 8 (absent), a remote that does not exist and a bad number, leaving nothing', async () => {
      await refused(
        manager.dispatch({ prompt: 'x', profile: 'demo', folder: fx.repo, start: { pullRequest: 7 } }),
        'pullRequestNoRemote',
        /pull request #7: the repository at .* has no remote\. Add one/,
      );
      git(fx.repo, 'remote', 'add', 'upstream', remote);
      git(fx.repo, 'remote', 'add', 'fork', remote);
      await refused(
        manager.dispatch({ prompt: 'x', profile: 'demo', folder: fx.repo, start: { pullRequest: 7 } }),
        'pullRequestNoRemote',
        /has no remote named origin \(it has upstream, fork\)/,
      );
      await refused(
        manager.dispatch({
          prompt: 'x',
          profile: 'demo',
          folder: fx.repo,
          start: { pullRequest: 8, remote: 'upstream' },
        }),
        'pullRequestNotFound',
        /upstream has no pull request #8/,
      );
      await refused(
        manager.dispatch({ prompt: 'x', profile: 'demo', folder: fx.repo, start: { pullRequest: 0 } }),
        'invalidPullRequest',
        /"0" is not a pull request number/,
      );
      const ok = await manager.dispatch({
        prompt: 'create r.txt: r',
        profile: 'demo',
        folder: fx.repo,
        start: { pullRequest: 7, remote: 'fork' },
      });
      assert.equal(ok.baseSha, prHead);
      await fx.finished(manager, ok.id);
    });
  });
});
