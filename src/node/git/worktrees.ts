/** Worktrees: WorktreeGit on the real git binary. Adds, removals and prunes run on the repository's write queue. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { WorktreeEntry, WorktreeGit } from '../../core/git';
import { pathExists } from '../fileSystem';
import { atLeast, type GitRunner } from './runner';
import { registerWorktree } from './worktreeAdd';
import { checkOutNewWorktree } from './worktreeCheckout';
import { findWorktree, listWorktrees, readRegistration, verifyCheckedOut } from './worktreeRegistry';
import { WorktreeTrash } from './worktreeTrash';
import { excludeLocally, initSubmodules, isIgnored, worktreeIncludes } from './worktreeSetup';

/**
 * How a new worktree's files are checked out: 'separate' registers it on the write queue with
 * `--no-checkout` and checks it out outside the queue (needs `git hook run`, git 2.36); 'inline'
 * lets `git worktree add` do both on the queue. Default: 'separate' when git has it.
 */
export type WorktreeCheckout = 'separate' | 'inline';

export class Worktrees implements WorktreeGit {
  private checkoutMode?: Promise<WorktreeCheckout>;
  private readonly trash: WorktreeTrash;

  constructor(
    private readonly runner: GitRunner,
    checkout?: WorktreeCheckout,
  ) {
    // Both modes give the same worktree and one hook run; the mode only decides what holds the write queue.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, see above
    this.checkoutMode = checkout && Promise.resolve(checkout);
    this.trash = new WorktreeTrash(runner.logger);
  }

  /** Resolves once the files of every worktree force-removed so far are deleted (they go in the background). */
  whenFilesDeleted(): Promise<void> {
    return this.trash.settled();
  }

  async addWorktree(
    repoRoot: string,
    dir: string,
    branch: string,
    baseSha: string,
    onCheckout?: () => void,
  ): Promise<void> {
    // Both modes give the same worktree and one hook run; the mode only decides what holds the write queue.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: equivalent, see above
    const separate = (await this.checkout(repoRoot)) === 'separate';
    const adding = this.runner.write(repoRoot, () =>
      registerWorktree(this.runner, repoRoot, dir, branch, baseSha, !separate),
    );
    if (!separate) {
      onCheckout?.();
      await adding;
      return;
    }
    // Its git process is started before onCheckout runs: whatever that starts overlaps the checkout.
    const checkout = checkOutNewWorktree(this.runner, await adding);
    onCheckout?.();
    await checkout;
  }

  checkoutWorktree(repoRoot: string, dir: string, branch: string): Promise<void> {
    return this.runner.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      const folderExisted = await pathExists(target);
      try {
        await this.runner.run(repoRoot, ['worktree', 'add', target, branch], { reason: 'worktreeFailed' });
        await verifyCheckedOut(this.runner, repoRoot, target, branch);
      } catch (e) {
        const quietly = (args: string[]) => this.runner.exec(repoRoot, args).catch(() => undefined);
        if (!folderExisted) {
          await quietly(['worktree', 'remove', '--force', '--force', target]);
          await fs.rm(target, { recursive: true }).catch(() => undefined);
          await quietly(['worktree', 'prune']);
        }
        throw e;
      }
    });
  }

  removeWorktree(repoRoot: string, dir: string, force: boolean): Promise<void> {
    return this.runner.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      if (await pathExists(target)) {
        // Forced: nothing in it is kept, so its files need not be gone before the registration is.
        const aside =
          force && (await readRegistration(this.runner, repoRoot, target))
            ? await this.trash.moveAside(target)
            : undefined;
        try {
          await this.worktreeRemove(repoRoot, target, force);
        } catch (e) {
          if (aside) {
            await this.trash.putBack(aside, target);
          }
          throw e;
        }
        await this.prune(repoRoot);
        // With nothing set aside, .removing/ holds only what earlier removals set aside, which their empty() deletes.
        // Stryker disable next-line ConditionalExpression: equivalent, see above
        if (aside) {
          this.trash.empty(path.dirname(target));
        }
        return;
      }
      // Folder deleted by hand: prune drops the registration unless the worktree is locked.
      await this.prune(repoRoot);
      const entry = await findWorktree(this.runner, repoRoot, target);
      if (entry) {
        if (!force) {
          throw new AgentError('worktreeLocked', { path: target }, entry.locked);
        }
        await this.worktreeRemove(repoRoot, target, true);
      }
    });
  }

  listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
    return listWorktrees(this.runner, repoRoot);
  }

  pruneWorktree(repoRoot: string, dir: string): Promise<void> {
    return this.runner.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      if (await pathExists(target)) {
        throw new AgentError('worktreeStillExists', { path: target });
      }
      // For a registration whose folder is gone, `worktree remove` only drops the registration.
      await this.runner.run(repoRoot, ['worktree', 'remove', target], { reason: 'worktreeFailed' });
    });
  }

  worktreeIncludes(repoRoot: string): Promise<string[]> {
    return worktreeIncludes(this.runner, repoRoot);
  }

  isIgnored(cwd: string, relPath: string): Promise<boolean> {
    return isIgnored(this.runner, cwd, relPath);
  }

  excludeLocally(cwd: string, relPath: string): Promise<void> {
    return excludeLocally(this.runner, cwd, relPath);
  }

  initSubmodules(worktree: string): Promise<string> {
    return initSubmodules(this.runner, worktree);
  }

  // Stryker disable all: equivalent, both checkout modes give the same worktree and one hook run (see addWorktree)
  private checkout(cwd: string): Promise<WorktreeCheckout> {
    this.checkoutMode ??= this.runner.version(cwd).then(
      (v): WorktreeCheckout => (atLeast(v, [2, 36]) ? 'separate' : 'inline'),
      (): WorktreeCheckout => {
        // Asked again next time; the add reports what is wrong with git.
        this.checkoutMode = undefined;
        return 'inline';
      },
    );
    return this.checkoutMode;
  }
  // Stryker restore all

  private async worktreeRemove(repoRoot: string, target: string, force: boolean): Promise<void> {
    const args = ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), target];
    await this.runner.run(repoRoot, args, { reason: 'worktreeFailed' });
  }

  private async prune(repoRoot: string): Promise<void> {
    await this.runner.run(repoRoot, ['worktree', 'prune'], { reason: 'worktreeFailed' });
  }
}
