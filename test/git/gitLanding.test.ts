import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AgentError, type AgentErrorReason } from '../../src/core/errors';
import type { MergeStrategy } from '../../src/core/git';
import { parseWorktreeList } from '../../src/node/git/worktreeParsers';
import { NodeGit } from '../../src/node/git/createGit';
import { englishMessage } from '../../src/ui/errorText';
import { assertRestored, assertUntouched, recordWorkspace } from '../harness/untouched';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const sha = (cwd: string, rev = 'HEAD') => git(cwd, 'rev-parse', rev).trim();
const status = (cwd: string) => git(cwd, 'status', '--porcelain=v1', '--untracked-files=all');
const registered = (repo: string) =>
  parseWorktreeList(git(repo, 'worktree', 'list', '--porcelain', '-z')).map((w) => w.path);

/** PNG header bytes: binary to git because of the NUL bytes. */
const pngBytes = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x01,
]);

async function write(dir: string, file: string, content: string | Buffer): Promise<void> {
  await mkdir(join(dir, file, '..'), { recursive: true });
  await writeFile(join(dir, file), content);
}

/** Every file under `dir` except .git: path, mode and content hash, or a symlink's target. */
async function listing(dir: string, rel = ''): Promise<string[]> {
  const lines: string[] = [];
  for (const name of (await readdir(join(dir, rel))).sort()) {
    const entry = rel ? `${rel}/${name}` : name;
    if (entry === '.git') {
      continue;
    }
    const full = join(dir, entry);
    const info = await lstat(full);
    if (info.isSymbolicLink()) {
      lines.push(`${entry} -> ${await readlink(full)}`);
    } else if (info.isDirectory()) {
      lines.push(...(await listing(dir, entry)));
    } else {
      lines.push(
        `${entry} ${(info.mode & 0o777).toString(8)} ${createHash('sha256')
          .update(await readFile(full))
          .digest('hex')}`,
      );
    }
  }
  return lines;
}

async function rejectsWith(promise: Promise<unknown>, reason: AgentErrorReason): Promise<AgentError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(
      AgentError.is(e, reason),
      `expected AgentError ${reason}, got ${e instanceof Error ? `${(e as AgentError).reason ?? e.name}: ${e.message}` : String(e)}`,
    );
    return e;
  }
  assert.fail(`expected a rejection with ${reason}`);
}

