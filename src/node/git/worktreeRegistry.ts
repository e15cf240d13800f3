/** Reading `git worktree list`: the one place that runs it, finds a worktree in it, and checks one. */
import { AgentError } from '../../core/errors';
import type { WorktreeEntry } from '../../core/git';
import { canonicalPath } from '../fileSystem';
import type { GitRunner } from './runner';
import { parseWorktreeList } from './worktreeParsers';

/** `git worktree list --porcelain -z`, the main worktree first. */
export async function listWorktrees(runner: GitRunner, repoRoot: string): Promise<WorktreeEntry[]> {
  return parseWorktreeList((await runner.run(repoRoot, ['worktree', 'list', '--porcelain', '-z'])).stdout);
}

/** The worktree git lists at `target` (paths compared by canonicalPath), or undefined. */
export async function findWorktree(
  runner: GitRunner,
  repoRoot: string,
  target: string,
): Promise<WorktreeEntry | undefined> {
  const wanted = await canonicalPath(target);
  for (const entry of await listWorktrees(runner, repoRoot)) {
    if ((await canonicalPath(entry.path)) === wanted) {
      return entry;
    }
  }
  return undefined;
}

/** Throws (reason worktreeFailed) unless git lists a worktree at `target` with `branch` checked out. */
export async function verifyCheckedOut(
  runner: GitRunner,
  repoRoot: string,
  target: string,
  branch: string,
): Promise<void> {
  const entry = await findWorktree(runner, repoRoot, target);
  if (!entry) {
    throw new AgentError('worktreeNotListed', { path: target });
  }
  if (entry.branch !== `refs/heads/${branch}`) {
    throw new AgentError('worktreeOnOtherBranch', { path: target, branch: entry.branch, expected: branch });
  }
}
