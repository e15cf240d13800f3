// The ref calls Reconcile, Adopt, Discard, Restore and Forget stand on (src/node/git/refs.ts), one
// by one on real git: what each answers, and that each refusal names the right thing and changes nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeGit } from '../../src/node/git/createGit';
import { branchExists, currentBranch, hasRef } from '../../src/node/git/refs';
import { git, ManagerFixture } from './managerFixture';
import { breakRepository, isError } from './reconcileGitHelpers';

describe('the ref calls of Reconcile on real git: answers, and refusals that change nothing', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let port: NodeGit;
  let repo: string;
  let head: string;

  beforeEach(() => {
    fx = new ManagerFixture();
    port = fx.git;
    repo = fx.repo;
    head = git(repo, 'rev-parse', 'HEAD');
  });

  afterEach(async () => {
    await fx.dispose();
  });

  const refs = () => git(repo, 'for-each-ref', '--format=%(refname) %(objectname)');

  /** A commit on a new branch (from HEAD), made in a scratch worktree that is removed again. */
  function commitOn(branch: string, file: string): string {
    const scratch = path.join(fx.tmp, `scratch-${branch.replace(/\//g, '-')}`);
    git(repo, 'worktree', 'add', '-q', '-b', branch, scratch);
    fs.writeFileSync(path.join(scratch, file), `${file}\n`);
    git(scratch, 'add', '.');
    git(scratch, 'commit', '-q', '-m', file);
    git(repo, 'worktree', 'remove', scratch);
    return git(repo, 'rev-parse', `refs/heads/${branch}`);
  }

  /** A folder that is no repository. */
  function plainFolder(): string {
    const dir = path.join(fx.tmp, 'plain');
    fs.mkdirSync(dir);
    return dir;
  }

  it('hasRef, currentBranch and branchExists tell what is there, and a repository git cannot read is an error', async () => {
    const runner = port.runner;
    commitOn('agents/one', 'one.txt');
    assert.equal(await hasRef(runner, repo, 'refs/heads/agents/one'), true);
    assert.equal(await hasRef(runner, repo, 'refs/heads/agents/none'), false);
    assert.equal(await hasRef(runner, repo, 'MERGE_HEAD'), false);

    assert.equal(await currentBranch(runner, repo), 'main');
    assert.equal(await port.currentBranch(repo), 'main');
    const onBranch = path.join(fx.tmp, 'on-branch');
    git(repo, 'worktree', 'add', '-q', onBranch, 'agents/one');
    assert.equal(await port.currentBranch(onBranch), 'agents/one');
    const detached = path.join(fx.tmp, 'detached');
    git(repo, 'worktree', 'add', '-q', '--detach', detached);
    assert.equal(await port.currentBranch(detached), undefined);

    assert.equal(await branchExists(runner, repo, 'agents/one'), true);
    assert.equal(await branchExists(runner, repo, 'main', 'worktreeFailed'), true);
    assert.equal(await branchExists(runner, repo, 'agents/none'), false);
    assert.equal(await branchExists(runner, repo, 'agents/none', 'worktreeFailed'), false);
    const plain = plainFolder();
    await assert.rejects(branchExists(runner, plain, 'main'), isError('notARepository', { folder: plain }));

    const before = refs();
    const restore = breakRepository(repo);
    await assert.rejects(
      branchExists(runner, repo, 'main'),
      isError('gitCommandFailed', { command: 'git rev-parse', cwd: repo }, /Expected git repo version/),
    );
    await assert.rejects(
      branchExists(runner, repo, 'main', 'worktreeFailed'),
      isError('worktreeCommandFailed', { command: 'git rev-parse', cwd: repo }, /Expected git repo version/),
    );
    await assert.rejects(currentBranch(runner, repo), isError('gitCommandFailed'));
    await assert.rejects(hasRef(runner, repo, 'HEAD'), isError('gitCommandFailed'));
    restore();
    assert.equal(refs(), before);
  });

  it('locate finds the top folder, the commit and the branches under the prefix, from a subfolder, at HEAD or a given rev', async () => {
    const other = commitOn('agents/b', 'b.txt');
    git(repo, 'branch', 'agents/a');
    git(repo, 'branch', 'feature/c');
    git(repo, 'branch', 'agents-not/d');
    const sub = path.join(repo, 'sub', 'deeper');
    fs.mkdirSync(sub, { recursive: true });

    const here = await port.locate(sub, undefined, 'agents');
    assert.deepEqual(here, { repoRoot: repo, sha: head, branches: new Set(['agents/a', 'agents/b']) });
    assert.equal(port.runner.hookPath(repo, 60_000), path.join(repo, '.git', 'hooks', 'post-checkout'));
    assert.deepEqual(await port.locate(repo, 'agents/b', 'feature'), {
      repoRoot: repo,
      sha: other,
      branches: new Set(['feature/c']),
    });
    assert.equal((await port.locate(sub, other.slice(0, 10), 'agents')).sha, other);
    assert.equal((await port.locate(repo, 'HEAD', 'agents')).sha, head);

    // What locate learned in passing is known without asking git again (here: git could not answer).
    const restore = breakRepository(repo);
    assert.equal(await port.runner.commonDir(sub), path.join(repo, '.git'));
    restore();
  });

  it('locate refuses a rev that is an option, names no commit or more than one, and a folder without commits or repository', async () => {
    const before = refs();
    await assert.rejects(port.locate(repo, '-x', 'agents'), isError('invalidRefName', { ref: '-x' }));
    await assert.rejects(port.locate(repo, '--all', 'agents'), isError('invalidRefName', { ref: '--all' }));
    await assert.rejects(
      port.locate(repo, 'nope', 'agents'),
      isError('unknownCommit', { ref: 'nope', repoRoot: repo }, /^fatal: bad revision 'nope\^\{commit\}'$/),
    );
    await assert.rejects(
      port.locate(repo, 'HEAD..HEAD', 'agents'),
      isError('unknownCommit', { ref: 'HEAD..HEAD', repoRoot: repo }, /^not a single commit$/),
    );
    const empty = path.join(fx.tmp, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');
    await assert.rejects(port.locate(empty, undefined, 'agents'), isError('noCommits', { repoRoot: empty }));
    await assert.rejects(
      port.locate(empty, 'main', 'agents'),
      isError('unknownCommit', { ref: 'main', repoRoot: empty }),
    );
    const plain = plainFolder();
    await assert.rejects(port.locate(plain, undefined, 'agents'), isError('notARepository', { folder: plain }));
    const restore = breakRepository(repo);
    await assert.rejects(
      port.locate(repo, undefined, 'agents'),
      isError('gitCommandFailed', { command: 'git rev-parse', cwd: repo }, /Expected git repo version/),
    );
    restore();
    assert.equal(refs(), before);
  });

  it('repoRoot, headSha and resolveCommit answer for the repository, and refuse what names no commit', async () => {
    const next = commitOn('agents/next', 'next.txt');
    const sub = path.join(repo, 'sub');
    fs.mkdirSync(sub);
    assert.equal(await port.repoRoot(sub), repo);
    assert.equal(await port.headSha(repo), head);
    assert.equal(await port.resolveCommit(repo, 'agents/next'), next);
    assert.equal(await port.resolveCommit(repo, 'agents/next~1'), head);
    assert.equal(await port.resolveCommit(repo, 'refs/heads/main'), head);

    await assert.rejects(port.resolveCommit(repo, '-x'), isError('invalidRefName', { ref: '-x' }));
    await assert.rejects(
      port.resolveCommit(repo, 'nope'),
      isError('unknownCommit', { ref: 'nope', repoRoot: repo }, /^fatal: Needed a single revision$/),
    );
    await assert.rejects(port.resolveCommit(repo, 'HEAD..HEAD'), isError('unknownCommit', { ref: 'HEAD..HEAD' }));
    const empty = path.join(fx.tmp, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    await assert.rejects(
      port.headSha(empty),
      isError('noCommits', { repoRoot: empty }, /^fatal: Needed a single revision$/),
    );
    breakRepository(repo);
    await assert.rejects(port.headSha(repo), isError('gitCommandFailed', { cwd: repo }, /Expected git repo version/));
    await assert.rejects(
      port.resolveCommit(repo, 'HEAD'),
      isError('gitCommandFailed', { cwd: repo }, /Expected git repo version/),
    );
  });

  it('lists local branches by short name and refs under the prefixes asked for, with their first parent', async () => {
    const b = commitOn('agents/b', 'b.txt');
    git(repo, 'branch', 'feature/c');
    git(repo, 'update-ref', 'refs/parallel-agents/saved/s1', b);
    git(repo, 'tag', 'v1');
    assert.deepEqual(await port.localBranches(repo), new Set(['main', 'agents/b', 'feature/c']));
    assert.deepEqual(await port.listRefs(repo, ['refs/heads/agents/', 'refs/parallel-agents/']), [
      { name: 'refs/heads/agents/b', sha: b, parent: head },
      { name: 'refs/parallel-agents/saved/s1', sha: b, parent: head },
    ]);
    assert.deepEqual(await port.listRefs(repo, ['refs/heads/main']), [{ name: 'refs/heads/main', sha: head }]);
    assert.deepEqual(await port.listRefs(repo, ['refs/heads/none']), []);
  });

  it('mergeBase gives the fork point, undefined for unrelated histories, and fails on a name that is no commit', async () => {
    const b = commitOn('agents/b', 'b.txt');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'main moves');
    assert.equal(await port.mergeBase(repo, 'HEAD', 'refs/heads/agents/b'), head);
    assert.equal(await port.mergeBase(repo, b, 'agents/b'), b);
    git(repo, 'checkout', '-q', '--orphan', 'alone');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'alone');
    git(repo, 'checkout', '-q', 'main');
    assert.equal(await port.mergeBase(repo, 'main', 'alone'), undefined);
    await assert.rejects(
      port.mergeBase(repo, 'main', 'nope'),
      isError('gitCommandFailed', { command: 'git merge-base' }),
    );
  });

  it('deleteBranch: an unmerged branch only with force, a merged one without, a gone one quietly, the checked-out one never', async () => {
    const unmerged = commitOn('agents/unmerged', 'u.txt');
    git(repo, 'branch', 'agents/merged');
    await assert.rejects(
      port.deleteBranch(repo, 'agents/unmerged', false),
      isError('gitCommandFailed', { command: 'git branch' }, /not fully merged/),
    );
    assert.equal(git(repo, 'rev-parse', 'refs/heads/agents/unmerged'), unmerged);
    await port.deleteBranch(repo, 'agents/merged', false);
    assert.equal(git(repo, 'branch', '--list', 'agents/merged'), '');
    await port.deleteBranch(repo, 'agents/unmerged', true);
    assert.equal(git(repo, 'branch', '--list', 'agents/unmerged'), '');
    await port.deleteBranch(repo, 'agents/unmerged', true);
    await port.deleteBranch(repo, 'agents/never', false);
    await assert.rejects(
      port.deleteBranch(repo, 'main', true),
      isError('gitCommandFailed', { command: 'git branch' }, /checked out/),
    );
    assert.equal(git(repo, 'rev-parse', 'refs/heads/main'), head);
  });

  it('deleteRef refuses a short ref name and keeps it; a full one goes, and one already gone is fine', async () => {
    git(repo, 'update-ref', 'refs/parallel-agents/saved/s1', head);
    git(repo, 'update-ref', 'refs/parallel-agents/saved/s2', head);
    await assert.rejects(
      port.deleteRef(repo, 'parallel-agents/saved/s1'),
      isError('notAFullRef', { ref: 'parallel-agents/saved/s1' }),
    );
    await assert.rejects(port.deleteRef(repo, 'HEAD'), isError('notAFullRef', { ref: 'HEAD' }));
    assert.equal(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/parallel-agents/').split('\n').length, 2);
    await port.deleteRef(repo, 'refs/parallel-agents/saved/s1');
    await port.deleteRef(repo, 'refs/parallel-agents/saved/s1');
    assert.equal(
      git(repo, 'for-each-ref', '--format=%(refname)', 'refs/parallel-agents/'),
      'refs/parallel-agents/saved/s2',
    );
    assert.equal(git(repo, 'rev-parse', 'HEAD'), head);
  });
});
