/**
 * GitRunner: every git process of the extension goes through one. It caps how many run at once,
 * retries a command that failed on another process's lock, keeps one write queue per repository
 * (all worktrees of a repository share refs, objects and the worktree registry), turns failures
 * into AgentErrors and logs them.
 */
import * as path from 'node:path';
import type { AgentError } from '../../core/errors';
import type { Logger } from '../../core/ports';
import { SerialQueue } from '../../util/async';
import { canonicalPath } from '../fileSystem';
import { GitProcessError, toAgentError, type FailureReason } from './errors';
import {
  defaultLockRetry,
  isLockFailure,
  repeatableOnLock,
  retryOnLock,
  type LockRetry,
  type LockRetryPolicy,
} from './locks';
import { asWriteTask, ProcessLimiter } from './processLimiter';
import { gitEnvironment, spawnGit, type GitExecOptions, type GitExecResult, type GitRawResult } from './process';

export interface GitRunnerOptions {
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

/** A lock failure hidden in a result the caller accepted anyway (okCodes 'any'): exit 128 is git's die(). */
class LockedResult extends GitProcessError {
  constructor(readonly result: GitRawResult) {
    super(result.exitCode, result.stderr);
  }
}

export class GitRunner {
  readonly binary: string;
  readonly logger?: Logger;
  private readonly env = gitEnvironment();
  private readonly limiter: ProcessLimiter;
  private readonly lockRetry: LockRetryPolicy;
  private readonly queues = new Map<string, SerialQueue>();
  /** Folder → the repository's common git dir, which all of its worktrees share. */
  private readonly repositories = new Map<string, string>();
  /** Repository root → where its post-checkout hook would be and when that was read (see learnHookPath). */
  private readonly hookPaths = new Map<string, { readonly path: string; readonly at: number }>();
  private versionNumber?: Promise<readonly number[]>;
  private spawned = 0;

  constructor(options: GitRunnerOptions = {}) {
    this.binary = options.binary ?? 'git';
    this.logger = options.logger;
    this.lockRetry = options.lockRetry ?? defaultLockRetry;
    this.limiter = new ProcessLimiter(Math.max(1, options.maxConcurrentProcesses ?? 8));
  }

  /**
   * Runs git once per try, a process slot held only while it runs. A command that fails on a
   * lock is run again (see repeatableOnLock); rejects with a GitProcessError outside `okCodes`.
   */
  async exec(cwd: string, args: readonly string[], options: GitExecOptions = {}): Promise<GitExecResult> {
    const result = await this.raw(cwd, args, options);
    return { exitCode: result.exitCode, stdout: result.stdout.toString('utf8'), stderr: result.stderr };
  }

  /** stdout of a command that must exit 0, untrimmed. */
  async text(cwd: string, args: readonly string[]): Promise<string> {
    return (await this.exec(cwd, args)).stdout;
  }

  /** stdout as bytes (file contents) of a command that must exit 0. */
  async buffer(cwd: string, args: readonly string[], options: GitExecOptions = {}): Promise<Buffer> {
    return (await this.raw(cwd, args, options)).stdout;
  }

  /** Runs git; any exit code outside `okCodes` becomes an AgentError (logged). */
  async run(cwd: string, args: readonly string[], options: RunOptions = {}): Promise<GitExecResult> {
    try {
      return await this.exec(cwd, args, options);
    } catch (e) {
      throw this.fail(e, cwd, args, options.reason ?? 'gitFailed');
    }
  }

  /** stdout of a successful command, trimmed. */
  async out(cwd: string, args: readonly string[], options: RunOptions = {}): Promise<string> {
    return (await this.run(cwd, args, options)).stdout.trim();
  }

  fail(e: unknown, cwd: string, args: readonly string[], fallback: FailureReason): AgentError {
    const error = toAgentError(e, this.binary, cwd, args, fallback);
    this.logger?.warn(
      `[Git] ${args.slice(0, 2).join(' ')} in ${cwd}: ${error.reason}${error.detail ? ` — ${error.detail}` : ''}`,
    );
    return error;
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
    // Its git processes go before those of readers and checkouts (see processLimiter.ts).
    return queue.run(() => asWriteTask(task));
  }

  /** Git processes started so far (each try of a retried command counts): what the bench reports per dispatch. */
  get processCount(): number {
    return this.spawned;
  }

  /**
   * The canonical common git dir of the repository `cwd` is in (cached per folder: it never moves
   * while the folder exists); undefined when `cwd` is in none.
   */
  async commonDir(cwd: string): Promise<string | undefined> {
    const folder = path.resolve(cwd);
    const key = await this.repositoryKey(folder);
    return this.repositories.has(folder) ? key : undefined;
  }

  /** Keeps what another command printed in passing (`rev-parse --git-common-dir`), so no process asks again. */
  async learnCommonDir(folders: readonly string[], commonDir: string): Promise<void> {
    const key = await canonicalPath(commonDir);
    for (const folder of folders) {
      this.repositories.set(path.resolve(folder), key);
    }
  }

  /**
   * Keeps where the post-checkout hook of the worktrees of `repoRoot` would be (`rev-parse --git-path`
   * honours core.hooksPath), read by a command run anyway; hookPath answers with it while it is fresh.
   */
  learnHookPath(repoRoot: string, hookPath: string, at = Date.now()): void {
    this.hookPaths.set(path.resolve(repoRoot), { path: hookPath, at });
  }

  /** The hook path learned for `repoRoot` at most `maxAgeMs` ago, else undefined (the caller must not guess). */
  hookPath(repoRoot: string, maxAgeMs: number, now = Date.now()): string | undefined {
    const known = this.hookPaths.get(path.resolve(repoRoot));
    return known && now - known.at <= maxAgeMs ? known.path : undefined;
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

  private raw(cwd: string, args: readonly string[], options: GitExecOptions): Promise<GitRawResult> {
    const once = () =>
      this.limiter.run(async () => {
        this.spawned++;
        const result = await spawnGit(this.binary, this.env, cwd, args, options);
        if (result.exitCode === 128 && isLockFailure(result.stderr)) {
          throw new LockedResult(result);
        }
        return result;
      });
    const tries = repeatableOnLock(args)
      ? retryOnLock(once, this.lockRetry, (info) => this.logRetry(cwd, args, info))
      : once();
    return tries.catch((e: unknown) => {
      // Still locked after every retry: the caller that accepts any exit code gets its answer.
      if (e instanceof LockedResult) {
        return e.result;
      }
      throw e;
    });
  }

  private logRetry(cwd: string, args: readonly string[], info: LockRetry): void {
    this.logger?.info(
      `[Git] ${args.slice(0, 2).join(' ')} in ${cwd} hit a lock (${info.detail}); retry ${info.retry} of ${info.of} in ${info.delayMs} ms`,
    );
  }

  private async repositoryKey(cwd: string): Promise<string> {
    const folder = path.resolve(cwd);
    const known = this.repositories.get(folder);
    if (known) {
      return known;
    }
    try {
      const commonDir = (await this.exec(folder, ['rev-parse', '--git-common-dir'])).stdout.trim();
      const key = await canonicalPath(path.resolve(folder, commonDir));
      this.repositories.set(folder, key);
      return key;
    } catch {
      // Not (yet) a repository: the command itself will report that.
      return folder;
    }
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
