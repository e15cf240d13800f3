/**
 * Checking out the files of a worktree registered with `--no-checkout`: what `git worktree add`
 * does after registering it (its `reset --hard`, then the post-checkout hook), in the new worktree
 * alone, so it needs no write queue and checkouts of several new worktrees run in parallel.
 */
import * as path from 'node:path';
import { pathExists } from '../fileSystem';
import { diskFullError } from './diskSpace';
import type { GitRunner } from './runner';
import { addArgs, undoAdd, type NewWorktree } from './worktreeAdd';

/** How long a hook path read by RefGit.locate is trusted (a dispatch adds its worktree right after). */
const hookPathMaxAgeMs = 60_000;

/** Writes the files of `add` and runs its post-checkout hook; on failure undoes the whole add. */
export async function checkOutNewWorktree(runner: GitRunner, add: NewWorktree): Promise<void> {
  try {
    // The index of a --no-checkout worktree is empty: a one-tree read-tree -mu writes every file
    // and the index, as reset --hard would, without touching any ref. Submodules stay
    // uninitialised, as `worktree add` leaves them.
    await runner.text(add.target, ['read-tree', '-m', '-u', '--no-recurse-submodules', 'HEAD']);
    await postCheckoutHook(runner, add);
  } catch (e) {
    const full = await diskFullError(e, add.target);
    await runner.write(add.repoRoot, () => undoAdd(runner, add));
    throw runner.fail(full ?? e, add.repoRoot, addArgs(add), 'worktreeFailed');
  }
}

/**
 * Runs the post-checkout hook as `git worktree add` run in the main worktree does: found where git
 * finds it there (core.hooksPath relative to the main worktree), run in the new worktree with a
 * null old head, the new head and 1. No process when there is no hook file.
 */
export async function postCheckoutHook(runner: GitRunner, add: NewWorktree): Promise<void> {
  const hook = runner.hookPath(add.repoRoot, hookPathMaxAgeMs) ?? (await readHookPath(runner, add.repoRoot));
  const candidates = process.platform === 'win32' ? [hook, `${hook}.exe`] : [hook];
  if (!(await anyExists(candidates))) {
    return;
  }
  const head = add.head ?? add.baseSha;
  // core.hooksPath given absolute: `git hook run` in the new worktree would resolve a relative one there.
  await runner.text(add.target, [
    '-c',
    `core.hooksPath=${path.dirname(hook)}`,
    'hook',
    'run',
    '--ignore-missing',
    'post-checkout',
    '--',
    '0'.repeat(head.length),
    head,
    '1',
  ]);
}

async function readHookPath(runner: GitRunner, repoRoot: string): Promise<string> {
  const args = ['rev-parse', '--path-format=absolute', '--git-path', 'hooks/post-checkout'];
  const hook = path.resolve(repoRoot, await runner.out(repoRoot, args));
  runner.learnHookPath(repoRoot, hook);
  return hook;
}

async function anyExists(paths: readonly string[]): Promise<boolean> {
  for (const p of paths) {
    if (await pathExists(p)) {
      return true;
    }
  }
  return false;
}
