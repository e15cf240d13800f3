/** GitPort on the real git binary. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { buildChangeSet, countStatusEntries, parsePathList } from '../core/landing';
import type { ChangedFile } from '../core/agent';
import { AgentError, type AgentErrorData } from '../core/errors';
import type { GitPort, Logger, WorkState } from '../core/ports';
import { GitRunner, type GitRunnerOptions } from './git/runner';
import { diskFullError } from './git/diskSpace';
import { GitProcessError, stderrOf, type FailureReason } from './git/errors';
import { sniffBinaryFiles } from './binarySniffer';
import { pathExists } from './fileSystem';
import { findWorktree } from './gitWorktrees';

export interface GitServiceOptions extends GitRunnerOptions {
  /** Shares the process cap and write queues with other git ports; the other options are then ignored. */
  readonly context?: GitRunner;
}

function isFullSha(s: string): boolean {
  return /^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(s);
}

export class GitService implements GitPort {
  /** Writes (worktree add/remove/prune, branch delete) run one at a time per repository, through this. */
  readonly context: GitRunner;
  private readonly runner: GitRunner;
  private readonly logger?: Logger;

  constructor(options: GitServiceOptions = {}) {
    this.context = options.context ?? new GitRunner(options);
    this.runner = this.context;
    this.logger = this.context.logger;
  }

  async repoRoot(folder: string): Promise<string> {
    const out = await this.read(folder, ['rev-parse', '--show-toplevel']);
    return path.normalize(out.trim());
  }

  async headSha(repoRoot: string): Promise<string> {
    const args = ['rev-parse', '--verify', 'HEAD^{commit}'];
    try {
      return (await this.runner.text(repoRoot, args)).trim();
    } catch (e) {
      if (e instanceof GitProcessError && /needed a single revision|unknown revision/i.test(e.stderr)) {
        throw new AgentError('noCommits', { repoRoot }, e.stderr.trim());
      }
      throw this.fail(e, repoRoot, args, 'gitFailed');
    }
  }

