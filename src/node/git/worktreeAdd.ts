/**
 * `git worktree add -b`: the one git write that may leave something behind when it fails (a branch,
 * a half-written folder, a registration), so each try is verified against `git worktree list` and
 * undone before it is reported or retried.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError, type AgentErrorData } from '../../core/errors';
import { pathExists } from '../fileSystem';
import { diskFullError } from './diskSpace';
import { stderrOf } from './errors';
import { isFullSha } from './refParsers';
import { branchExists } from './refs';
import type { GitRunner } from './runner';
import { findWorktree } from './worktreeRegistry';

/** Adds the worktree; the caller holds the repository's write queue. */
export async function addWorktree(
  runner: GitRunner,
  repoRoot: string,
  dir: string,
  branch: string,
  baseSha: string,
): Promise<void> {
  const target = path.resolve(repoRoot, dir);
  if (await branchExists(runner, repoRoot, branch, 'worktreeFailed')) {
    throw new AgentError('branchExists', { branch });
  }
  const folderExisted = await pathExists(target);
  const args = ['worktree', 'add', '-b', branch, target, baseSha];
  try {
    // A lock failure may come after -b made the branch: each try undoes itself, then the whole add is retried.
    let undone = true;
    await runner.retryOnLock(
      repoRoot,
      args,
      async () => {
        try {
          await runner.text(repoRoot, args);
          await verifyRegistration(runner, repoRoot, target, branch, baseSha);
        } catch (e) {
          // Asked before the cleanup frees the space again.
          const full = await diskFullError(e, target);
          undone = await undoAdd(runner, { repoRoot, target, branch, baseSha, folderExisted });
          throw full ?? e;
        }
      },
      () => undone,
    );
  } catch (e) {
    throw runner.fail(e, repoRoot, args, 'worktreeFailed');
  }
}

/** An exit code of 0 is not enough: a racing add can exit 0 yet leave no usable registration. */
async function verifyRegistration(
  runner: GitRunner,
  repoRoot: string,
  target: string,
  branch: string,
  baseSha: string,
): Promise<void> {
  const entry = await findWorktree(runner, repoRoot, target);
  const problem: AgentErrorData['worktreeNotCreated'] | undefined = !entry
    ? { path: target, problem: 'notListed' }
    : entry.branch !== `refs/heads/${branch}`
      ? { path: target, problem: 'otherBranch', branch: entry.branch, expected: branch }
      : isFullSha(baseSha) && entry.head?.toLowerCase() !== baseSha.toLowerCase()
        ? { path: target, problem: 'otherHead', head: entry.head, expected: baseSha }
        : entry.locked !== undefined || entry.prunable !== undefined
          ? { path: target, problem: entry.locked !== undefined ? 'locked' : 'prunable' }
          : undefined;
  if (problem) {
    throw new AgentError('worktreeNotCreated', problem);
  }
}

interface FailedAdd {
  readonly repoRoot: string;
  readonly target: string;
  readonly branch: string;
  readonly baseSha: string;
  readonly folderExisted: boolean;
}

/**
 * Leaves nothing of a failed add behind, and a folder that existed before it (git accepts an
 * empty one) as it was. True when neither the branch nor a new folder is left.
 */
async function undoAdd(runner: GitRunner, add: FailedAdd): Promise<boolean> {
  const { repoRoot, target, branch, baseSha, folderExisted } = add;
  const attempt = async (what: string, step: () => Promise<unknown>) => {
    try {
      await step();
    } catch (e) {
      runner.logger?.warn(`[Git] cleaning up the failed worktree ${target}: ${what} failed — ${stderrOf(e)}`);
    }
  };
  // Without its .git file the target holds no checkout, and git keeps no registration of a failed
  // add: nothing to ask `worktree list` about (which a concurrent add may have made unreadable).
  const checkedOut = () => pathExists(path.join(target, '.git'));
  await attempt('removing the worktree', async () => {
    if ((await checkedOut()) && (await findWorktree(runner, repoRoot, target))) {
      await runner.text(repoRoot, ['worktree', 'remove', '--force', '--force', target]);
      if (folderExisted) {
        await fs.mkdir(target, { recursive: true });
      }
    } else if (!folderExisted && (await pathExists(target))) {
      await fs.rm(target, { recursive: true, force: true });
    }
  });
  await attempt('pruning', () => runner.text(repoRoot, ['worktree', 'prune']));
  await attempt('deleting the branch', async () => {
    // update-ref, unlike branch -D, does not read the worktree registry; the branch was made by
    // this add, at the base.
    if (!(await checkedOut()) && (await branchExists(runner, repoRoot, branch, 'worktreeFailed'))) {
      await runner.text(repoRoot, [
        'update-ref',
        '-d',
        `refs/heads/${branch}`,
        ...(isFullSha(baseSha) ? [baseSha] : []),
      ]);
    }
  });
  const branchLeft = await branchExists(runner, repoRoot, branch, 'worktreeFailed').catch(() => true);
  return !branchLeft && (folderExisted || !(await pathExists(target)));
}
