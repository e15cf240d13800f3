import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError, type AgentErrorReason } from '../../src/core/errors';
import { parseWorktreeList } from '../../src/node/git/worktreeParsers';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { gitEnvironment } from '../../src/node/git/process';
import { NodeGit } from '../../src/node/git/createGit';
import { englishMessage } from '../../src/ui/errorText';

const identity = {
  GIT_AUTHOR_NAME: 'Git Service Tests',
  GIT_AUTHOR_EMAIL: 'tests@example.invalid',
  GIT_COMMITTER_NAME: 'Git Service Tests',
  GIT_COMMITTER_EMAIL: 'tests@example.invalid',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...identity },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function gitFails(cwd: string, ...args: string[]): boolean {
  try {
    git(cwd, ...args);
    return false;
  } catch {
    return true;
  }
}

/** Bytes of a PNG header: binary to git because of the NUL bytes. */
const pngBytes = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x01,
]);

async function rejectsWith(promise: Promise<unknown>, reason: AgentErrorReason): Promise<AgentError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(
      AgentError.is(e, reason),
      `expected AgentError ${reason}, got ${e instanceof Error ? `${e.name} ${(e as AgentError).reason ?? ''}: ${e.message}` : String(e)}`,
    );
    return e;
  }
  assert.fail(`expected a rejection with ${reason}`);
}

/** git's own line counts of a new file: `git diff --no-index --numstat` against nothing (exit 1: they differ). */
function gitNumstat(file: string): [number, number] {
  const out = spawnSync('git', ['diff', '--no-index', '--numstat', '--', '/dev/null', file], { encoding: 'utf8' });
  if (out.status === 0 && out.stdout === '') {
    return [0, 0]; // an empty file is no different from nothing
  }
  const m = /^(\d+)\t(\d+)\t/.exec(out.stdout);
  assert.ok(m, `numstat of ${file}: ${out.stdout}${out.stderr}`);
  return [Number(m[1]), Number(m[2])];
}

function registeredPaths(repo: string): string[] {
  return parseWorktreeList(git(repo, 'worktree', 'list', '--porcelain', '-z')).map((w) => w.path);
}

