// The worktree calls Reconcile, Discard and Restore stand on (src/node/git/worktrees.ts) on real git:
// a removal takes only a registered worktree, keeps every byte when it may not or cannot remove,
// and a folder deleted by hand is dropped unless locked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NodeGit } from '../../src/node/git/createGit';
import { git, ManagerFixture } from './managerFixture';
import { snapshot } from './reconcileFixture';
import { breakRepository, isError } from './reconcileGitHelpers';

describe('the worktree calls of Reconcile on real git: a removal takes only what it may', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let port: NodeGit;
  let repo: string;
  let root: string;
  let head: string;

  beforeEach(() => {
    fx = new ManagerFixture();
    port = fx.git;
    repo = fx.repo;
    root = `${repo}.worktrees`;
    head = git(repo, 'rev-parse', 'HEAD');
  });

  afterEach(async () => {
    await port.whenFilesDeleted();
    await fx.dispose();
  });

  /** `path branch` of every registered worktree, `locked` and `prunable` marked. */
  const registrations = () =>
    git(repo, 'worktree', 'list', '--porcelain')
      .split('\n\n')
      .map((entry) => {
        const lines = entry.split('\n');
        const at = lines.find((l) => l.startsWith('worktree '))!.slice('worktree '.length);
        const branch = lines.find((l) => l.startsWith('branch '))?.slice('branch '.length) ?? '(detached)';
        const marks = lines.filter((l) => /^(locked|prunable)/.test(l)).map((l) => l.split(' ')[0]);
        return [at, branch, ...marks].join(' ');
      });

  /** A worktree of its own branch under the root with a commit, a modified and an untracked file. */
  function dirtyWorktree(slug: string): string {
    const dir = path.join(root, slug);
    git(repo, 'worktree', 'add', '-q', '-b', `agents/${slug}`, dir);
    fs.writeFileSync(path.join(dir, 'done.txt'), `done by ${slug}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', slug);
    fs.writeFileSync(path.join(dir, 'app.js'), `// ${slug}\n`);
    fs.writeFileSync(path.join(dir, 'notes.md'), `notes of ${slug}`);
    return dir;
  }

  const trashOf = (dir: string) => path.join(path.dirname(dir), '.removing');

  it('forced, removes a dirty worktree and its registration at once, keeps the branch, and deletes the files in the background', async () => {
    const dir = dirtyWorktree('gone');
    const tip = git(repo, 'rev-parse', 'refs/heads/agents/gone');
    const kept = dirtyWorktree('kept');
    const files = snapshot(kept);
    await port.removeWorktree(repo, dir, true);
    assert.equal(fs.existsSync(dir), false);
    assert.equal(fs.readdirSync(trashOf(dir)).length, 1, 'its files were set aside, to be deleted after');
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`, `${kept} refs/heads/agents/kept`]);
    assert.equal(git(repo, 'rev-parse', 'refs/heads/agents/gone'), tip);
    await port.whenFilesDeleted();
    assert.equal(fs.existsSync(trashOf(dir)), false, 'the files set aside are deleted, and their folder');
    assert.deepEqual(snapshot(kept), files);
  });

  it('unforced, refuses a dirty worktree and leaves every byte and the registration; removes a clean one', async () => {
    const dir = dirtyWorktree('dirty');
    const files = snapshot(dir);
    const before = registrations();
    await assert.rejects(
      port.removeWorktree(repo, dir, false),
      isError('worktreeCommandFailed', { command: 'git worktree remove' }, /modified or untracked files/),
    );
    assert.deepEqual(snapshot(dir), files);
    assert.deepEqual(registrations(), before);
    assert.equal(fs.existsSync(trashOf(dir)), false);

    const clean = path.join(root, 'clean');
    git(repo, 'worktree', 'add', '-q', '-b', 'agents/clean', clean);
    await port.removeWorktree(repo, clean, false);
    assert.equal(fs.existsSync(clean), false);
    assert.deepEqual(registrations(), before);
  });

  it('forced, refuses a folder that is no registered worktree and never moves or changes it', async () => {
    const mine = path.join(root, 'mine');
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, 'mine.txt'), 'the user was here\n');
    const files = snapshot(mine);
    const inode = fs.statSync(mine).ino;
    const before = registrations();
    await assert.rejects(port.removeWorktree(repo, mine, true), isError('worktreeCommandFailed'));
    assert.deepEqual(snapshot(mine), files);
    assert.equal(fs.statSync(mine).ino, inode);
    assert.equal(fs.existsSync(trashOf(mine)), false);
    assert.deepEqual(registrations(), before);
  });

  it('forced, puts the folder back with every byte when git cannot drop the registration', async () => {
    const dir = dirtyWorktree('stays');
    const files = snapshot(dir);
    // The repository's common dir is learned now, so the removal gets as far as moving the folder aside.
    assert.equal(await port.runner.commonDir(repo), path.join(repo, '.git'));
    const restore = breakRepository(repo);
    await assert.rejects(
      port.removeWorktree(repo, dir, true),
      isError('worktreeCommandFailed', { command: 'git worktree remove' }, /Expected git repo version/),
    );
    restore();
    assert.deepEqual(snapshot(dir), files);
    assert.equal(fs.existsSync(trashOf(dir)), false, 'nothing is left set aside');
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`, `${dir} refs/heads/agents/stays`]);
    assert.equal(git(dir, 'status', '--porcelain'), ' M app.js\n?? notes.md'.trim());
  });

  it('drops the registration of a folder deleted by hand; a locked one only when forced', async () => {
    const loose = dirtyWorktree('loose');
    const locked = dirtyWorktree('locked');
    git(repo, 'worktree', 'lock', '--reason', 'on a usb disk', locked);
    fs.rmSync(loose, { recursive: true, force: true });
    fs.rmSync(locked, { recursive: true, force: true });

    await port.removeWorktree(repo, loose, false);
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`, `${locked} refs/heads/agents/locked locked`]);
    await assert.rejects(
      port.removeWorktree(repo, locked, false),
      isError('worktreeLocked', { path: locked }, /^on a usb disk$/),
    );
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`, `${locked} refs/heads/agents/locked locked`]);
    await assert.rejects(
      port.pruneWorktree(repo, locked),
      isError('worktreeCommandFailed', { command: 'git worktree remove' }, /locked/),
    );
    await port.removeWorktree(repo, locked, true);
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`]);
    assert.ok(git(repo, 'rev-parse', 'refs/heads/agents/locked'));
    await port.removeWorktree(repo, locked, true);
  });

  it('pruneWorktree refuses a folder that still exists, and a failing prune names git worktree prune', async () => {
    const dir = dirtyWorktree('here');
    const files = snapshot(dir);
    await assert.rejects(port.pruneWorktree(repo, dir), isError('worktreeStillExists', { path: dir }));
    assert.deepEqual(snapshot(dir), files);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.equal(await port.runner.commonDir(repo), path.join(repo, '.git'));
    const restore = breakRepository(repo);
    await assert.rejects(
      port.removeWorktree(repo, dir, false),
      isError('worktreeCommandFailed', { command: 'git worktree prune' }, /Expected git repo version/),
    );
    restore();
    assert.deepEqual(registrations(), [`${repo} refs/heads/main`, `${dir} refs/heads/agents/here prunable`]);
  });

  it('adds a worktree with its files at the base, checked out separately or by git worktree add alone', async () => {
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'main moves');
    const ran = path.join(fx.tmp, 'post-checkout.log');
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    fs.writeFileSync(hook, `#!/bin/sh\necho "$(basename "$PWD") $3" >> '${ran}'\n`, { mode: 0o755 });
    for (const [port2, slug] of [
      [port, 'detected'],
      [new NodeGit({ worktreeCheckout: 'separate' }), 'separate'],
      [new NodeGit({ worktreeCheckout: 'inline' }), 'inline'],
    ] as const) {
      const dir = path.join(root, slug);
      await port2.addWorktree(repo, dir, `agents/${slug}`, head);
      assert.equal(git(dir, 'rev-parse', 'HEAD'), head, slug);
      assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), `agents/${slug}`, slug);
      assert.deepEqual(Object.keys(snapshot(dir)).sort(), ['README.md', 'app.js'], slug);
      assert.equal(git(dir, 'status', '--porcelain'), '', slug);
    }
    assert.equal(fs.readFileSync(ran, 'utf8'), 'detected 1\nseparate 1\ninline 1\n', 'the hook runs once for each');
  });

  it('checkoutWorktree undoes its add wholly when the hook fails, even one that locked the worktree or broke it', async () => {
    const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
    const cases: [string, string][] = [
      ['locks', 'git worktree lock --reason held "$PWD"'],
      ['breaks', 'rm -f "$PWD/.git"'],
    ];
    for (const [slug, act] of cases) {
      git(repo, 'branch', `agents/${slug}`);
      fs.writeFileSync(hook, `#!/bin/sh\nunset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE\n${act}\nexit 1\n`, {
        mode: 0o755,
      });
      const dir = path.join(root, slug);
      await assert.rejects(port.checkoutWorktree(repo, dir, `agents/${slug}`), isError('worktreeCommandFailed'), slug);
      assert.equal(fs.existsSync(dir), false, slug);
      assert.deepEqual(registrations(), [`${repo} refs/heads/main`], slug);
      assert.equal(git(repo, 'rev-parse', `refs/heads/agents/${slug}`), head, slug);
    }
  });

  it('tells ignored paths, excludes one locally once, and lists the ignored files .worktreeinclude names', async () => {
    fs.writeFileSync(path.join(repo, '.gitignore'), '*.env\nbuild/\n');
    git(repo, 'add', '.gitignore');
    git(repo, 'commit', '-q', '-m', 'ignore');
    fs.writeFileSync(path.join(repo, 'local.env'), 'SECRET=1\n');
    fs.writeFileSync(path.join(repo, 'other.env'), 'X=1\n');
    fs.writeFileSync(path.join(repo, 'loose.txt'), 'not ignored\n');
    assert.deepEqual(await port.worktreeIncludes(repo), []);
    fs.writeFileSync(path.join(repo, '.worktreeinclude'), 'local.env\nloose.txt\n');
    assert.deepEqual(await port.worktreeIncludes(repo), ['local.env']);

    assert.equal(await port.isIgnored(repo, 'local.env'), true);
    assert.equal(await port.isIgnored(repo, 'build/out.js'), true);
    assert.equal(await port.isIgnored(repo, 'loose.txt'), false);
    await port.excludeLocally(repo, 'loose.txt');
    await port.excludeLocally(repo, 'loose.txt');
    assert.equal(await port.isIgnored(repo, 'loose.txt'), true);
    const exclude = fs.readFileSync(path.join(repo, '.git', 'info', 'exclude'), 'utf8');
    assert.equal(exclude.split('\n').filter((l) => l === '/loose.txt').length, 1);
    assert.equal(git(repo, 'status', '--porcelain'), '?? .worktreeinclude');
    assert.equal(await port.initSubmodules(repo), '');
  });
});
