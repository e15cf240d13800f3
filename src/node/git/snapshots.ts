/**
 * Parking a worktree's work as a commit on a private ref, and bringing it back. Never the stash:
 * it is shared by every worktree of a repository.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { SavedWork, SnapshotGit } from '../../core/git';
import { pathExists } from '../fileSystem';
import { requireFullRef } from './refs';
import type { GitRunner } from './runner';
import { parseCommitTime, parseHiddenEntries, parseSavedWork } from './snapshotParsers';
import { stderrOf } from './errors';
import { verifyCheckedOut } from './worktreeRegistry';

/**
 * Settings that would let `git add` take a file for unchanged without looking at it: on the
 * temporary index no file system monitor, untracked cache, ignored or reduced stat data is trusted.
 */
const lookAtEveryChange = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.ignoreStat=false',
  '-c',
  'core.checkStat=default',
  '-c',
  'core.trustctime=true',
  '-c',
  'core.splitIndex=false',
];

/**
 * Commits the worktree exactly as it is (tracked changes, deletions, untracked but not ignored
 * files, modes, symlinks) on top of HEAD through a temporary index: the real index, the files and
 * HEAD stay as they were. Runs no hooks. `ref` is a full ref name (checked by Snapshots.saveWork).
 */
async function saveWork(runner: GitRunner, cwd: string, ref: string, message: string): Promise<SavedWork> {
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-save-'));
  const env = { GIT_INDEX_FILE: path.join(temp, 'index') };
  try {
    await seedIndex(runner, cwd, env);
    await runner.run(cwd, [...lookAtEveryChange, 'add', '--all', '--', ':/'], { env });
    const tree = await runner.out(cwd, ['write-tree'], { env });
    const sha = await runner.out(cwd, ['commit-tree', tree, '-p', 'HEAD', '-m', message]);
    await runner.run(cwd, ['update-ref', '-m', 'parallel-agents: save work', ref, sha]);
    const date = parseCommitTime(await runner.out(cwd, ['log', '-1', '--format=%ct', sha]));
    return { ref, sha, date };
  } finally {
    // Stryker disable next-line BooleanLiteral: equivalent, the folder mkdtemp made is there: force changes nothing
    await fs.rm(temp, { recursive: true, force: true });
  }
}

/**
 * Seeds the temporary index with a copy of the worktree's own, so `add` hashes only the files whose
 * stat data changed, not every file. The copy keeps the index's mtime, a millisecond earlier at
 * most: git rereads every entry not older than its index (a file changed within the same tick as
 * it was staged), so an earlier time only rereads more. No entry keeps an assume-unchanged or
 * skip-worktree bit, which would hide its change. A copy that cannot be used (no index yet, a
 * split index whose shared part stays behind) gives way to an index read from HEAD, which hashes
 * every file.
 */