describe('NodeGit refs, worktrees and changes (real git)', function () {
  this.timeout(60_000);
  const service = new NodeGit();
  let root: string;
  let repo: string;
  let base: string;

  const write = async (dir: string, file: string, content: string | Buffer) => {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), content);
  };

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'pa-git-')));
    repo = join(root, 'repo');
    await mkdir(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    await write(repo, 'README.md', '# readme\n');
    await write(repo, 'src/app.ts', 'export const a = 1;\n');
    await write(repo, 'src/old name.ts', 'export function keep() {\n  return 42;\n}\n'.repeat(5));
    await write(repo, 'docs/plain.md', 'a file that is moved without git mv\n'.repeat(5));
    await write(repo, 'gone.txt', 'to be deleted\n');
    await write(repo, 'logo.png', pngBytes);
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
    base = git(repo, 'rev-parse', 'HEAD').trim();
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('repository checks', () => {
    it('finds the top-level folder from a subfolder, and the head sha', async () => {
      assert.equal(await service.repoRoot(join(repo, 'src')), repo);
      assert.equal(await service.headSha(repo), base);
    });

    it('reports a plain folder as notGitRepository, naming the folder', async () => {
      const plain = join(root, 'plain');
      await mkdir(plain);
      const error = await rejectsWith(service.repoRoot(plain), 'notGitRepository');
      assert.match(englishMessage(error), /plain is not inside a git repository/);
      await rejectsWith(service.headSha(plain), 'notGitRepository');
      await rejectsWith(service.repoRoot(join(root, 'does-not-exist')), 'notGitRepository');
    });

    it('reports a fresh git init as noCommits', async () => {
      const fresh = join(root, 'fresh');
      await mkdir(fresh);
      git(fresh, 'init', '--quiet');
      assert.equal(await service.repoRoot(fresh), fresh);
      await rejectsWith(service.headSha(fresh), 'noCommits');
    });

    it('reports a missing git binary as gitNotFound', async () => {
      const missing = new NodeGit({ binary: join(root, 'no-such-dir', 'git') });
      await rejectsWith(missing.repoRoot(repo), 'gitNotFound');
      await rejectsWith(missing.changeSet(repo, base), 'gitNotFound');
      await rejectsWith(missing.addWorktree(repo, join(root, 'wt'), 'agents/x', base), 'gitNotFound');
    });

    it('lists local branches by short name', async () => {
      git(repo, 'branch', 'agents/fix-bug');
      assert.deepEqual([...(await service.localBranches(repo))].sort(), ['agents/fix-bug', 'main']);
    });
  });

  describe('worktrees', () => {
    it('creates a worktree at the recorded base even after the main branch moved', async () => {
      await write(repo, 'README.md', '# moved on\n');
      git(repo, 'commit', '--quiet', '-am', 'main moves');
      const dir = join(root, 'repo.worktrees', 'first');
      await service.addWorktree(repo, dir, 'agents/first', base);
      assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), base);
      assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim(), 'agents/first');
      assert.ok(registeredPaths(repo).includes(dir));
      assert.deepEqual(await service.changeSet(dir, base), []);
    });

    it('runs 8 addWorktree calls at once on one repository: all succeed and are registered', async () => {
      const dirs = Array.from({ length: 8 }, (_, i) => join(root, 'repo.worktrees', `agent-${i}`));
      await Promise.all(dirs.map((dir, i) => service.addWorktree(repo, dir, `agents/agent-${i}`, base)));
      const registered = registeredPaths(repo);
      for (const dir of dirs) {
        assert.ok(registered.includes(dir), `${dir} is registered`);
        assert.equal(git(dir, 'rev-parse', 'HEAD').trim(), base);
      }
      assert.equal((await service.localBranches(repo)).size, 9);
    });

    it('fails with worktreeFailed into an existing folder, leaving no branch and no registration', async () => {
      const dir = join(root, 'occupied');
      await write(dir, 'mine.txt', 'not git’s\n');
      const error = await rejectsWith(service.addWorktree(repo, dir, 'agents/occupied', base), 'worktreeFailed');
      assert.match(error.detail ?? '', /already exists/);
      assert.ok(!(await service.localBranches(repo)).has('agents/occupied'));
      assert.ok(!registeredPaths(repo).includes(dir));
      assert.ok(existsSync(join(dir, 'mine.txt')), 'the folder that was there is untouched');
    });

    it('fails with worktreeFailed when the branch exists, creating nothing and keeping the branch', async () => {
      git(repo, 'branch', 'agents/taken');
      const dir = join(root, 'wt-taken');
      await rejectsWith(service.addWorktree(repo, dir, 'agents/taken', base), 'worktreeFailed');
      assert.ok((await service.localBranches(repo)).has('agents/taken'));
      assert.ok(!existsSync(dir));
    });

    it('fails with worktreeFailed for an unknown base, leaving nothing behind', async () => {
      const dir = join(root, 'wt-bad-base');
      await rejectsWith(service.addWorktree(repo, dir, 'agents/bad-base', 'f'.repeat(40)), 'worktreeFailed');
      assert.ok(!(await service.localBranches(repo)).has('agents/bad-base'));
      assert.ok(!existsSync(dir));
      assert.deepEqual(registeredPaths(repo), [repo]);
    });

    it('removes a dirty worktree only with force, then prunes', async () => {
      const dir = join(root, 'wt-dirty');
      await service.addWorktree(repo, dir, 'agents/dirty', base);
      await write(dir, 'work in progress.txt', 'unsaved work\n');
      const error = await rejectsWith(service.removeWorktree(repo, dir, false), 'worktreeFailed');
      assert.match(error.detail ?? '', /untracked|modified/);
      assert.ok(existsSync(join(dir, 'work in progress.txt')), 'nothing lost');
      await service.removeWorktree(repo, dir, true);
      assert.ok(!existsSync(dir));
      assert.deepEqual(registeredPaths(repo), [repo]);
    });

    it('removes a clean worktree without force, and tolerates a folder deleted by hand', async () => {
      const clean = join(root, 'wt-clean');
      const deleted = join(root, 'wt-deleted');
      await service.addWorktree(repo, clean, 'agents/clean', base);
      await service.addWorktree(repo, deleted, 'agents/deleted', base);
      await service.removeWorktree(repo, clean, false);
      await rm(deleted, { recursive: true, force: true });
      await service.removeWorktree(repo, deleted, false);
      assert.deepEqual(registeredPaths(repo), [repo]);
      // The branch is no longer "checked out" anywhere, so it can be deleted.
      await service.deleteBranch(repo, 'agents/deleted', true);
      assert.ok(!(await service.localBranches(repo)).has('agents/deleted'));
    });

    it('deletes branches: unmerged ones only with force, missing ones quietly', async () => {
      const dir = join(root, 'wt-branch');
      await service.addWorktree(repo, dir, 'agents/unmerged', base);
      await write(dir, 'new.txt', 'new\n');
      git(dir, 'add', 'new.txt');
      git(dir, 'commit', '--quiet', '-m', 'work');
      await service.removeWorktree(repo, dir, false);
      await rejectsWith(service.deleteBranch(repo, 'agents/unmerged', false), 'gitFailed');
      await service.deleteBranch(repo, 'agents/unmerged', true);
      assert.ok(!(await service.localBranches(repo)).has('agents/unmerged'));
      await service.deleteBranch(repo, 'agents/never-existed', true);
    });
  });

  describe('change set, files and work state', () => {
    let dir: string;

    beforeEach(async () => {
      dir = join(root, 'wt');
      await service.addWorktree(repo, dir, 'agents/work', base);
      // Committed in the worktree: an added file, a modification, a deletion, a git mv and a binary edit.
      await write(dir, 'src/added.ts', 'export const added = true;\n');
      await write(dir, 'src/app.ts', 'export const a = 2;\n');
      git(dir, 'rm', '--quiet', 'gone.txt');
      git(dir, 'mv', 'src/old name.ts', 'src/new näme.ts');
      await write(dir, 'logo.png', Buffer.concat([pngBytes, Buffer.from([0, 1, 2, 3])]));
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', 'agent work');
      // Uncommitted on top: a plain mv + add, an edit, untracked text and binary files.
      await rename(join(dir, 'docs/plain.md'), join(dir, 'docs/moved by hand.md'));
      git(dir, 'add', '-A', 'docs');
      await write(dir, 'README.md', '# readme\n\nedited, not committed\n');
      await write(dir, 'notes ü.txt', 'untracked text\n');
      await write(dir, 'assets/new.png', pngBytes);
    });

    it('combines committed, uncommitted and untracked changes against the base, with their lines', async () => {
      assert.deepEqual(await service.changeSet(dir, base), [
        { path: 'README.md', kind: 'modified', binary: false, added: 2, removed: 0 },
        { path: 'assets/new.png', kind: 'untracked', binary: true },
        {
          path: 'docs/moved by hand.md',
          kind: 'renamed',
          oldPath: 'docs/plain.md',
          binary: false,
          added: 0,
          removed: 0,
        },
        { path: 'gone.txt', kind: 'deleted', binary: false, added: 0, removed: 1 },
        { path: 'logo.png', kind: 'modified', binary: true },
        { path: 'notes ü.txt', kind: 'untracked', binary: false, added: 1, removed: 0 },
        { path: 'src/added.ts', kind: 'added', binary: false, added: 1, removed: 0 },
        { path: 'src/app.ts', kind: 'modified', binary: false, added: 1, removed: 1 },
        {
          path: 'src/new näme.ts',
          kind: 'renamed',
          oldPath: 'src/old name.ts',
          binary: false,
          added: 0,
          removed: 0,
        },
      ]);
    });

    it("counts an untracked file's lines as git does, whatever its size, ending or line breaks", async () => {
      const long = 'a line of text that makes the file longer than git sniffs for binary content\n';
      const files: Record<string, string> = {
        'u/empty.txt': '',
        'u/no-final-newline.txt': 'one\ntwo',
        'u/crlf.txt': 'one\r\ntwo\r\nthree\r\n',
        'u/blank-lines.txt': '\n\n\n',
        'u/past-the-sniff.txt': `${long.repeat(200)}last`,
        'u/many-chunks.txt': long.repeat(5_000),
      };
      for (const [file, text] of Object.entries(files)) {
        await write(dir, file, text);
      }
      const counted = new Map((await service.changeSet(dir, base)).map((f) => [f.path, f]));
      for (const file of Object.keys(files)) {
        const [added, removed] = gitNumstat(join(dir, file));
        assert.deepEqual(
          [counted.get(file)?.added, counted.get(file)?.removed],
          [added, removed],
          `${file} counts as git counts it`,
        );
      }
    });

    it('leaves the lines of a very large untracked file uncounted rather than read it all', async () => {
      await write(
        dir,
        'huge.log',
        'x'
          .repeat(1023)
          .concat('\n')
          .repeat(9 * 1024),
      );
      const huge = (await service.changeSet(dir, base)).find((f) => f.path === 'huge.log');
      assert.deepEqual(huge, { path: 'huge.log', kind: 'untracked', binary: false });
    });

    it('ignores a file whose timestamp changed but whose content did not', async () => {
      const later = new Date(Date.now() + 60_000);
      const { utimes } = await import('node:fs/promises');
      await utimes(join(dir, 'src/added.ts'), later, later);
      await utimes(join(repo, 'README.md'), later, later);
      const files = await service.changeSet(dir, base);
      assert.equal(files.filter((f) => f.path === 'src/added.ts').length, 1, 'listed once, as added');
      assert.deepEqual(await service.changeSet(repo, base), []);
    });

    it('counts uncommitted files (untracked included) and commits ahead', async () => {
      // Staged rename (1), README edit (1), two untracked files (2).
      assert.deepEqual(await service.workState(dir, base), { uncommittedFiles: 4, commitsAhead: 1 });
      assert.deepEqual(await service.workState(repo, base), { uncommittedFiles: 0, commitsAhead: 0 });
    });

    it('shows a file at a sha as raw bytes, and undefined for a missing path', async () => {
      const head = git(dir, 'rev-parse', 'HEAD').trim();
      assert.deepEqual(Buffer.from((await service.showFile(repo, base, 'logo.png'))!), pngBytes);
      assert.equal(
        Buffer.from((await service.showFile(repo, head, 'src/new näme.ts'))!).toString('utf8'),
        'export function keep() {\n  return 42;\n}\n'.repeat(5),
      );
      assert.equal(await service.showFile(repo, base, 'src/added.ts'), undefined);
      assert.equal(await service.showFile(repo, head, 'README.md/not-a-dir'), undefined);
      await rejectsWith(service.showFile(repo, 'e'.repeat(40), 'README.md'), 'gitFailed');
    });

    it('shows many files at a sha in one process, byte for byte as showFile does, missing ones undefined', async () => {
      const head = git(dir, 'rev-parse', 'HEAD').trim();
      const paths = ['logo.png', 'src/new näme.ts', 'src/added.ts', 'README.md/not-a-dir', 'src', 'logo.png'];
      const one = await Promise.all(paths.map((p) => service.showFile(repo, head, p)));
      const many = await service.showFiles(repo, head, paths);
      assert.equal(many.length, paths.length);
      assert.deepEqual(Buffer.from(many[0]!), Buffer.from(one[0]!));
      assert.deepEqual(Buffer.from(many[1]!), Buffer.from(one[1]!));
      assert.deepEqual(Buffer.from(many[5]!), Buffer.from(one[0]!), 'a path asked twice is answered twice');
      assert.deepEqual(Buffer.from((await service.showFiles(repo, base, ['logo.png']))[0]!), pngBytes);
      assert.equal(many[3], undefined);
      assert.equal(many[4], undefined, 'a folder is no file');
      assert.deepEqual(await service.showFiles(repo, base, ['src/added.ts', 'src/old name.ts']), [
        undefined,
        await service.showFile(repo, base, 'src/old name.ts'),
      ]);
      assert.deepEqual(await service.showFiles(repo, head, []), []);
      await rejectsWith(service.showFiles(repo, 'e'.repeat(40), ['README.md']), 'gitFailed');
    });

    it('reads while another process commits in the worktree without taking index.lock', async () => {
      // Background reads must not make an agent's commit fail on index.lock.
      let failures = 0;
      const reads = (async () => {
        for (let i = 0; i < 15; i++) {
          await Promise.all([service.changeSet(dir, base), service.workState(dir, base)]);
        }
      })();
      for (let i = 0; i < 15; i++) {
        await write(dir, `commit-${i}.txt`, `${i}\n`);
        if (gitFails(dir, 'add', `commit-${i}.txt`) || gitFails(dir, 'commit', '--quiet', '-m', `c${i}`)) {
          failures++;
        }
      }
      await reads;
      assert.equal(failures, 0);
    });
  });
});

