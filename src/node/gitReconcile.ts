/** GitReconcilePort on the real git binary, sharing GitService's process cap and write queues. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../core/errors';
import type { GitReconcilePort, SavedWork } from '../core/ports';
import type { GitRefInfo } from '../core/reconcile';
import type { WorktreeEntry } from '../core/reconcile';
import type { GitRunner } from './git/runner';
import { requireFullRef } from './git/refs';
import { pathExists } from './fileSystem';
import { listWorktrees, verifyCheckedOut } from './gitWorktrees';

/** for-each-ref lines: name NUL sha NUL parents (space-separated). */
export function parseRefs(output: string): GitRefInfo[] {
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, sha, parents = ''] = line.split('\0');
      const parent = parents.split(' ')[0];
      return parent ? { name, sha, parent } : { name, sha };
    });
}

export class GitReconcile implements GitReconcilePort {
  constructor(private readonly context: GitRunner) {}

  async listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
    return listWorktrees(this.context, repoRoot);
  }

  async listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]> {
    const format = '--format=%(refname)%00%(objectname)%00%(parent)';
    return parseRefs((await this.context.run(repoRoot, ['for-each-ref', format, '--', ...prefixes])).stdout);
  }

  pruneWorktree(repoRoot: string, dir: string): Promise<void> {
    return this.context.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      if (await pathExists(target)) {
        throw new AgentError('worktreeStillExists', { path: target });
      }
      // For a registration whose folder is gone, `worktree remove` only drops the registration.
      await this.context.run(repoRoot, ['worktree', 'remove', target], { reason: 'worktreeFailed' });
    });
  }

  checkoutWorktree(repoRoot: string, dir: string, branch: string): Promise<void> {
    return this.context.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      const folderExisted = await pathExists(target);
      try {
        await this.context.run(repoRoot, ['worktree', 'add', target, branch], { reason: 'worktreeFailed' });
        await verifyCheckedOut(this.context, repoRoot, target, branch);
      } catch (e) {
        const quietly = (args: string[]) => this.context.exec(repoRoot, args).catch(() => undefined);
        if (!folderExisted) {
          await quietly(['worktree', 'remove', '--force', '--force', target]);
          await fs.rm(target, { recursive: true, force: true }).catch(() => undefined);
          await quietly(['worktree', 'prune']);
        }
        throw e;
      }
    });
  }

  async mergeBase(repoRoot: string, a: string, b: string): Promise<string | undefined> {
    const result = await this.context.run(repoRoot, ['merge-base', '--end-of-options', a, b], { okCodes: [0, 1] });
    return result.exitCode === 0 ? result.stdout.trim() : undefined;
  }

  saveBranch(repoRoot: string, branch: string, ref: string, message: string): Promise<SavedWork> {
    requireFullRef(ref);
    return this.context.write(repoRoot, async () => {
      const tip = await this.context.out(repoRoot, [
        'rev-parse',
        '--verify',
        '--end-of-options',
        `refs/heads/${branch}^{commit}`,
      ]);
      const sha = await this.context.out(repoRoot, ['commit-tree', `${tip}^{tree}`, '-p', tip, '-m', message]);
      await this.context.run(repoRoot, ['update-ref', '-m', 'parallel-agents: save work', ref, sha]);
      const seconds = await this.context.out(repoRoot, ['log', '-1', '--format=%ct', sha]);
      return { ref, sha, date: Number.parseInt(seconds, 10) * 1000 };
    });
  }
}
