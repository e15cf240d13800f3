/**
 * `git worktree add -b`: the one git write that may leave something behind when it fails (a branch,
 * a half-written folder, a registration), so each try is verified against the registry's files and
 * undone before it is reported or retried. Registering (branch and registry entry, shared by every
 * worktree of the repository) runs on the repository's write queue; checking out the files of the
 * new worktree, the slow part, may run outside it, in parallel with other checkouts.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError, type AgentErrorData } from '../../core/errors';
import { pathExists } from '../fileSystem';
import { diskFullError } from './diskSpace';
import { GitProcessError, stderrOf } from './errors';
import { isFullSha } from './refParsers';
import { branchExists } from './refs';
import type { GitRunner } from './runner';
import { findWorktree, readRegistration } from './worktreeRegistry';

/** A worktree being added; what undoing it must know. */
export interface NewWorktree {
  readonly repoRoot: string;
  readonly target: string;
  readonly branch: string;
  readonly baseSha: string;
  readonly folderExisted: boolean;
  /** The commit the branch was created at, as the registry says. */
  readonly head?: string;
}

/** The argv reported when any step of an add fails: the user thinks of one `git worktree add`. */
export function addArgs(add: Pick<NewWorktree, 'target' | 'branch' | 'baseSha'>): string[] {
  return ['worktree', 'add', '-b', add.branch, add.target, add.baseSha];
}

/**
 * Adds the worktree and its branch; with `checkout` false its files are not checked out (see
 * checkOutNewWorktree). The caller holds the repository's write queue. A branch that exists
 * already fails with branchExists and is left as it was: git refuses `-b` before creating anything.
 */
export async function registerWorktree(
  runner: GitRunner,
  repoRoot: string,
  dir: string,
  branch: string,
  baseSha: string,
  checkout: boolean,
): Promise<NewWorktree> {
  const target = path.resolve(repoRoot, dir);
  const folderExisted = await pathExists(target);
  const add: NewWorktree = { repoRoot, target, branch, baseSha, folderExisted };
  const args = ['worktree', 'add', ...(checkout ? [] : ['--no-checkout']), '-b', branch, target, baseSha];
  try {
    // A lock failure may come after -b made the branch: each try undoes itself, then the whole add is retried.
    let undone = true;
    return await runner.retryOnLock(
      repoRoot,
      args,
      async () => {
        try {
          await runner.text(repoRoot, args);
          return { ...add, head: await verifyRegistration(runner, add) };
        } catch (e) {
          if (e instanceof GitProcessError && /a branch named '.*' already exists/.test(e.stderr)) {
            throw new AgentError('branchExists', { branch }, e.stderr.trim());
          }
          // Asked before the cleanup frees the space again.
          const full = await diskFullError(e, target);
          undone = await undoAdd(runner, add);
          throw full ?? e;
        }
      },
      () => undone,
    );
  } catch (e) {
    throw runner.fail(e, repoRoot, addArgs(add), 'worktreeFailed');
  }
}

/** An exit code of 0 is not enough: a racing add can exit 0 yet leave no usable registration. The branch's tip. */
async function verifyRegistration(runner: GitRunner, add: NewWorktree): Promise<string | undefined> {
  const { target, branch, baseSha } = add;
  const entry = await readRegistration(runner, add.repoRoot, target);
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
  return entry?.head;
}

/**
 * Leaves nothing of a failed add behind, and a folder that existed before it (git accepts an
 * empty one) as it was. True when neither the branch nor a new folder is left. The caller holds
 * the repository's write queue.
 */
export async function undoAdd(runner: GitRunner, add: NewWorktree): Promise<boolean> {
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
