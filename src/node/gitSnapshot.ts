/**
 * Parking a worktree's work as a commit on a private ref, and bringing it back. Never the stash:
 * it is shared by every worktree of a repository.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../core/errors';
import type { SavedWork } from '../core/ports';
import type { GitRunner } from './git/runner';
import { requireFullRef } from './git/refs';
import { pathExists } from './fileSystem';
import { verifyCheckedOut } from './gitWorktrees';

/**
 * Commits the worktree exactly as it is (tracked changes, deletions, untracked but not ignored
 * files, modes, symlinks) on top of HEAD through a temporary index: the real index, the files and
 * HEAD stay as they were. The index is seeded from HEAD rather than copied, so no stat cache or
 * assume-unchanged bit can hide a change. Runs no hooks.
 */
export async function saveWork(context: GitRunner, cwd: string, ref: string, message: string): Promise<SavedWork> {
  requireFullRef(ref);
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-save-'));
  const env = { GIT_INDEX_FILE: path.join(temp, 'index') };
  try {
    await context.run(cwd, ['read-tree', 'HEAD'], { env });
    await context.run(cwd, ['add', '--all', '--', ':/'], { env });
    const tree = await context.out(cwd, ['write-tree'], { env });
    const sha = await context.out(cwd, ['commit-tree', tree, '-p', 'HEAD', '-m', message]);
    await context.run(cwd, ['update-ref', '-m', 'parallel-agents: save work', ref, sha]);
    const seconds = await context.out(cwd, ['log', '-1', '--format=%ct', sha]);
    return { ref, sha, date: Number.parseInt(seconds, 10) * 1000 };
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

async function resolveCommit(context: GitRunner, repoRoot: string, rev: string): Promise<string | undefined> {
  const result = await context.run(
    repoRoot,
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    { okCodes: [0, 1] },
  );
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
}

async function isNonEmptyFolder(dir: string): Promise<boolean> {
  return fs.readdir(dir).then(
    (entries) => entries.length > 0,
    () => false,
  );
}

/**
 * Recreates a worktree at `dir` on `branch` at the snapshot's parent (the branch tip when it was
 * saved), then writes the snapshot's files into it, leaving them uncommitted: the index equals
 * HEAD, untracked files come back untracked. Staged-versus-unstaged is not recorded by a snapshot;
 * everything comes back unstaged. On failure nothing is left behind.
 */
export async function restoreWork(
  context: GitRunner,
  repoRoot: string,
  dir: string,
  branch: string,
  ref: string,
): Promise<void> {
  const saved = await resolveCommit(context, repoRoot, ref);
  if (!saved) {
    throw new AgentError('noSavedWork', { ref });
  }
  const parent = await resolveCommit(context, repoRoot, `${saved}^1`);
  if (!parent) {
    throw new AgentError('notSavedWork', { ref });
  }
  const target = path.resolve(repoRoot, dir);
  if (await isNonEmptyFolder(target)) {
    throw new AgentError('restoreFolderNotEmpty', { path: target });
  }
  const existing = await resolveCommit(context, repoRoot, `refs/heads/${branch}`);
  if (existing && existing !== parent) {
    throw new AgentError('branchMovedSinceSave', { branch, now: existing, saved: parent });
  }
  const folderExisted = await pathExists(target);
  const add = existing ? ['worktree', 'add', target, branch] : ['worktree', 'add', '-b', branch, target, parent];
  try {
    await context.run(repoRoot, add, { reason: 'worktreeFailed' });
    await verifyCheckedOut(context, repoRoot, target, branch);
    // No-overlay by default: files absent from the snapshot are deleted; the index is not touched.
    await context.run(target, ['restore', `--source=${saved}`, '--worktree', '--', ':/'], { reason: 'worktreeFailed' });
  } catch (e) {
    await undoRestore(context, repoRoot, target, existing ? undefined : { branch, parent }, folderExisted);
    throw e;
  }
}

type CreatedBranch = { readonly branch: string; readonly parent: string };

async function undoRestore(
  context: GitRunner,
  repoRoot: string,
  target: string,
  created: CreatedBranch | undefined,
  folderExisted: boolean,
): Promise<void> {
  const quietly = (args: string[]) => context.exec(repoRoot, args).catch(() => undefined);
  await quietly(['worktree', 'remove', '--force', '--force', target]);
  await quietly(['worktree', 'prune']);
  // Only a branch this restore made: still where it was created.
  if (
    created &&
    (await resolveCommit(context, repoRoot, `refs/heads/${created.branch}`).catch(() => undefined)) === created.parent
  ) {
    await quietly(['branch', '-D', '--', created.branch]);
  }
  if (!folderExisted) {
    await fs.rm(target, { recursive: true, force: true }).catch(() => undefined);
  } else {
    await fs.mkdir(target, { recursive: true }).catch(() => undefined);
  }
}