describe('gitEnvironment', () => {
  it('passes what git needs, no GIT_* of the host, English messages and no optional locks', () => {
    const env = gitEnvironment({
      Path: 'C:\\Windows',
      HOME: '/home/me',
      LANG: 'de_DE.UTF-8',
      LC_ALL: 'de_DE.UTF-8',
      LANGUAGE: 'de',
      GIT_DIR: '/elsewhere/.git',
      GIT_ASKPASS: '/askpass.sh',
      EDITOR: 'vim',
      SECRET_TOKEN: 'x',
    });
    assert.deepEqual(env, {
      Path: 'C:\\Windows',
      HOME: '/home/me',
      LANG: 'de_DE.UTF-8',
      LC_MESSAGES: 'C',
      GIT_OPTIONAL_LOCKS: '0',
    });
  });
});

describe('NodeFileSystem', () => {
  const fsPort = new NodeFileSystem();
  let root: string;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'pa-fs-')));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes nested folders, tells what exists, and removes a folder tree', async () => {
    const nested = join(root, 'a', 'b c', 'ü');
    assert.equal(await fsPort.exists(nested), false);
    await fsPort.mkdirp(nested);
    await fsPort.mkdirp(nested);
    await writeFile(join(nested, 'file.txt'), 'x');
    assert.equal(await fsPort.exists(join(nested, 'file.txt')), true);
    await fsPort.removeDir(join(root, 'a'));
    assert.equal(await fsPort.exists(join(root, 'a')), false);
    await fsPort.removeDir(join(root, 'a'));
  });

  it('refuses to remove a filesystem root or an empty path', async () => {
    await assert.rejects(fsPort.removeDir('/'));
    await assert.rejects(fsPort.removeDir(''));
  });
});