describe('NodeGit landing, merge, forecasts and snapshots (real git)', function () {
  this.timeout(60_000);
  const landing = new NodeGit();
  let root: string;
  let repo: string;
  let base: string;

  /** An agent worktree on branch agents/<name>, from main's base, with `files` committed. */
  const agent = async (name: string, files: Record<string, string>, commit = true): Promise<string> => {
    const dir = join(root, `wt-${name}`);
    git(repo, 'worktree', 'add', '--quiet', '-b', `agents/${name}`, dir, base);
    for (const [file, content] of Object.entries(files)) {
      await write(dir, file, content);
    }
    if (commit) {
      git(dir, 'add', '-A');
      git(dir, 'commit', '--quiet', '-m', `${name} work`);
    }
    return dir;
  };

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'pa-landing-')));
    repo = join(root, 'repo');
    await mkdir(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.name', 'Landing Tests');
    git(repo, 'config', 'user.email', 'landing@example.invalid');
    await write(repo, 'README.md', '# readme\n');
    await write(repo, 'src/app.ts', 'line 1\nline 2\nline 3\n');
    await write(repo, 'src/util.ts', 'export const u = 1;\n');
    await write(repo, 'gone.txt', 'to be deleted\n');
    await write(repo, '.gitignore', '*.log\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
    base = sha(repo);
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('land', () => {
    const landed = async (strategy: MergeStrategy) => {
      const wt = await agent('feature', {
        'src/feature.ts': 'export const f = 1;\n',
        'src/app.ts': 'line 1\nline 2 by agent\nline 3\n',
      });
      // main moves on (another file), so no strategy degenerates to a fast-forward.
      await write(repo, 'README.md', '# readme, moved on\n');
      git(repo, 'commit', '--quiet', '-am', 'main moves on');
      const before = sha(repo);
      const outcome = await landing.land(repo, wt, 'agents/feature', strategy, `Land feature by ${strategy}`);
      assert.ok(outcome.ok);
      assert.equal(outcome.sha, sha(repo));
      assert.equal(status(repo), '');
      assert.equal(await readFile(join(repo, 'src/feature.ts'), 'utf8'), 'export const f = 1;\n');
      assert.equal(await readFile(join(repo, 'src/app.ts'), 'utf8'), 'line 1\nline 2 by agent\nline 3\n');
      assert.equal(await readFile(join(repo, 'README.md'), 'utf8'), '# readme, moved on\n');
      return { wt, before, parents: git(repo, 'log', '-1', '--format=%P').trim().split(' ') };
    };

    it('merge: a --no-ff merge commit with two parents', async () => {
      const { before, parents } = await landed('merge');
      assert.deepEqual(parents, [before, sha(repo, 'agents/feature')]);
      assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'Land feature by merge');
    });

    it('squash: one single-parent commit holding the branch changes', async () => {
      const { before, parents } = await landed('squash');
      assert.deepEqual(parents, [before]);
      assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'Land feature by squash');
      assert.equal(
        git(repo, 'diff', '--name-only', 'HEAD^', 'HEAD').trim().split('\n').sort().join(','),
        'src/app.ts,src/feature.ts',
      );
      assert.ok(!existsSync(join(repo, '.git', 'SQUASH_MSG')));
    });

    it('rebase: the branch is rebased in its worktree and main fast-forwarded, history linear', async () => {
      const { wt, before, parents } = await landed('rebase');
      assert.equal(sha(repo), sha(repo, 'agents/feature'));
      assert.equal(sha(wt), sha(repo));
      assert.deepEqual(parents, [before]);
      assert.equal(git(repo, 'rev-list', '--merges', `${base}..HEAD`), '');
      assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'feature work');
    });

    it('forecasts a conflicting pair and lands nothing, for every strategy', async () => {
      const wt = await agent('clash', { 'src/app.ts': 'line 1\nline 2 agent\nline 3\n' });
      await write(repo, 'src/app.ts', 'line 1\nline 2 main\nline 3\n');
      git(repo, 'commit', '--quiet', '-am', 'main edits the same line');
      const forecast = await landing.forecastMerge(repo, 'main', 'agents/clash');
      assert.deepEqual(forecast, { clean: false, conflicts: ['src/app.ts'] });
      const head = sha(repo);
      const branchTip = sha(repo, 'agents/clash');
      for (const strategy of ['merge', 'squash', 'rebase'] as const) {
        const [mainBefore, agentBefore] = [recordWorkspace(repo), recordWorkspace(wt)];
        assert.deepEqual(await landing.land(repo, wt, 'agents/clash', strategy, 'x'), {
          ok: false,
          conflicts: ['src/app.ts'],
        });
        assertUntouched(mainBefore, `the workspace (${strategy})`);
        assertUntouched(agentBefore, `the agent worktree (${strategy})`);
        assert.equal(sha(repo), head);
        assert.equal(status(repo), '');
        assert.equal(sha(repo, 'agents/clash'), branchTip);
        assert.equal(status(wt), '');
      }
    });

    it('refuses to overwrite uncommitted changes in the main worktree, touching nothing', async () => {
      const wt = await agent('edit', { 'src/util.ts': 'export const u = 2;\n' });
      await write(repo, 'src/util.ts', 'export const u = 3; // local\n');
      const head = sha(repo);
      const workspace = recordWorkspace(repo);
      await rejectsWith(landing.land(repo, wt, 'agents/edit', 'merge', 'x'), 'dirtyWorkspace');
      assertUntouched(workspace);
      assert.equal(sha(repo), head);
      assert.equal(status(repo), ' M src/util.ts\n');
    });

    it('refuses a detached HEAD, a branch onto itself, staged changes and a rebase over uncommitted agent work, naming each, touching nothing', async () => {
      const wt = await agent('refused', { 'src/feature.ts': 'export const f = 1;\n' });
      const code = async (promise: Promise<unknown>, reason: AgentErrorReason) => {
        const e = await rejectsWith(promise, reason);
        return { code: e.code, data: e.data };
      };
      const workspace = recordWorkspace(repo);
      git(repo, 'checkout', '--quiet', '--detach');
      assert.deepEqual(await code(landing.land(repo, wt, 'agents/refused', 'merge', 'x'), 'gitFailed'), {
        code: 'detachedHead',
        data: { cwd: repo },
      });
      git(repo, 'checkout', '--quiet', 'main');
      assert.deepEqual(await code(landing.land(repo, repo, 'main', 'merge', 'x'), 'gitFailed'), {
        code: 'landOnItself',
        data: { branch: 'main', cwd: repo },
      });
      assertUntouched(workspace, 'after a detached HEAD and a branch onto itself', {
        except: ['git dir HEAD', 'git dir ORIG_HEAD', 'git dir logs/HEAD', 'index stat'],
      });
      await write(repo, 'README.md', '# staged\n');
      git(repo, 'add', 'README.md');
      const staged = recordWorkspace(repo);
      const refused = await rejectsWith(landing.land(repo, wt, 'agents/refused', 'merge', 'x'), 'dirtyWorkspace');
      assert.deepEqual({ code: refused.code, data: refused.data }, { code: 'stagedChanges', data: { cwd: repo } });
      assertUntouched(staged, 'staged changes');
      git(repo, 'reset', '--quiet', '--hard');
      await write(wt, 'src/feature.ts', 'export const f = 2; // not committed\n');
      const agentBefore = recordWorkspace(wt);
      const rebase = await rejectsWith(landing.land(repo, wt, 'agents/refused', 'rebase', 'x'), 'dirtyWorkspace');
      assert.deepEqual(
        { code: rebase.code, data: rebase.data },
        { code: 'rebaseUncommitted', data: { cwd: wt, branch: 'agents/refused' } },
      );
      assertUntouched(agentBefore, 'the agent worktree after a refused rebase');
    });

    it("undoes a landing that a hook rejects, and reports the hook's words", async () => {
      const wt = await agent('hooked', { 'src/feature.ts': 'export const f = 1;\n' });
      await write(repo, 'README.md', '# moved\n');
      git(repo, 'commit', '--quiet', '-am', 'moved');
      const hooks = join(root, 'hooks');
      for (const hook of ['pre-merge-commit', 'pre-commit']) {
        await write(hooks, hook, '#!/bin/sh\necho "hook says no" >&2\nexit 1\n');
        await chmod(join(hooks, hook), 0o755);
      }
      git(repo, 'config', 'core.hooksPath', hooks);
      const head = sha(repo);
      for (const strategy of ['merge', 'squash'] as const) {
        const workspace = recordWorkspace(repo);
        const error = await rejectsWith(landing.land(repo, wt, 'agents/hooked', strategy, 'x'), 'gitFailed');
        assertRestored(workspace, `the workspace after a refused ${strategy}`);
        assert.match(error.detail ?? '', /hook says no/);
        assert.equal(sha(repo), head);
        assert.equal(status(repo), '');
        assert.ok(!existsSync(join(repo, '.git', 'MERGE_HEAD')) && !existsSync(join(repo, '.git', 'SQUASH_MSG')));
      }
    });

    it('reports a missing git and a missing folder with their reasons', async () => {
      const missing = new NodeGit({ binary: join(root, 'no-such-dir', 'git') });
      await rejectsWith(missing.forecastMerge(repo, 'main', 'main'), 'gitNotFound');
      await rejectsWith(missing.commitAll(repo, 'x'), 'gitNotFound');
      await rejectsWith(landing.dirtyFiles(join(root, 'nowhere')), 'notGitRepository');
    });

    it('lands with unrelated local changes kept in place', async () => {
      const wt = await agent('other', { 'src/feature.ts': 'export const f = 1;\n' });
      await write(repo, 'README.md', 'local edit\n');
      const outcome = await landing.land(repo, wt, 'agents/other', 'squash', 'Land other');
      assert.ok(outcome.ok);
      assert.equal(status(repo), ' M README.md\n');
      assert.equal(git(repo, 'diff', '--name-only', 'HEAD^', 'HEAD').trim(), 'src/feature.ts');
    });
  });

  describe('forecasts', () => {
    const sixBranches = async (): Promise<[string, string][]> => {
      const edits: Record<string, string>[] = [
        { 'src/app.ts': 'line 1\nA\nline 3\n' },
        { 'src/app.ts': 'line 1\nB\nline 3\n' },
        { 'src/util.ts': 'export const u = 2;\n' },
        { 'src/util.ts': 'export const u = 3;\n', 'docs/c.md': 'c\n' },
        { 'docs/d.md': 'd\n' },
        { 'src/app.ts': 'line 1\nline 2\nline 3\nline 4\n' },
      ];
      const names: string[] = [];
      for (const [i, files] of edits.entries()) {
        await agent(`b${i}`, files);
        names.push(`agents/b${i}`);
      }
      return names.flatMap((a) => names.filter((b) => b !== a).map((b): [string, string] => [a, b]));
    };

    it('forecastMany on six branches matches pairwise forecastMerge', async () => {
      const pairs = await sixBranches();
      const many = await landing.forecastMany(repo, pairs);
      const single = await Promise.all(pairs.map(([a, b]) => landing.forecastMerge(repo, a, b)));
      assert.deepEqual(many, single);
      assert.deepEqual(many[0], { clean: false, conflicts: ['src/app.ts'] });
      assert.ok(many.filter((f) => f.clean).length >= 10, 'most pairs merge cleanly');
      assert.ok(many.some((f) => !f.clean && f.conflicts.includes('src/util.ts')));
    });

    it('gives the same answers per pair and by trial merges, and leaves no worktree registered', async () => {
      const pairs = await sixBranches();
      const expected = await landing.forecastMany(repo, pairs);
      const worktreesBefore = registered(repo);
      assert.deepEqual(await new NodeGit({ mergeTree: 'writeTree' }).forecastMany(repo, pairs), expected);
      const trial = new NodeGit({ mergeTree: 'none' });
      assert.deepEqual(await trial.forecastMany(repo, pairs), expected);
      assert.deepEqual(await trial.forecastMerge(repo, 'agents/b0', 'agents/b1'), expected[0]);
      assert.deepEqual(registered(repo), worktreesBefore);
      assert.equal(
        git(repo, 'worktree', 'list')
          .split('\n')
          .filter((l) => l.includes('pa-trial-')).length,
        0,
      );
      assert.equal(status(repo), '');
    });

    it('reports a name that is not a commit', async () => {
      const single = await rejectsWith(landing.forecastMerge(repo, 'main', 'agents/none'), 'gitFailed');
      assert.match(`${englishMessage(single)} ${single.detail ?? ''}`, /agents\/none/);
      const many = await rejectsWith(
        landing.forecastMany(repo, [
          ['main', 'main'],
          ['main', 'agents/none'],
        ]),
        'gitFailed',
      );
      assert.ok(AgentError.isCode(many, 'unknownCommit'), many.code);
      assert.match(englishMessage(many), /agents\/none/);
    });
  });

  describe('mergeLeavingConflicts and commitAll', () => {
    it('leaves conflict markers in the agent worktree; commitAll refuses them, then commits the resolution', async () => {
      const wt = await agent('clash', { 'src/app.ts': 'line 1\nline 2 agent\nline 3\n' });
      await write(repo, 'src/app.ts', 'line 1\nline 2 main\nline 3\n');
      git(repo, 'commit', '--quiet', '-am', 'main edits the same line');
      const { conflicts } = await landing.mergeLeavingConflicts(wt, 'main');
      assert.deepEqual(conflicts, ['src/app.ts']);
      assert.match(
        await readFile(join(wt, 'src/app.ts'), 'utf8'),
        /^<<<<<<< HEAD\nline 2 agent\n=======\nline 2 main\n>>>>>>> main$/m,
      );
      assert.equal(status(repo), '');
      await rejectsWith(landing.commitAll(wt, 'resolve'), 'mergeConflicts');
      await write(wt, 'src/app.ts', 'line 1\nline 2 both\nline 3\n');
      const merged = await landing.commitAll(wt, 'Resolve the conflict');
      assert.equal(merged, sha(wt));
      assert.equal(git(wt, 'log', '-1', '--format=%P').trim().split(' ').length, 2);
      assert.equal(status(wt), '');
    });

    it('refuses a merge that would overwrite an untracked file of the agent, naming it, and leaves the worktree as it was', async () => {
      const wt = await agent('blocked', { 'docs/x.md': 'x\n' });
      await write(repo, 'notes.txt', 'from main\n');
      git(repo, 'add', 'notes.txt');
      git(repo, 'commit', '--quiet', '-m', 'main adds notes.txt');
      await write(wt, 'notes.txt', "the agent's own, never committed\n");
      const before = recordWorkspace(wt);
      const refused = await rejectsWith(landing.mergeLeavingConflicts(wt, 'main'), 'dirtyWorkspace');
      assert.ok(AgentError.isCode(refused, 'mergeWouldOverwrite'), refused.code);
      assert.deepEqual(refused.data, { cwd: wt, ref: 'main' });
      assert.match(refused.detail ?? '', /notes\.txt/);
      // git itself rewrites the index (same entries) and ORIG_HEAD before it refuses; files, HEAD and refs stay.
      assertRestored(before, 'a refused merge into the agent worktree', { except: ['git dir ORIG_HEAD'] });
    });

    it('merges cleanly when nothing conflicts', async () => {
      const wt = await agent('calm', { 'docs/x.md': 'x\n' });
      await write(repo, 'README.md', 'main\n');
      git(repo, 'commit', '--quiet', '-am', 'main');
      assert.deepEqual(await landing.mergeLeavingConflicts(wt, 'main'), { conflicts: [] });
      assert.equal(git(wt, 'log', '-1', '--format=%P').trim().split(' ').length, 2);
    });

    it('commitAll: undefined on a clean tree; otherwise everything, untracked included', async () => {
      const wt = await agent('c', {}, false);
      assert.equal(await landing.commitAll(wt, 'nothing'), undefined);
      assert.equal(sha(wt), base);
      await write(wt, 'new/file.ts', 'new\n');
      await rm(join(wt, 'gone.txt'));
      await write(wt, 'debug.log', 'ignored\n');
      assert.deepEqual((await landing.dirtyFiles(wt)).sort(), ['gone.txt', 'new/file.ts']);
      assert.deepEqual(await landing.dirtyFiles(join(wt, 'new')), ['file.ts']);
      const inSubfolder = await landing.commitAll(join(wt, 'new'), 'only the subfolder');
      assert.equal(git(wt, 'show', '--name-only', '--format=', 'HEAD').trim(), 'new/file.ts');
      assert.equal(status(wt), ' D gone.txt\n');
      const commit = await landing.commitAll(wt, 'agent work');
      assert.equal(commit, sha(wt));
      assert.equal(sha(wt, 'HEAD^'), inSubfolder);
      assert.deepEqual((await landing.changedBetween(repo, base, 'agents/c')).sort(), ['gone.txt', 'new/file.ts']);
      assert.equal(status(wt), '');
    });

    it('currentBranch: the branch, or undefined when detached', async () => {
      assert.equal(await landing.currentBranch(repo), 'main');
      git(repo, 'checkout', '--quiet', '--detach');
      assert.equal(await landing.currentBranch(repo), undefined);
    });
  });

  describe('saveWork and restoreWork', () => {
    /** An agent worktree with one of every kind of change. */
    const busyWorktree = async () => {
      const wt = await agent('busy', { 'tool.sh': '#!/bin/sh\necho committed\n' });
      await chmod(join(wt, 'tool.sh'), 0o755);
      git(wt, 'commit', '--quiet', '-am', 'executable');
      await write(wt, 'src/app.ts', 'line 1\nline 2 uncommitted\nline 3\n');
      await rm(join(wt, 'gone.txt'));
      await write(wt, 'notes/untracked.md', 'not added\n');
      await write(wt, 'run.sh', '#!/bin/sh\necho new\n');
      await chmod(join(wt, 'run.sh'), 0o755);
      await write(wt, 'logo.png', pngBytes);
      await write(wt, 'build.log', 'ignored, not saved\n');
      if (process.platform !== 'win32') {
        await symlink('src/app.ts', join(wt, 'app-link'));
      }
      return wt;
    };

    it('saves without touching index, HEAD or files, and restores byte for byte after a forced removal', async () => {
      const wt = await busyWorktree();
      const indexFile = resolve(wt, git(wt, 'rev-parse', '--git-path', 'index').trim());
      const indexBefore = await readFile(indexFile);
      const filesBefore = await listing(wt);
      const statusBefore = status(wt);
      const head = sha(wt);
      const worktree = recordWorkspace(wt);

      const saved = await landing.saveWork(wt, 'refs/parallel-agents/busy', 'Saved work of busy');
      assertUntouched(worktree, 'saving work only adds its ref', { except: ['ref refs/parallel-agents/busy'] });
      assert.deepEqual(await readFile(indexFile), indexBefore);
      assert.equal(sha(wt), head);
      assert.deepEqual(await listing(wt), filesBefore);
      assert.equal(status(wt), statusBefore);
      assert.equal(sha(repo, 'refs/parallel-agents/busy'), saved.sha);
      assert.equal(sha(repo, `${saved.sha}^`), head);
      assert.ok(Math.abs(saved.date - Date.now()) < 60_000);
      const tree = git(repo, 'ls-tree', '-r', '--name-only', saved.sha).split('\n');
      assert.ok(tree.includes('notes/untracked.md') && !tree.includes('build.log') && !tree.includes('gone.txt'));

      git(repo, 'worktree', 'remove', '--force', wt);
      git(repo, 'branch', '-D', 'agents/busy');
      await landing.restoreWork(repo, wt, 'agents/busy', 'refs/parallel-agents/busy');
      assert.equal(sha(wt), head);
      assert.equal(await landing.currentBranch(wt), 'agents/busy');
      assert.deepEqual(
        await listing(wt),
        filesBefore.filter((l) => !l.startsWith('build.log')),
      );
      assert.equal(status(wt), statusBefore.replace('?? build.log\n', ''));
      assert.equal(git(wt, 'diff', '--cached', '--name-only'), '');
    });

    it('restores onto the branch when it still points at the saved base; refuses a moved branch, leaving nothing', async () => {
      const wt = await busyWorktree();
      const filesBefore = await listing(wt);
      await landing.saveWork(wt, 'refs/parallel-agents/busy', 'save');
      git(repo, 'worktree', 'remove', '--force', wt);
      await landing.restoreWork(repo, wt, 'agents/busy', 'refs/parallel-agents/busy');
      assert.deepEqual(
        await listing(wt),
        filesBefore.filter((l) => !l.startsWith('build.log')),
      );

      git(repo, 'worktree', 'remove', '--force', wt);
      git(repo, 'branch', '--force', 'agents/busy', base);
      const worktrees = registered(repo);
      const error = await rejectsWith(
        landing.restoreWork(repo, wt, 'agents/busy', 'refs/parallel-agents/busy'),
        'worktreeFailed',
      );
      assert.ok(AgentError.isCode(error, 'branchMovedSinceSave'), error.code);
      assert.match(englishMessage(error), /agents\/busy/);
      assert.deepEqual(registered(repo), worktrees);
      assert.ok(!existsSync(wt));
    });

    /** Every path of the saved commit with its mode and blob, as `git ls-tree -r` gives them. */
    const savedTree = (commit: string) => git(repo, 'ls-tree', '-r', commit);
    /** What `git add --all` of the files as they are would commit, through a fresh index from HEAD. */
    const treeOfFiles = async (wt: string): Promise<string> => {
      const index = join(root, `fresh-index-${Date.now()}`);
      const env = { ...process.env, GIT_INDEX_FILE: index };
      const run = (...args: string[]) => execFileSync('git', args, { cwd: wt, encoding: 'utf8', env });
      run('read-tree', 'HEAD');
      run('add', '--all', '--', ':/');
      const tree = run('write-tree').trim();
      await rm(index, { force: true });
      return git(repo, 'ls-tree', '-r', tree);
    };
    const logged = () => {
      const lines: string[] = [];
      const logger = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error() {} };
      return { lines, git: new NodeGit({ logger }) };
    };

    it('saves changes that the index hides: assume-unchanged, skip-worktree, a lying fsmonitor, a racy entry, staged then edited', async () => {
      const wt = await busyWorktree();
      await write(wt, 'src/util.ts', 'export const u = 2;\n');
      git(wt, 'update-index', '--assume-unchanged', 'src/util.ts');
      await write(wt, 'README.md', '# readme, edited under skip-worktree\n');
      git(wt, 'update-index', '--skip-worktree', 'README.md');
      // Staged, then edited again: the file as it is now is what counts.
      await write(wt, 'staged.txt', 'staged version\n');
      git(wt, 'add', 'staged.txt');
      await write(wt, 'staged.txt', 'edited after staging\n');
      // Same size and mtime as staged, the index written within the same tick as that mtime:
      // only git's racy-entry check (entries not older than their index are reread) tells.
      const { utimes } = await import('node:fs/promises');
      const hourAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
      await write(wt, 'same-size.txt', 'AAAA\n');
      await utimes(join(wt, 'same-size.txt'), hourAgo, hourAgo);
      git(wt, 'add', 'same-size.txt');
      await write(wt, 'same-size.txt', 'BBBB\n');
      await utimes(join(wt, 'same-size.txt'), hourAgo, hourAgo);
      await utimes(resolve(wt, git(wt, 'rev-parse', '--git-path', 'index').trim()), hourAgo, hourAgo);
      // Settings that would hide a change, had the save trusted them: a file system monitor that
      // says nothing changed (as a stale or broken one would), less stat data.
      if (process.platform !== 'win32') {
        const monitor = join(root, 'lying-fsmonitor.sh');
        await writeFile(monitor, '#!/bin/sh\nprintf "token-%s\\0" "$(date +%s%N)"\n', { mode: 0o755 });
        git(wt, 'config', 'core.fsmonitor', monitor);
        git(wt, 'config', 'core.fsmonitorHookVersion', '2');
        git(wt, 'status', '--porcelain');
        git(wt, 'status', '--porcelain');
        await write(wt, 'tool.sh', '#!/bin/sh\necho changed behind the monitor\n');
        assert.doesNotMatch(status(wt), /tool\.sh/, 'git status itself misses it');
      }
      git(wt, 'config', 'core.trustctime', 'false');
      git(wt, 'config', 'core.checkStat', 'minimal');
      const indexFile = resolve(wt, git(wt, 'rev-parse', '--git-path', 'index').trim());
      const indexBefore = await readFile(indexFile);
      const flagsBefore = git(wt, 'ls-files', '-v');
      assert.match(flagsBefore, /^h src\/util\.ts$/m);
      assert.match(flagsBefore, /^S README\.md$/m);
      const worktree = recordWorkspace(wt);

      const { lines, git: saver } = logged();
      const saved = await saver.saveWork(wt, 'refs/parallel-agents/hidden', 'save');
      assertUntouched(worktree, 'saving work only adds its ref', { except: ['ref refs/parallel-agents/hidden'] });
      assert.deepEqual(await readFile(indexFile), indexBefore, 'the real index keeps its bytes and flags');
      assert.equal(git(wt, 'ls-files', '-v'), flagsBefore);
      assert.deepEqual(lines, [], 'the copy of the index was used');
      const show = (file: string) => git(repo, 'show', `${saved.sha}:${file}`);
      assert.equal(show('src/util.ts'), 'export const u = 2;\n');
      assert.equal(show('README.md'), '# readme, edited under skip-worktree\n');
      assert.equal(show('staged.txt'), 'edited after staging\n');
      assert.equal(show('same-size.txt'), 'BBBB\n');
      if (process.platform !== 'win32') {
        assert.equal(show('tool.sh'), '#!/bin/sh\necho changed behind the monitor\n');
        git(wt, 'config', '--unset', 'core.fsmonitor');
      }
      git(wt, 'update-index', '--no-assume-unchanged', 'src/util.ts');
      git(wt, 'update-index', '--no-skip-worktree', 'README.md');
      assert.equal(savedTree(saved.sha), await treeOfFiles(wt), 'the same tree as hashing every file gives');
    });

    it('copies a split index too, and falls back to an index from HEAD when there is no index to copy', async () => {
      const wt = await busyWorktree();
      git(wt, 'update-index', '--split-index');
      git(wt, 'add', '--intent-to-add', 'notes/untracked.md');
      const split = logged();
      const worktree = recordWorkspace(wt);
      const saved = await split.git.saveWork(wt, 'refs/parallel-agents/split', 'save');
      assertUntouched(worktree, 'saving work only adds its ref', { except: ['ref refs/parallel-agents/split'] });
      assert.deepEqual(split.lines, []);
      assert.equal(savedTree(saved.sha), await treeOfFiles(wt));

      await rm(resolve(wt, git(wt, 'rev-parse', '--git-path', 'index').trim()));
      const none = logged();
      const again = await none.git.saveWork(wt, 'refs/parallel-agents/none', 'save');
      assert.ok(
        none.lines.some((l) => /from HEAD, not from a copy of its index/.test(l)),
        none.lines.join('\n'),
      );
      assert.equal(savedTree(again.sha), savedTree(saved.sha));
    });

    it("saves a clean worktree as a new commit with HEAD's tree; lists and deletes saved work", async () => {
      const wt = await agent('clean', { 'a.txt': 'a\n' });
      const saved = await landing.saveWork(wt, 'refs/parallel-agents/clean', 'save');
      assert.notEqual(saved.sha, sha(wt));
      assert.equal(sha(repo, `${saved.sha}^{tree}`), sha(wt, 'HEAD^{tree}'));
      const listed = await landing.listSavedWork(repo, 'refs/parallel-agents/');
      assert.deepEqual(listed, [saved]);
      await landing.deleteRef(repo, saved.ref);
      assert.deepEqual(await landing.listSavedWork(repo, 'refs/parallel-agents/'), []);
      await rejectsWith(landing.saveWork(wt, 'parallel-agents/clean', 'save'), 'gitFailed');
    });
  });

  describe('isMergedByContent', () => {
    it('recognises squash- and merge-landed branches, not an unmerged one', async () => {
      const squashed = await agent('squashed', { 'src/s.ts': 's\n', 'src/app.ts': 'line 1\nsquash\nline 3\n' });
      const merged = await agent('merged', { 'src/r.ts': 'r\n' });
      await agent('open', { 'src/o.ts': 'o\n' });
      assert.equal(await landing.isMergedByContent(repo, 'agents/squashed', 'main'), false);

      assert.ok((await landing.land(repo, squashed, 'agents/squashed', 'squash', 'squash it')).ok);
      assert.ok((await landing.land(repo, merged, 'agents/merged', 'merge', 'merge it')).ok);
      await write(repo, 'README.md', 'main moves on\n');
      git(repo, 'commit', '--quiet', '-am', 'later');
      assert.equal(await landing.isMergedByContent(repo, 'agents/squashed', 'main'), true);
      assert.equal(await landing.isMergedByContent(repo, 'agents/merged', 'main'), true);
      assert.equal(await landing.isMergedByContent(repo, 'agents/open', 'main'), false);
      assert.equal(await new NodeGit({ mergeTree: 'none' }).isMergedByContent(repo, 'agents/squashed', 'main'), true);
      // Once main edits a squashed file again, neither rule can tell: the answer errs towards keeping the branch.
      await write(repo, 'src/s.ts', 's, edited later on main\n');
      git(repo, 'commit', '--quiet', '-am', 'edits the squashed file');
      assert.equal(await landing.isMergedByContent(repo, 'agents/squashed', 'main'), false);
    });

    it('recognises a branch landed by rebase', async () => {
      const wt = await agent('re', { 'src/re.ts': 're\n' });
      await write(repo, 'README.md', 'moved\n');
      git(repo, 'commit', '--quiet', '-am', 'moved');
      const before = sha(repo, 'agents/re');
      assert.ok((await landing.land(repo, wt, 'agents/re', 'rebase', 'x')).ok);
      git(repo, 'branch', 'old-re', before);
      assert.equal(await landing.isMergedByContent(repo, 'old-re', 'main'), true);
    });
  });

  describe('restoreFile', () => {
    it('restores a modified file, deletes an added one, brings back a deleted one', async () => {
      const wt = await agent('files', { 'src/app.ts': 'changed\n', 'src/new/added.ts': 'added\n' });
      await rm(join(wt, 'gone.txt'));
      await landing.restoreFile(wt, base, 'src/app.ts');
      await landing.restoreFile(wt, base, 'src/new/added.ts');
      await landing.restoreFile(wt, base, 'gone.txt');
      assert.equal(await readFile(join(wt, 'src/app.ts'), 'utf8'), 'line 1\nline 2\nline 3\n');
      assert.ok(!existsSync(join(wt, 'src/new')), 'the emptied folder is gone too');
      assert.equal(await readFile(join(wt, 'gone.txt'), 'utf8'), 'to be deleted\n');
      assert.equal(git(wt, 'diff', '--cached', '--name-only'), '');
      assert.equal(git(wt, 'diff', '--name-only', base).trim(), '');
      await rejectsWith(landing.restoreFile(wt, base, '../outside.txt'), 'gitFailed');
      assert.ok((await stat(join(wt, 'src'))).isDirectory());
    });

    it('refuses a path outside the folder, the folder itself or an absolute path, naming it, and deletes nothing', async () => {
      const wt = await agent('outside', { 'src/app.ts': 'changed\n' });
      await write(root, 'outside.txt', 'not the agent’s\n');
      const before = recordWorkspace(wt);
      for (const bad of ['../outside.txt', '', '.', 'src/..', join(root, 'outside.txt'), 'src/../../outside.txt']) {
        const e = await rejectsWith(landing.restoreFile(wt, base, bad), 'gitFailed');
        assert.deepEqual(
          { code: e.code, data: e.data },
          { code: 'fileOutsideFolder', data: { path: bad, cwd: wt } },
          bad,
        );
      }
      assertUntouched(before, 'refused restores');
      assert.equal(await readFile(join(root, 'outside.txt'), 'utf8'), 'not the agent’s\n');
    });

    it('deleting an added file removes only the folders it leaves empty, never the folder itself', async () => {
      const wt = await agent('nested', { 'a/b/c/added.ts': 'added\n', 'a/keep.txt': 'kept\n' });
      await landing.restoreFile(wt, base, 'a/b/c/added.ts');
      assert.ok(!existsSync(join(wt, 'a/b')), 'a/b/c and a/b were left empty: gone');
      assert.equal(await readFile(join(wt, 'a/keep.txt'), 'utf8'), 'kept\n', 'a still holds a file: kept');
      const flat = await agent('flat', { 'top.ts': 'added\n' });
      await landing.restoreFile(flat, base, 'top.ts');
      assert.ok(!existsSync(join(flat, 'top.ts')));
      assert.ok((await stat(flat)).isDirectory(), 'the worktree folder itself stays');
      assert.ok(existsSync(join(flat, '.git')));
    });
  });
});
