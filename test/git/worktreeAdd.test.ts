// Dispatch's git with the real binary: RefGit.locate (repository, base commit and branch names in
// one process), the worktree add in both checkout modes (registered on the write queue, files
// checked out outside it; or all in `git worktree add`), its post-checkout hook, the registration
// read from the registry's files, and how many git processes a dispatch runs.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError, type AgentErrorReason } from '../../src/core/errors';
import { NodeGit } from '../../src/node/git/createGit';
import { GitRunner } from '../../src/node/git/runner';
import { findWorktree, readRegistration } from '../../src/node/git/worktreeRegistry';
import { git, ManagerFixture } from './managerFixture';

async function rejectsWith(promise: Promise<unknown>, reason: AgentErrorReason, code?: string): Promise<AgentError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(AgentError.is(e, reason), `expected ${reason}, got ${String(e)}`);
    if (code) {
      assert.equal(e.code, code, `${e.code}: ${e.detail ?? ''}`);
    }
    return e;
  }
  assert.fail(`expected a rejection with ${reason}`);
}

function registered(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));
}

describe('Dispatch git: locate and worktree add (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;
  let base: string;

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-add-')));
    repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), '# readme\n');
    fs.writeFileSync(path.join(repo, 'src', 'app.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(repo, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'initial');
    base = git(repo, 'rev-parse', 'HEAD');
  });

  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe('locate', () => {
    it('finds the repository from a subfolder, HEAD or a named base, and only the branches under the prefix', async () => {
      git(repo, 'branch', 'agents/one');
      git(repo, 'branch', 'agents/two');
      git(repo, 'branch', 'agentsmith');
      git(repo, 'branch', 'other/three');
      fs.writeFileSync(path.join(repo, 'README.md'), '# moved\n');
      git(repo, 'commit', '-q', '-am', 'main moves');
      const head = git(repo, 'rev-parse', 'HEAD');
      const service = new NodeGit();
      const here = await service.locate(path.join(repo, 'src'), undefined, 'agents');
      assert.equal(here.repoRoot, repo);
      assert.equal(here.sha, head);
      assert.deepEqual([...here.branches].sort(), ['agents/one', 'agents/two']);
      const there = await service.locate(repo, 'agents/one', 'other');
      assert.equal(there.sha, base);
      assert.deepEqual([...there.branches], ['other/three']);
      assert.deepEqual([...(await service.locate(repo, base.slice(0, 10), 'none')).branches], []);
    });

    it('refuses what names no single commit, a repository without commits, and folders outside any work tree', async () => {
      const service = new NodeGit();
      const unknown = await rejectsWith(service.locate(repo, 'no-such-branch', 'agents'), 'gitFailed', 'unknownCommit');
      assert.equal((unknown.data as { repoRoot: string }).repoRoot, repo);
      await rejectsWith(service.locate(repo, `${base}..HEAD`, 'agents'), 'gitFailed', 'unknownCommit');
      await rejectsWith(service.locate(repo, 'README.md', 'agents'), 'gitFailed', 'unknownCommit');
      await rejectsWith(service.locate(repo, '--all', 'agents'), 'gitFailed', 'invalidRefName');
      const fresh = path.join(root, 'fresh');
      fs.mkdirSync(fresh);
      git(fresh, 'init', '-q');
      const empty = await rejectsWith(service.locate(fresh, undefined, 'agents'), 'noCommits', 'noCommits');
      assert.equal((empty.data as { repoRoot: string }).repoRoot, fresh);
      const plain = path.join(root, 'plain');
      fs.mkdirSync(plain);
      await rejectsWith(service.locate(plain, undefined, 'agents'), 'notGitRepository');
      await rejectsWith(service.locate(path.join(root, 'missing'), undefined, 'agents'), 'notGitRepository');
      const bare = path.join(root, 'bare.git');
      git(root, 'clone', '-q', '--bare', repo, bare);
      await rejectsWith(service.locate(bare, undefined, 'agents'), 'notGitRepository', 'bareRepository');
    });
  });

  for (const checkout of ['separate', 'inline'] as const) {
    describe(`addWorktree, ${checkout} checkout`, () => {
      const service = () => new NodeGit({ worktreeCheckout: checkout });

      it('checks out every file with its mode, fills the index, and registers the branch at the base', async () => {
        const dir = path.join(root, 'wt', 'one');
        await service().addWorktree(repo, dir, 'agents/one', base);
        assert.equal(git(dir, 'rev-parse', 'HEAD'), base);
        assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/one');
        assert.equal(git(dir, 'status', '--porcelain', '--untracked-files=all'), '', 'nothing differs from HEAD');
        assert.deepEqual(git(dir, 'ls-files', '--stage').split('\n'), git(repo, 'ls-files', '--stage').split('\n'));
        assert.equal(fs.readFileSync(path.join(dir, 'src', 'app.ts'), 'utf8'), 'export const a = 1;\n');
        assert.ok(fs.statSync(path.join(dir, 'run.sh')).mode & 0o100, 'the executable bit is checked out');
        const entry = await findWorktree(new GitRunner(), repo, dir);
        assert.equal(entry?.branch, 'refs/heads/agents/one');
        assert.equal(entry?.locked, undefined);
        assert.deepEqual(registered(repo), [repo, dir]);
      });

      it('refuses a branch that exists, even at the base itself, and leaves it and everything else as it was', async () => {
        git(repo, 'branch', 'agents/taken', base);
        const dir = path.join(root, 'wt', 'taken');
        const error = await rejectsWith(
          service().addWorktree(repo, dir, 'agents/taken', base),
          'worktreeFailed',
          'branchExists',
        );
        assert.match(error.detail ?? '', /already exists/);
        assert.equal(git(repo, 'rev-parse', 'refs/heads/agents/taken'), base, 'the branch is kept');
        assert.ok(!fs.existsSync(dir));
        assert.deepEqual(registered(repo), [repo]);
      });

      it("runs the repository's post-checkout hook in the new worktree as git worktree add does", async () => {
        const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
        fs.writeFileSync(hook, '#!/bin/sh\necho "$1 $2 $3 $(ls src)" > hook-ran.txt\n', { mode: 0o755 });
        const dir = path.join(root, 'wt', 'hooked');
        await service().addWorktree(repo, dir, 'agents/hooked', base);
        assert.equal(
          fs.readFileSync(path.join(dir, 'hook-ran.txt'), 'utf8'),
          `${'0'.repeat(40)} ${base} 1 app.ts\n`,
          'after the files were written, with a null old head',
        );
      });

      it('calls onCheckout once, before the checkout ends (separate: once the worktree is registered)', async () => {
        const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
        fs.writeFileSync(hook, '#!/bin/sh\nsleep 0.5\ntouch checked-out.txt\n', { mode: 0o755 });
        const dir = path.join(root, 'wt', 'early');
        const seen: { registered: boolean; ended: boolean }[] = [];
        await service().addWorktree(repo, dir, 'agents/early', base, () =>
          seen.push({
            registered: fs.existsSync(path.join(dir, '.git')),
            ended: fs.existsSync(path.join(dir, 'checked-out.txt')),
          }),
        );
        assert.equal(seen.length, 1);
        assert.equal(seen[0].ended, false, 'called while the checkout runs');
        if (checkout === 'separate') {
          assert.equal(seen[0].registered, true, 'called after the registration, as the checkout starts');
        }
        assert.ok(fs.existsSync(path.join(dir, 'checked-out.txt')));
      });

      it('finds a hook under a core.hooksPath relative to the worktree (husky) where git worktree add finds it', async () => {
        fs.mkdirSync(path.join(repo, '.husky'));
        const hook = path.join(repo, '.husky', 'post-checkout');
        fs.writeFileSync(hook, '#!/bin/sh\necho "committed $(pwd)" > husky-ran.txt\n', { mode: 0o755 });
        git(repo, 'add', '.husky');
        git(repo, 'commit', '-q', '-m', 'hooks');
        git(repo, 'config', 'core.hooksPath', '.husky');
        // git worktree add, run in the main worktree, runs the main worktree's copy, changed or not.
        fs.writeFileSync(hook, '#!/bin/sh\necho "main copy $(pwd)" > husky-ran.txt\n', { mode: 0o755 });
        for (const located of [true, false]) {
          const service2 = service();
          const sha = located ? (await service2.locate(repo, undefined, 'agents')).sha : base;
          const dir = path.join(root, 'wt', `husky-${located}`);
          await service2.addWorktree(repo, dir, `agents/husky-${located}`, sha);
          assert.equal(fs.readFileSync(path.join(dir, 'husky-ran.txt'), 'utf8').trim(), `main copy ${dir}`);
        }
      });

      it('undoes the whole add when the post-checkout hook fails, keeping its words', async () => {
        const hook = path.join(repo, '.git', 'hooks', 'post-checkout');
        fs.writeFileSync(hook, '#!/bin/sh\necho "hook refuses" >&2\nexit 3\n', { mode: 0o755 });
        const dir = path.join(root, 'wt', 'refused');
        const error = await rejectsWith(service().addWorktree(repo, dir, 'agents/refused', base), 'worktreeFailed');
        assert.match(error.detail ?? '', /hook refuses/);
        assert.ok(!fs.existsSync(dir));
        assert.equal(git(repo, 'branch', '--list', 'agents/*'), '');
        assert.deepEqual(registered(repo), [repo]);
      });

      it('adds 8 worktrees at once: all checked out, all registered, no lock failure', async () => {
        const git8 = service();
        const dirs = Array.from({ length: 8 }, (_, i) => path.join(root, 'wt', `many-${i}`));
        await Promise.all(dirs.map((dir, i) => git8.addWorktree(repo, dir, `agents/many-${i}`, base)));
        assert.deepEqual(registered(repo).sort(), [repo, ...dirs].sort());
        for (const dir of dirs) {
          assert.equal(git(dir, 'status', '--porcelain'), '', `${dir} is fully checked out`);
        }
      });
    });
  }

  describe('forced removal', () => {
    it('drops registration and folder at once, deletes the files in the background, and finishes an interrupted deletion', async () => {
      const service = new NodeGit();
      const dirs = ['one', 'two'].map((name) => path.join(root, 'wt', name));
      for (const dir of dirs) {
        await service.addWorktree(repo, dir, `agents/${path.basename(dir)}`, base);
        fs.writeFileSync(path.join(dir, 'work.txt'), 'unsaved\n');
      }
      // What a window closed during a deletion leaves: a folder in .removing/.
      const leftover = path.join(root, 'wt', '.removing', 'old-1');
      fs.mkdirSync(path.join(leftover, 'deep'), { recursive: true });
      fs.writeFileSync(path.join(leftover, 'deep', 'file.txt'), 'x\n');

      await service.removeWorktree(repo, dirs[0], true);
      assert.ok(!fs.existsSync(dirs[0]));
      assert.deepEqual(registered(repo), [repo, dirs[1]]);
      await service.deleteBranch(repo, 'agents/one', false);
      await service.whenFilesDeleted();
      assert.deepEqual(fs.readdirSync(path.join(root, 'wt')), ['two'], 'the leftover and the files are gone');

      // Not forced: refused with its work in place, nothing moved.
      await rejectsWith(service.removeWorktree(repo, dirs[1], false), 'worktreeFailed');
      assert.ok(fs.existsSync(path.join(dirs[1], 'work.txt')));
      assert.deepEqual(fs.readdirSync(path.join(root, 'wt')), ['two']);
      // A folder that is no worktree of the repository is refused and left where it is.
      const stranger = path.join(root, 'wt', 'stranger');
      fs.mkdirSync(stranger);
      await rejectsWith(service.removeWorktree(repo, stranger, true), 'worktreeFailed');
      assert.ok(fs.existsSync(stranger));
    });
  });

  describe('readRegistration', () => {
    it('reads what git worktree list says of one worktree: branch, head, lock; nothing for a foreign .git file', async () => {
      const service = new NodeGit();
      const runner = new GitRunner();
      const one = path.join(root, 'wt', 'one');
      const two = path.join(root, 'wt', 'two');
      await service.addWorktree(repo, one, 'agents/one', base);
      await service.addWorktree(repo, two, 'agents/two', base);
      git(repo, 'worktree', 'lock', '--reason', 'kept', two);
      git(one, 'commit', '-q', '--allow-empty', '-m', 'moves the branch');
      // A branch tip that is no loose ref file any more is asked of git.
      git(repo, 'pack-refs', '--all');
      for (const dir of [one, two]) {
        const listed = await findWorktree(runner, repo, dir);
        const read = await readRegistration(runner, repo, dir);
        assert.equal(read?.branch, listed?.branch);
        assert.equal(read?.head, listed?.head);
        assert.equal(read?.locked, listed?.locked);
      }
      assert.equal((await readRegistration(runner, repo, one))?.head, git(one, 'rev-parse', 'HEAD'));
      assert.equal((await readRegistration(runner, repo, two))?.locked, 'kept');
      // A copy of a worktree's .git file elsewhere names an entry that does not name it back.
      const impostor = path.join(root, 'impostor');
      fs.mkdirSync(impostor);
      fs.copyFileSync(path.join(one, '.git'), path.join(impostor, '.git'));
      assert.equal(await readRegistration(runner, repo, impostor), undefined);
      assert.equal(await readRegistration(runner, repo, path.join(root, 'nowhere')), undefined);
      assert.equal(await readRegistration(runner, repo, repo), undefined, 'the main worktree is no linked one');
    });
  });
});

describe('Git processes of a dispatch (real git, real agent)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;

  afterEach(() => fx?.dispose());

  it('runs two once git located the folder: the registering add and the checkout; locate reads the files', async () => {
    fx = new ManagerFixture();
    const manager = fx.manager();
    // The first dispatch also asks `git version` once.
    const first = await manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: fx.repo, title: 'first' });
    await fx.finished(manager, first.id);
    const runner = fx.git.runner;
    const spawned: string[] = [];
    const exec = runner.exec.bind(runner);
    runner.exec = (cwd, args, options) => {
      spawned.push(args.slice(0, 2).join(' '));
      return exec(cwd, args, options);
    };
    // A branch with no folder: only the branch names read by locate keep the dispatch off it.
    git(fx.repo, 'branch', 'agents/taken');
    const before = runner.processCount;
    const second = await manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: fx.repo, title: 'taken' });
    const count = runner.processCount - before;
    assert.equal(second.status, 'running');
    assert.equal(second.branch, 'agents/taken-2', 'the taken branch is known without listing branches');
    assert.deepEqual(spawned, ['worktree add', 'read-tree -m'], spawned.join(', '));
    assert.equal(count, 2);
    await fx.finished(manager, second.id);
  });
});
