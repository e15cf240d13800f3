/**
 * The git side of the warm worktree pool (core/worktrees/worktreePool.ts). Filling runs at the
 * lowest priority and holds the repository's write queue only to register the worktree; taking
 * one for a dispatch is three small git processes on the queue: `worktree move` (a rename), then
 * for an entry at the dispatch's commit `update-ref` (the new branch) and `symbolic-ref` (HEAD),
 * or for one behind it `checkout -b` (the branch and the files that differ).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { PoolGit } from '../../core/worktrees';
import { pathExists } from '../fileSystem';
import { branchExists } from './refs';
import type { GitRunner } from './runner';
import { postCheckoutHook } from './worktreeCheckout';
import { readRegistration } from './worktreeRegistry';

type Remover = (repoRoot: string, dir: string, force: boolean) => Promise<void>;

export class NodePoolGit implements PoolGit {
  constructor(
    private readonly runner: GitRunner,
    /** WorktreeGit.removeWorktree: forced, the folder is renamed aside and deleted in the background. */
    private readonly removeWorktree: Remover,
    /** WorktreeGit.whenFilesDeleted: resolves once the background deletions started so far have ended. */
    private readonly filesDeleted: () => Promise<void>,
  ) {}

  whenRemoved(): Promise<void> {
    return this.filesDeleted();
  }

  head(repoRoot: string): Promise<string> {
    return this.runner.out(repoRoot, ['rev-parse', '--verify', 'HEAD^{commit}']);
  }

  async addDetached(repoRoot: string, dir: string, sha: string): Promise<void> {
    await fs.mkdir(path.dirname(dir), { recursive: true });
    await this.runner.write(repoRoot, () =>
      this.runner.run(repoRoot, ['worktree', 'add', '--no-checkout', '--detach', dir, sha], {
        reason: 'worktreeFailed',
      }),
    );
    const entry = await readRegistration(this.runner, repoRoot, dir);
    if (!entry?.detached || entry.head !== sha) {
      throw new AgentError('worktreeNotCreated', { path: dir, problem: 'otherHead', head: entry?.head, expected: sha });
    }
    // As `git worktree add` would: every file and the index, then the post-checkout hook.
    await this.runner.run(dir, ['read-tree', '-m', '-u', '--no-recurse-submodules', 'HEAD'], {
      reason: 'worktreeFailed',
      lowPriority: true,
    });
    await postCheckoutHook(this.runner, { repoRoot, target: dir, branch: '', baseSha: sha, folderExisted: false });
  }

  async moveDetached(dir: string, sha: string): Promise<void> {
    await this.runner.run(dir, ['checkout', '--quiet', '--detach', sha], {
      reason: 'worktreeFailed',
      lowPriority: true,
    });
  }

  takeInto(repoRoot: string, dir: string, target: string, branch: string, sha: string): Promise<void> {
    return this.runner.write(repoRoot, async () => {
      if (await pathExists(target)) {
        throw new AgentError('worktreeStillExists', { path: target });
      }
      await this.runner.run(repoRoot, ['worktree', 'move', dir, target], { reason: 'worktreeFailed' });
      let branchMade = false;
      try {
        const moved = await readRegistration(this.runner, repoRoot, target);
        if (moved?.detached && moved.head === sha) {
          // At the commit already: the branch and HEAD only, no walk over the files (`checkout -b`
          // would stat every one). The empty old value makes update-ref refuse a branch that exists.
          await this.runner.run(
            repoRoot,
            ['update-ref', '-m', `branch: Created from ${sha}`, `refs/heads/${branch}`, sha, ''],
            {
              reason: 'worktreeFailed',
            },
          );
          branchMade = true;
          await this.runner.run(target, ['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { reason: 'worktreeFailed' });
        } else {
          // Moves HEAD to exactly `sha`, writing only the files that changed since the entry's commit.
          // A checkout that fails creates no branch: git makes it only once the files are switched.
          await this.runner.run(target, ['checkout', '--quiet', '-b', branch, sha], { reason: 'worktreeFailed' });
          branchMade = true;
        }
        const entry = await readRegistration(this.runner, repoRoot, target);
        if (entry?.branch !== `refs/heads/${branch}` || entry.head !== sha) {
          throw new AgentError('worktreeNotCreated', {
            path: target,
            problem: 'otherHead',
            head: entry?.head,
            expected: sha,
          });
        }
      } catch (e) {
        await this.undoTake(repoRoot, target, branchMade ? branch : undefined, sha);
        throw e;
      }
    });
  }

  async removeEntry(repoRoot: string, dir: string): Promise<void> {
    if ((await pathExists(dir)) || (await readRegistration(this.runner, repoRoot, dir))) {
      await this.removeWorktree(repoRoot, dir, true);
    }
  }

  /** A take that failed after the move: the worktree and a branch the checkout made go. On the write queue. */
  private async undoTake(repoRoot: string, target: string, branch: string | undefined, sha: string): Promise<void> {
    const quietly = (args: string[]) => this.runner.exec(repoRoot, args).catch(() => undefined);
    await quietly(['worktree', 'remove', '--force', '--force', target]);
    await fs.rm(target, { recursive: true, force: true }).catch(() => undefined);
    await quietly(['worktree', 'prune']);
    if (branch && (await branchExists(this.runner, repoRoot, branch, 'worktreeFailed').catch(() => false))) {
      await quietly(['update-ref', '-d', `refs/heads/${branch}`, sha]);
    }
  }
}
