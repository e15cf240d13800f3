// RefGit.locate of HEAD read from the repository's files (headFiles.ts) once git has located the
// folder: no git process, and the same answer a fresh `git rev-parse` gives (the oracle: a new
// NodeGit, which knows nothing yet) through commits, packed refs, detached heads, linked worktrees
// and subfolders; and git asked again whenever the files cannot be trusted (config changed, unborn
// branch, glob prefix, folder gone, old answer, reftable).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { NodeGit } from '../../src/node/git/createGit';
import { gitDirOf } from '../../src/node/git/headFiles';
import { Refs } from '../../src/node/git/refs';
import { GitRunner } from '../../src/node/git/runner';
import { git } from './managerFixture';

describe('Locate from the repository files (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;
  let runner: GitRunner;
  let clock: number;
  let refs: Refs;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-headfiles-')));
    repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'src', 'app.ts'), 'export const a = 1;\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    runner = new GitRunner();
    clock = 1_000_000;
    refs = new Refs(runner, () => clock);
  });

  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Locates HEAD of `folder` with the long-lived Refs; how many git processes that took; what git says. */
  async function located(folder: string, prefix = 'agents') {
    const before = runner.processCount;
    const answer = await refs.locate(folder, undefined, prefix);
    const processes = runner.processCount - before;
    const oracle = await new NodeGit().locate(folder, undefined, prefix);
    assert.equal(answer.repoRoot, oracle.repoRoot);
    assert.equal(answer.sha, oracle.sha);
    assert.deepEqual([...answer.branches].sort(), [...oracle.branches].sort());
    return { ...answer, processes };
  }

  function commit(file: string, text: string, cwd = repo): string {
    fs.writeFileSync(path.join(cwd, file), text);
    git(cwd, 'commit', '-q', '-am', `edit ${file}`);
    return git(cwd, 'rev-parse', 'HEAD');
  }

  it('asks git once, then reads HEAD and the branches under the prefix from the files as they move', async () => {
    git(repo, 'branch', 'agents/one');
    git(repo, 'branch', 'agents/deep/two');
    git(repo, 'branch', 'agentsmith');
    assert.equal((await located(repo)).processes, 1);
    const second = await located(repo);
    assert.equal(second.processes, 0);
    assert.deepEqual([...second.branches].sort(), ['agents/deep/two', 'agents/one']);
    // A commit moves HEAD; a new branch appears; all packed; one deleted; a loose one beside packed ones.
    const moved = commit('src/app.ts', 'export const a = 2;\n');
    git(repo, 'branch', 'agents/three');
    assert.deepEqual((await located(repo)).sha, moved);
    git(repo, 'pack-refs', '--all');
    assert.ok(!fs.existsSync(path.join(repo, '.git', 'refs', 'heads', 'main')), 'main is packed');
    const packed = await located(repo);
    assert.equal(packed.processes, 0);
    assert.equal(packed.sha, moved);
    assert.equal(packed.branches.size, 3);
    git(repo, 'branch', '-D', 'agents/one');
    git(repo, 'branch', 'agents/four');
    const after = commit('src/app.ts', 'export const a = 3;\n');
    const mixed = await located(repo, 'agents/');
    assert.equal(mixed.processes, 0);
    assert.equal(mixed.sha, after);
    assert.deepEqual([...mixed.branches].sort(), ['agents/deep/two', 'agents/four', 'agents/three']);
    // Another branch checked out, then a detached HEAD.
    git(repo, 'checkout', '-q', 'agents/three');
    assert.equal((await located(repo)).processes, 0);
    git(repo, 'checkout', '-q', '--detach', 'main~1');
    const detached = await located(repo);
    assert.equal(detached.processes, 0);
    assert.equal(detached.sha, git(repo, 'rev-parse', 'HEAD'));
  });

  it('reads a linked worktree its own HEAD, and a subfolder the repository of its root', async () => {
    const linked = path.join(root, 'linked');
    git(repo, 'worktree', 'add', '-q', '-b', 'agents/linked', linked);
    await located(linked);
    const tip = commit('src/app.ts', 'linked\n', linked);
    const there = await located(linked);
    assert.equal(there.processes, 0);
    assert.equal(there.sha, tip);
    assert.equal(there.repoRoot, linked);
    assert.notEqual((await located(repo)).sha, tip, 'the main worktree has its own HEAD');
    const sub = path.join(repo, 'src');
    await located(sub);
    const fromSub = await located(sub);
    assert.equal(fromSub.processes, 0);
    assert.equal(fromSub.repoRoot, repo);
  });

  it('asks git again when config changed (and learns the new hook path), and once the answer is ten minutes old', async () => {
    await located(repo);
    git(repo, 'config', 'core.hooksPath', 'my-hooks');
    assert.equal((await located(repo)).processes, 1, 'config changed: git is asked');
    assert.equal(runner.hookPath(repo, 60_000, clock), path.join(repo, 'my-hooks', 'post-checkout'));
    assert.equal((await located(repo)).processes, 0);
    clock += 9 * 60_000;
    assert.equal((await located(repo)).processes, 0);
    // A hook path read from the files is as fresh as the read.
    assert.equal(runner.hookPath(repo, 1, clock), path.join(repo, 'my-hooks', 'post-checkout'));
    clock += 60_000;
    assert.equal((await located(repo)).processes, 0, 'ten minutes old to the millisecond: still read');
    clock += 1;
    assert.equal((await located(repo)).processes, 1, 'older than ten minutes: git is asked');
  });

  it('asks git for an unborn branch, a glob prefix, a named base and a folder gone, and gives its answers', async () => {
    await located(repo);
    assert.equal((await located(repo, 'agents/*')).processes, 1, 'a glob is for git to match');
    const before = runner.processCount;
    assert.equal((await refs.locate(repo, 'main', 'agents')).sha, git(repo, 'rev-parse', 'main'));
    assert.equal(runner.processCount - before, 1, 'a named base is resolved by git');
    git(repo, 'checkout', '-q', '--orphan', 'fresh');
    await assert.rejects(refs.locate(repo, undefined, 'agents'), (e: unknown) => AgentError.isCode(e, 'noCommits'));
    git(repo, 'checkout', '-q', '-f', 'main');
    await located(repo);
    const sub = path.join(repo, 'src');
    await located(sub);
    fs.rmSync(sub, { recursive: true });
    await assert.rejects(refs.locate(sub, undefined, 'agents'), (e: unknown) => AgentError.is(e, 'notGitRepository'));
  });

  it('asks git each time for a repository not laid out as the files are read (no refs/heads)', async () => {
    git(repo, 'branch', 'agents/one');
    git(repo, 'pack-refs', '--all');
    fs.rmSync(path.join(repo, '.git', 'refs', 'heads'), { recursive: true, force: true });
    for (let i = 0; i < 2; i++) {
      const again = await located(repo);
      assert.equal(again.processes, 1, 'git is asked');
      assert.deepEqual([...again.branches], ['agents/one']);
    }
  });

  it("reports a corrupt HEAD commit as git's failure, not as a repository without commits", async () => {
    const head = git(repo, 'rev-parse', 'HEAD');
    const object = path.join(repo, '.git', 'objects', head.slice(0, 2), head.slice(2));
    fs.chmodSync(object, 0o644);
    fs.writeFileSync(object, 'garbage');
    await assert.rejects(refs.locate(repo, undefined, 'agents'), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'gitCommandFailed'), String(e));
      assert.match(e.detail ?? '', /corrupt/);
      return true;
    });
  });

  it('reads only the files ref backend', async () => {
    const common = path.join(repo, '.git');
    assert.equal(await gitDirOf(repo, common), common);
    fs.mkdirSync(path.join(common, 'reftable'));
    assert.equal(await gitDirOf(repo, common), undefined);
    fs.rmdirSync(path.join(common, 'reftable'));
    assert.equal(await gitDirOf(path.join(root, 'nowhere'), common), undefined);
  });
});