async function seedIndex(runner: GitRunner, cwd: string, env: { GIT_INDEX_FILE: string }): Promise<void> {
  try {
    const gitPath = await runner.out(cwd, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
    const real = path.resolve(cwd, gitPath);
    const before = await fs.stat(real);
    await fs.copyFile(real, env.GIT_INDEX_FILE);
    await fs.utimes(env.GIT_INDEX_FILE, before.atime, new Date(Math.floor(before.mtimeMs) - 1));
    const listed = await runner.out(cwd, [...lookAtEveryChange, 'ls-files', '-v', '-z'], { env });
    const { assumed, skipped } = parseHiddenEntries(listed);
    for (const [flag, paths] of [
      ['--no-assume-unchanged', assumed],
      ['--no-skip-worktree', skipped],
    ] as const) {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, update-index of no path: a no-op
      if (paths.length > 0) {
        const input = `${paths.join('\0')}\0`;
        await runner.run(cwd, [...lookAtEveryChange, 'update-index', flag, '-z', '--stdin'], { env, input });
      }
    }
  } catch (e) {
    runner.logger?.info(`[Git] saving the work of ${cwd} from HEAD, not from a copy of its index: ${stderrOf(e)}`);
    await fs.rm(env.GIT_INDEX_FILE, { force: true });
    await runner.run(cwd, ['read-tree', 'HEAD'], { env });
  }
}

async function resolveCommit(runner: GitRunner, repoRoot: string, rev: string): Promise<string | undefined> {
  const result = await runner.run(
    repoRoot,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    { okCodes: [0, 1] },
  );
  // Stryker disable next-line ConditionalExpression: equivalent, exit 1 prints nothing and '' is no commit either
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

async function isNonEmptyFolder(dir: string): Promise<boolean> {
  return fs.readdir(dir).then(
    (entries) => entries.length > 0,
    // Stryker disable next-line ArrowFunction: equivalent, undefined is as false as false for the caller's if
    () => false,
  );
}

/**
 * Recreates a worktree at `dir` on `branch` at the snapshot's parent (the branch tip when it was
 * saved), then writes the snapshot's files into it, leaving them uncommitted: the index equals
 * HEAD, untracked files come back untracked. Staged-versus-unstaged is not recorded by a snapshot;
 * everything comes back unstaged. On failure nothing is left behind.
 */
async function restoreWork(
  runner: GitRunner,
  repoRoot: string,
  dir: string,
  branch: string,
  ref: string,
): Promise<void> {
  const saved = await resolveCommit(runner, repoRoot, ref);
  if (!saved) {
    throw new AgentError('noSavedWork', { ref });
  }
  const parent = await resolveCommit(runner, repoRoot, `${saved}^1`);
  if (!parent) {
    throw new AgentError('notSavedWork', { ref });
  }
  const target = path.resolve(repoRoot, dir);
  if (await isNonEmptyFolder(target)) {
    throw new AgentError('restoreFolderNotEmpty', { path: target });
  }
  const existing = await resolveCommit(runner, repoRoot, `refs/heads/${branch}`);
  if (existing && existing !== parent) {
    throw new AgentError('branchMovedSinceSave', { branch, now: existing, saved: parent });
  }
  const folderExisted = await pathExists(target);
  const add = existing ? ['worktree', 'add', target, branch] : ['worktree', 'add', '-b', branch, target, parent];
  try {
    await runner.run(repoRoot, add, { reason: 'worktreeFailed' });
    await verifyCheckedOut(runner, repoRoot, target, branch);
    // No-overlay by default: files absent from the snapshot are deleted; the index is not touched.
    await runner.run(target, ['restore', `--source=${saved}`, '--worktree', '--', ':/'], { reason: 'worktreeFailed' });
  } catch (e) {
    await undoRestore(runner, repoRoot, target, existing ? undefined : { branch, parent }, folderExisted);
    throw e;
  }
}

type CreatedBranch = { readonly branch: string; readonly parent: string };

async function undoRestore(
  runner: GitRunner,
  repoRoot: string,
  target: string,
  created: CreatedBranch | undefined,
  folderExisted: boolean,
): Promise<void> {
  const quietly = (args: string[]) => runner.exec(repoRoot, args).catch(() => undefined);
  await quietly(['worktree', 'remove', '--force', '--force', target]);
  // Pruned after its folder is gone: even a worktree git failed to remove then leaves no registration,
  // and no longer holds the branch. The folder was empty when the restore began: it is made empty again.
  await fs.rm(target, { recursive: true }).catch(() => undefined);
  if (folderExisted) {
    await fs.mkdir(target).catch(() => undefined);
  }
  await quietly(['worktree', 'prune']);
  // Only a branch this restore made: still where it was created.
  if (
    created &&
    (await resolveCommit(runner, repoRoot, `refs/heads/${created.branch}`).catch(() => undefined)) === created.parent
  ) {
    await quietly([
      'branch',
      '-D',
      // Stryker disable next-line StringLiteral: equivalent, git deletes the branch all the same beside a '' name
      '--',
      created.branch,
    ]);
  }
}

export class Snapshots implements SnapshotGit {
  constructor(private readonly runner: GitRunner) {}

  async saveWork(cwd: string, ref: string, message: string): Promise<SavedWork> {
    requireFullRef(ref);
    return this.runner.write(cwd, () => saveWork(this.runner, cwd, ref, message));
  }

  saveBranch(repoRoot: string, branch: string, ref: string, message: string): Promise<SavedWork> {
    requireFullRef(ref);
    return this.runner.write(repoRoot, async () => {
      const tipArgs = ['rev-parse', '--verify', '--end-of-options', `refs/heads/${branch}^{commit}`];
      const tip = await this.runner.out(repoRoot, tipArgs);
      const sha = await this.runner.out(repoRoot, ['commit-tree', `${tip}^{tree}`, '-p', tip, '-m', message]);
      await this.runner.run(repoRoot, ['update-ref', '-m', 'parallel-agents: save work', ref, sha]);
      const date = parseCommitTime(await this.runner.out(repoRoot, ['log', '-1', '--format=%ct', sha]));
      return { ref, sha, date };
    });
  }

  restoreWork(repoRoot: string, dir: string, branch: string, ref: string): Promise<void> {
    return this.runner.write(repoRoot, () => restoreWork(this.runner, repoRoot, dir, branch, ref));
  }

  async listSavedWork(repoRoot: string, prefix: string): Promise<SavedWork[]> {
    const format = '--format=%(refname)%00%(objectname)%00%(committerdate:unix)';
    const args = [
      'for-each-ref',
      format,
      // Stryker disable next-line StringLiteral: equivalent, '' is a pattern no ref matches: the prefix alone picks
      '--',
      prefix,
    ];
    return parseSavedWork(await this.runner.out(repoRoot, args));
  }
}
