/** What every git-backed port shares: one runner (one process cap), one write queue per repository, one logger. */
import * as path from 'node:path';
import { AgentError } from '../core/errors';
import type { Logger } from '../core/ports';
import { SerialQueue } from '../util/async';
import { canonicalPath } from './fileSystem';
import {
  createGitRunner,
  defaultLockRetry,
  gitEnvironment,
  retryOnLock,
  toAgentError,
  type FailureReason,
  type GitExecOptions,
  type GitExecResult,
  type GitRunner,
  type LockRetry,
  type LockRetryPolicy,
} from './gitProcess';

export interface GitContextOptions {
  /** The git executable: a name looked up on PATH, or a path. Default "git". */
  readonly binary?: string;
  /** Most git processes running at once, over all repositories. Default 8. */
  readonly maxConcurrentProcesses?: number;
  readonly logger?: Logger;
  /** How commands that fail on a lock held by another process are retried. Default defaultLockRetry. */
  readonly lockRetry?: LockRetryPolicy;
}

export interface RunOptions extends GitExecOptions {
  /** Reason of the AgentError when the command fails. Default gitFailed. */
  readonly reason?: FailureReason;
}

export class GitContext {
  readonly binary: string;
  readonly runner: GitRunner;
  readonly logger?: Logger;
  private readonly queues = new Map<string, SerialQueue>();
  /** Folder → the repository's common git dir, which all of its worktrees share. */
  private readonly repositories = new Map<string, string>();
  private versionNumber?: Promise<readonly number[]>;
  private readonly lockRetry: LockRetryPolicy;

  constructor(options: GitContextOptions = {}) {
    this.binary = options.binary ?? 'git';
    this.lockRetry = options.lockRetry ?? defaultLockRetry;
    this.logger = options.logger;
    this.runner = createGitRunner(this.binary, gitEnvironment(), options.maxConcurrentProcesses ?? 8, {
      policy: this.lockRetry,
      onRetry: (cwd, args, info) => this.logRetry(cwd, args, info),
    });
  }

  /**
   * Runs a multi-step `task` again, whole, when it fails on a lock (for steps the runner may not
   * repeat alone, like `worktree add -b`); the task undoes its partial work before it fails, and
   * `canRetry` says whether that left nothing in the way of another try.
   */
  retryOnLock<T>(cwd: string, args: readonly string[], task: () => Promise<T>, canRetry?: () => boolean): Promise<T> {
    return retryOnLock(task, this.lockRetry, (info) => this.logRetry(cwd, args, info), canRetry);
  }

  /**
   * Runs `task` after every earlier write to the same repository has finished. Worktrees of one
   * repository share a queue: they share refs, objects and the worktree registry. Not reentrant.
   */
  async write<T>(cwd: string, task: () => Promise<T>): Promise<T> {
    const key = await this.repositoryKey(cwd);
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new SerialQueue();
      this.queues.set(key, queue);
    }
    return queue.run(task);
  }

  /** Runs git; any exit code outside `okCodes` becomes an AgentError (logged). */
  async run(cwd: string, args: string[], options: RunOptions = {}): Promise<GitExecResult> {
    try {
      return await this.runner.exec(cwd, args, options);
    } catch (e) {
      throw this.fail(e, cwd, args, options.reason ?? 'gitFailed');
    }
  }

  /** stdout of a successful command, trimmed. */
  async out(cwd: string, args: string[], options: RunOptions = {}): Promise<string> {
    return (await this.run(cwd, args, options)).stdout.trim();
  }

  fail(e: unknown, cwd: string, args: readonly string[], fallback: FailureReason): AgentError {
    const error = toAgentError(e, this.binary, cwd, args, fallback);
    this.logger?.warn(
      `[Git] ${args.slice(0, 2).join(' ')} in ${cwd}: ${error.reason}${error.detail ? ` — ${error.detail}` : ''}`,
    );
    return error;
  }

  private logRetry(cwd: string, args: readonly string[], info: LockRetry): void {
    this.logger?.info(
      `[Git] ${args.slice(0, 2).join(' ')} in ${cwd} hit a lock (${info.detail}); retry ${info.retry} of ${info.of} in ${info.delayMs} ms`,
    );
  }

  /** [major, minor, patch] of the git binary, e.g. [2, 39, 5]; `cwd` is any existing folder. */
  version(cwd: string): Promise<readonly number[]> {
    this.versionNumber ??= this.out(cwd, ['version']).then(
      (text) =>
        (/(\d+)\.(\d+)(?:\.(\d+))?/.exec(text) ?? []).slice(1, 4).map((n) => Number.parseInt(n ?? '0', 10) || 0),
      (e: unknown) => {
        this.versionNumber = undefined;
        throw e;
      },
    );
    return this.versionNumber;
  }

  private async repositoryKey(cwd: string): Promise<string> {
    const folder = path.resolve(cwd);
    const known = this.repositories.get(folder);
    if (known) {
      return known;
    }
    try {
      const commonDir = (await this.runner.exec(folder, ['rev-parse', '--git-common-dir'])).stdout.trim();
      const key = await canonicalPath(path.resolve(folder, commonDir));
      this.repositories.set(folder, key);
      return key;
    } catch {
      // Not (yet) a repository: the command itself will report that.
      return folder;
    }
  }
}

/** Throws notAFullRef (reason gitFailed) unless `ref` is a full ref name. */
export function requireFullRef(ref: string): void {
  if (!ref.startsWith('refs/')) {
    throw new AgentError('notAFullRef', { ref });
  }
}

/** Whether `version` is at least `wanted` ([2, 38] means 2.38.0). */
export function atLeast(version: readonly number[], wanted: readonly number[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    const have = version[i] ?? 0;
    if (have !== wanted[i]) {
      return have > wanted[i];
    }
  }
  return true;
}