  async resolveCommit(repoRoot: string, ref: string): Promise<string> {
    if (ref.startsWith('-')) {
      throw new AgentError('invalidRefName', { ref });
    }
    const args = ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`];
    try {
      return (await this.runner.text(repoRoot, args)).trim();
    } catch (e) {
      if (e instanceof GitProcessError && /needed a single revision|unknown revision|bad revision/i.test(e.stderr)) {
        throw new AgentError('unknownCommit', { ref, repoRoot }, e.stderr.trim());
      }
      throw this.fail(e, repoRoot, args, 'gitFailed');
    }
  }

  async localBranches(repoRoot: string): Promise<Set<string>> {
    const out = await this.read(repoRoot, ['for-each-ref', '--format=%(refname)', 'refs/heads/']);
    const prefix = 'refs/heads/';
    return new Set(
      out
        .split('\n')
        .filter((ref) => ref.startsWith(prefix))
        .map((ref) => ref.slice(prefix.length)),
    );
  }

  addWorktree(repoRoot: string, dir: string, branch: string, baseSha: string): Promise<void> {
    return this.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      if (await this.branchExists(repoRoot, branch)) {
        throw new AgentError('branchExists', { branch });
      }
      const folderExisted = await pathExists(target);
      const args = ['worktree', 'add', '-b', branch, target, baseSha];
      try {
        // A lock failure may come after -b made the branch: each try undoes itself, then the whole add is retried.
        let undone = true;
        await this.context.retryOnLock(
          repoRoot,
          args,
          async () => {
            try {
              await this.runner.text(repoRoot, args);
              await this.verifyRegistration(repoRoot, target, branch, baseSha);
            } catch (e) {
              // Asked before the cleanup frees the space again.
              const full = await diskFullError(e, target);
              undone = await this.undoAdd(repoRoot, target, branch, baseSha, folderExisted);
              throw full ?? e;
            }
          },
          () => undone,
        );
      } catch (e) {
        throw this.fail(e, repoRoot, args, 'worktreeFailed');
      }
    });
  }

  removeWorktree(repoRoot: string, dir: string, force: boolean): Promise<void> {
    return this.write(repoRoot, async () => {
      const target = path.resolve(repoRoot, dir);
      if (await pathExists(target)) {
        await this.worktreeRemove(repoRoot, target, force);
        await this.prune(repoRoot);
        return;
      }
      // Folder deleted by hand: prune drops the registration unless the worktree is locked.
      await this.prune(repoRoot);
      const entry = await findWorktree(this.context, repoRoot, target);
      if (entry) {
        if (!force) {
          throw new AgentError('worktreeLocked', { path: target }, entry.locked);
        }
        await this.worktreeRemove(repoRoot, target, true);
      }
    });
  }

  deleteBranch(repoRoot: string, branch: string, force: boolean): Promise<void> {
    return this.write(repoRoot, async () => {
      const args = ['branch', force ? '-D' : '-d', '--', branch];
      try {
        await this.runner.text(repoRoot, args);
      } catch (e) {
        // Deleting is idempotent: a branch that is already gone is the outcome asked for.
        if (e instanceof GitProcessError && /branch '.*' not found/.test(e.stderr)) {
          return;
        }
        throw this.fail(e, repoRoot, args, 'gitFailed');
      }
    });
  }

  async changeSet(cwd: string, baseSha: string): Promise<ChangedFile[]> {
    // --raw --numstat: statuses and binary flags from one process. --relative: paths relative to
    // cwd, like ls-files' own, when cwd is a subfolder of the repository.
    const [diff, untracked] = await Promise.all([
      this.read(cwd, [
        'diff',
        '--raw',
        '--numstat',
        '-z',
        '-M',
        '--relative',
        '--no-ext-diff',
        '--no-textconv',
        baseSha,
        '--',
      ]),
      this.read(cwd, ['ls-files', '--others', '--exclude-standard', '-z']),
    ]);
    const binary = await sniffBinaryFiles(cwd, parsePathList(untracked));
    return buildChangeSet({ diff, untracked }, binary);
  }

  async showFile(repoRoot: string, sha: string, filePath: string): Promise<Uint8Array | undefined> {
    const args = [`${sha}:${filePath}`];
    try {
      return await this.runner.buffer(repoRoot, ['show', ...args]);
    } catch (e) {
      // Git looks a full sha's path up without checking the commit exists: confirm it does.
      if (e instanceof GitProcessError && /does not exist in|exists on disk, but not in/.test(e.stderr)) {
        await this.read(repoRoot, ['rev-parse', '--verify', '--end-of-options', `${sha}^{commit}`]);
        return undefined;
      }
      throw this.fail(e, repoRoot, ['show', ...args], 'gitFailed');
    }
  }

  async workState(cwd: string, baseSha: string): Promise<WorkState> {
    const [status, ahead] = await Promise.all([
      // --branch: a header line, so the output is never empty (which countStatusEntries skips).
      this.read(cwd, ['status', '--porcelain=v1', '-z', '--branch', '--untracked-files=all', '--', '.']),
      this.read(cwd, ['rev-list', '--count', `${baseSha}..HEAD`, '--']),
    ]);
    return { uncommittedFiles: countStatusEntries(status), commitsAhead: Number.parseInt(ahead.trim(), 10) || 0 };
  }

  /** A command whose every failure is reported as gitFailed (or a more specific reason). */
  private async read(cwd: string, args: string[]): Promise<string> {
    try {
      return await this.runner.text(cwd, args);
    } catch (e) {
      throw this.fail(e, cwd, args, 'gitFailed');
    }
  }

  private write<T>(repoRoot: string, task: () => Promise<T>): Promise<T> {
    return this.context.write(repoRoot, task);
  }

  private fail(e: unknown, cwd: string, args: readonly string[], fallback: FailureReason): AgentError {
    return this.context.fail(e, cwd, args, fallback);
  }

  private async branchExists(repoRoot: string, branch: string): Promise<boolean> {
    const args = ['rev-parse', '--verify', `refs/heads/${branch}`];
    try {
      await this.runner.text(repoRoot, args);
      return true;
    } catch (e) {
      if (e instanceof GitProcessError && e.exitCode > 0 && /needed a single revision/i.test(e.stderr)) {
        return false;
      }
      throw this.fail(e, repoRoot, args, 'worktreeFailed');
    }
  }

  /** An exit code of 0 is not enough: a racing add can exit 0 yet leave no usable registration. */
  private async verifyRegistration(repoRoot: string, target: string, branch: string, baseSha: string): Promise<void> {
    const entry = await findWorktree(this.context, repoRoot, target);
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

  /**
   * Leaves nothing of a failed add behind, and a folder that existed before it (git accepts an
   * empty one) as it was. True when neither the branch nor a new folder is left.
   */
  private async undoAdd(
    repoRoot: string,
    target: string,
    branch: string,
    baseSha: string,
    folderExisted: boolean,
  ): Promise<boolean> {
    const attempt = async (what: string, step: () => Promise<unknown>) => {
      try {
        await step();
      } catch (e) {
        this.logger?.warn(`[Git] cleaning up the failed worktree ${target}: ${what} failed — ${stderrOf(e)}`);
      }
    };
    // Without its .git file the target holds no checkout, and git keeps no registration of a failed
    // add: nothing to ask `worktree list` about (which a concurrent add may have made unreadable).
    const checkedOut = () => pathExists(path.join(target, '.git'));
    await attempt('removing the worktree', async () => {
      if ((await checkedOut()) && (await findWorktree(this.context, repoRoot, target))) {
        await this.runner.text(repoRoot, ['worktree', 'remove', '--force', '--force', target]);
        if (folderExisted) {
          await fs.mkdir(target, { recursive: true });
        }
      } else if (!folderExisted && (await pathExists(target))) {
        await fs.rm(target, { recursive: true, force: true });
      }
    });
    await attempt('pruning', () => this.runner.text(repoRoot, ['worktree', 'prune']));
    await attempt('deleting the branch', async () => {
      // update-ref, unlike branch -D, does not read the worktree registry; the branch was made by
      // this add, at the base.
      if (!(await checkedOut()) && (await this.branchExists(repoRoot, branch))) {
        await this.runner.text(repoRoot, [
          'update-ref',
          '-d',
          `refs/heads/${branch}`,
          ...(isFullSha(baseSha) ? [baseSha] : []),
        ]);
      }
    });
    const branchLeft = await this.branchExists(repoRoot, branch).catch(() => true);
    return !branchLeft && (folderExisted || !(await pathExists(target)));
  }

  private async worktreeRemove(repoRoot: string, target: string, force: boolean): Promise<void> {
    const args = ['worktree', 'remove', ...(force ? ['--force', '--force'] : []), target];
    try {
      await this.runner.text(repoRoot, args);
    } catch (e) {
      throw this.fail(e, repoRoot, args, 'worktreeFailed');
    }
  }

  private async prune(repoRoot: string): Promise<void> {
    const args = ['worktree', 'prune'];
    try {
      await this.runner.text(repoRoot, args);
    } catch (e) {
      throw this.fail(e, repoRoot, args, 'worktreeFailed');
    }
  }
}
