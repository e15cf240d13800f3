/**
 * Runs one git process (through simple-git, or a plain spawn when stdin, extra environment or
 * meaningful exit codes are needed) with a minimal environment, and turns its failures into
 * AgentErrors. Classification reads git's messages, so every process runs with
 * LC_MESSAGES=C (and no LANGUAGE/LC_ALL that would override it).
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { GitConstructError, GitError, GitPluginError, simpleGit } from 'simple-git';
import { AgentError, isDiskFull, type AgentErrorReason } from '../core/errors';
import { delay } from '../util/async';

/** A git process that exited non-zero or could not be started. */
export class GitProcessError extends GitError {
  constructor(
    readonly exitCode: number,
    readonly stderr: string,
  ) {
    super(undefined, stderr.trim() || `git exited with code ${exitCode}`);
  }

  /** Node reports a failed spawn as a negative errno exit code with the error's stack on stderr. */
  get notFound(): boolean {
    return this.exitCode < 0 && /\bspawn\b.*\bENOENT\b/.test(this.stderr);
  }
}

// Names compared upper-case, so Windows' "Path" and "SystemRoot" pass too.
const inherited = new Set([
  'PATH',
  'HOME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'USER',
  'USERNAME',
  'LOGNAME',
  'LANG',
  'LC_CTYPE',
]);

/**
 * The environment of every git process: what git needs to find itself, its config and a temp
 * folder. No GIT_* variable of the host leaks in (VS Code sets several). GIT_OPTIONAL_LOCKS=0
 * applies to all commands: it only stops the optional index refresh of reads, never a write's lock.
 */
export function gitEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && inherited.has(key.toUpperCase())) {
      env[key] = value;
    }
  }
  env.LC_MESSAGES = 'C';
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

export interface GitExecOptions {
  /** Written to the process's stdin, which is then closed. */
  readonly input?: string;
  /** Added to the environment for this process only (e.g. GIT_INDEX_FILE). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (merge-tree's 1 = conflicts); 'any': all are. Default [0]. */
  readonly okCodes?: readonly number[] | 'any';
}

export interface GitExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitRunner {
  text(cwd: string, args: string[]): Promise<string>;
  buffer(cwd: string, args: string[]): Promise<Buffer>;
  /**
   * A plain spawn for what simple-git cannot do: stdin, extra environment, exit codes that carry
   * meaning, stdout of a failed process. Rejects with a GitProcessError outside `okCodes`.
   */
  exec(cwd: string, args: string[], options?: GitExecOptions): Promise<GitExecResult>;
}

/**
 * Git's words for a lock another process holds right now: a `*.lock` file that exists (index,
 * refs, packed-refs, HEAD, config) or a worktree registry entry that a concurrent `worktree add`
 * is still writing. Such a failure is transient. Deliberate locks ("cannot remove a locked working
 * tree"), ref conflicts ("cannot lock ref 'a/b': 'a' exists") and a lock that cannot be created for
 * any other reason (permissions) are not.
 */
const lockPatterns: readonly RegExp[] = [
  /Unable to create '[^'\n]*\.lock': File exists/i,
  /could not lock config file [^\n]*: File exists/i,
  /(failed to read|could not open|could not read) '?[^'\n]*[\\/]worktrees[\\/][^\\/'\n]+[\\/](commondir|locked|gitdir)\b/i,
];

/** Whether git's message says it failed on a transient lock (see lockPatterns). */
export function isLockFailure(message: string): boolean {
  return lockPatterns.some((pattern) => pattern.test(message));
}

/**
 * Whether an error of a git command (GitProcessError, or an AgentError carrying git's stderr as
 * detail) is a lock failure.
 */
export function failedOnLock(e: unknown): boolean {
  if (e instanceof GitProcessError) {
    return isLockFailure(e.stderr);
  }
  if (AgentError.is(e)) {
    return isLockFailure(`${e.message}\n${e.detail ?? ''}`);
  }
  return e instanceof Error && isLockFailure(e.message);
}

export interface LockRetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number;
  /** Wait before the first retry; each further retry waits twice as long. */
  readonly baseDelayMs: number;
  /** [0, 1); the jitter source. */
  readonly random?: () => number;
}

/**
 * 5 tries, waiting ~50, 100, 200, 400 ms between them: a lock held up to ~375 ms (the least the
 * jitter allows) always clears.
 */
export const defaultLockRetry: LockRetryPolicy = { attempts: 5, baseDelayMs: 50 };

/** Wait before retry number `retry` (1-based): exponential, with jitter of ±50% so waiting processes spread out. */
export function lockRetryDelay(retry: number, policy: LockRetryPolicy): number {
  const random = policy.random ?? Math.random;
  return Math.round(policy.baseDelayMs * 2 ** (retry - 1) * (0.5 + random()));
}

export interface LockRetry {
  /** 1-based number of the retry about to happen. */
  readonly retry: number;
  readonly of: number;
  readonly delayMs: number;
  /** Git's message for the failed try. */
  readonly detail: string;
}

/**
 * Runs `task` until it succeeds, fails on something other than a lock (see failedOnLock), has
 * failed `policy.attempts` times, or `canRetry` says no; the last failure is then rethrown.
 * `onRetry` hears of each wait.
 */
export async function retryOnLock<T>(
  task: () => Promise<T>,
  policy: LockRetryPolicy,
  onRetry?: (info: LockRetry) => void,
  canRetry: () => boolean = () => true,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await task();
    } catch (e) {
      if (attempt >= policy.attempts || !failedOnLock(e) || !canRetry()) {
        throw e;
      }
      const delayMs = lockRetryDelay(attempt, policy);
      onRetry?.({
        retry: attempt,
        of: policy.attempts - 1,
        delayMs,
        detail: lockLine(AgentError.is(e) ? `${e.message}\n${e.detail ?? ''}` : stderrOf(e)),
      });
      await delay(delayMs);
    }
  }
}

/** The line of git's message that names the lock (git may print progress before it). */
function lockLine(text: string): string {
  const lines = text.split('\n');
  return (lines.find((line) => isLockFailure(line)) ?? lines[0] ?? '').trim();
}

/**
 * Whether running `args` again after a lock failure is safe. A lock failure aborts a git command
 * before it changes anything, except `worktree add -b`, which may already have created its branch
 * (GitService retries the whole add after undoing it).
 */
export function repeatableOnLock(args: readonly string[]): boolean {
  const at = args.indexOf('worktree');
  return !(at >= 0 && args[at + 1] === 'add' && args.slice(at + 2).some((a) => a === '-b' || a === '-B'));
}

/** A lock failure hidden in a result the caller accepted anyway (okCodes 'any'): exit 128 is git's die(). */
class LockedResult extends GitProcessError {
  constructor(readonly result: GitExecResult) {
    super(result.exitCode, result.stderr);
  }
}

/** Output beyond this is a runaway process, not an answer. */
const maxExecOutput = 64 * 1024 * 1024;

async function spawnFailure(error: NodeJS.ErrnoException, cwd: string): Promise<GitProcessError> {
  // Node reports a missing cwd exactly like a missing binary ("spawn git ENOENT").
  const cwdExists = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!cwdExists) {
    return new GitProcessError(128, `fatal: not a git repository: ${cwd} does not exist`);
  }
  return new GitProcessError(typeof error.errno === 'number' && error.errno < 0 ? error.errno : -1, error.message);
}

function spawnGit(
  binary: string,
  env: Record<string, string>,
  cwd: string,
  args: string[],
  options: GitExecOptions,
): Promise<GitExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd,
      env: { ...env, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxExecOutput) {
        child.kill();
        return;
      }
      into.push(chunk);
    };
    child.stdout?.on('data', collect(stdout));
    child.stderr?.on('data', collect(stderr));
    child.on('error', (error) => {
      if (!settled) {
        settled = true;
        void spawnFailure(error, cwd).then(reject);
      }
    });
    child.on('close', (code, signal) => {
      if (settled) {
        return;
      }
      settled = true;
      const result = {
        exitCode: code ?? -1,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      };
      if (size > maxExecOutput) {
        reject(new GitProcessError(-1, `git ${args[0]} wrote more than ${maxExecOutput} bytes; stopped`));
      } else if (code === null) {
        reject(new GitProcessError(-1, `git ${args[0]} was ended by ${signal ?? 'a signal'}`));
      } else if (options.okCodes !== 'any' && !(options.okCodes ?? [0]).includes(code)) {
        reject(new GitProcessError(code, result.stderr.trim() ? result.stderr : result.stdout));
      } else {
        resolve(result);
      }
    });
    if (options.input !== undefined && child.stdin) {
      // A git that exits before reading everything closes the pipe: its exit code tells why.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** Caps concurrent tasks; a finishing task hands its slot straight to the next waiting one. */
class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.max) {
      this.running++;
    } else {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) {
        next();
      } else {
        this.running--;
      }
    }
  }
}

export interface GitRunnerRetry {
  readonly policy: LockRetryPolicy;
  /** Hears of each retry of `git <args>` in `cwd`. */
  readonly onRetry?: (cwd: string, args: readonly string[], info: LockRetry) => void;
}

/**
 * Runs git commands in a folder, at most `maxConcurrent` processes at once over all folders. A
 * command that fails on a lock held by another process is run again (see retryOnLock and
 * repeatableOnLock); a command waiting to retry holds no process slot.
 */
export function createGitRunner(
  binary: string,
  env: Record<string, string>,
  maxConcurrent: number,
  retry: GitRunnerRetry = { policy: defaultLockRetry },
): GitRunner {
  const limiter = new Limiter(Math.max(1, maxConcurrent));
  const errors = (error: Buffer | Error | undefined, result: { exitCode: number; stdErr: Buffer[] }) =>
    result.exitCode === 0 ? error : new GitProcessError(result.exitCode, Buffer.concat(result.stdErr).toString('utf8'));
  const git = (cwd: string) =>
    simpleGit({ baseDir: cwd, binary, errors, allowEnvironment: ['GIT_OPTIONAL_LOCKS'] }).env(env);
  const retrying = <T>(cwd: string, args: readonly string[], task: () => Promise<T>): Promise<T> =>
    repeatableOnLock(args)
      ? retryOnLock(
          () => limiter.run(task),
          retry.policy,
          (info) => retry.onRetry?.(cwd, args, info),
        )
      : limiter.run(task);
  const exec = async (cwd: string, args: string[], options: GitExecOptions): Promise<GitExecResult> => {
    const result = await spawnGit(binary, env, cwd, args, options);
    if (result.exitCode === 128 && isLockFailure(result.stderr)) {
      throw new LockedResult(result);
    }
    return result;
  };
  return {
    text: (cwd, args) => retrying(cwd, args, async () => git(cwd).raw(args)),
    buffer: (cwd, args) => retrying(cwd, args, async () => git(cwd).showBuffer(args)),
    exec: (cwd, args, options = {}) =>
      retrying(cwd, args, () => exec(cwd, args, options)).catch((e: unknown) => {
        // Still locked after every retry: the caller that accepts any exit code gets its answer.
        if (e instanceof LockedResult) {
          return e.result;
        }
        throw e;
      }),
  };
}

export type FailureReason = Extract<AgentErrorReason, 'worktreeFailed' | 'gitFailed'>;

export function stderrOf(e: unknown): string {
  if (e instanceof GitProcessError) {
    return e.stderr.trim();
  }
  return e instanceof Error ? e.message : String(e);
}

/**
 * Maps a failure of `git <args>` run in `cwd` to an AgentError: a missing git binary, a folder
 * that is not (or no longer) a repository, or else `fallback` with git's stderr as detail.
 */
export function toAgentError(
  e: unknown,
  binary: string,
  cwd: string,
  args: readonly string[],
  fallback: FailureReason,
): AgentError {
  if (AgentError.is(e)) {
    return e;
  }
  const detail = stderrOf(e);
  if ((e instanceof GitProcessError && e.notFound) || (e instanceof GitPluginError && e.plugin === 'binary')) {
    return new AgentError('gitNotFound', { binary }, detail);
  }
  if (isDiskFull(detail)) {
    return new AgentError('gitDiskFull', { cwd }, detail);
  }
  if (/must be run in a work tree/i.test(detail)) {
    return new AgentError('bareRepository', { cwd }, detail);
  }
  if (e instanceof GitConstructError || /not a git repository/i.test(detail)) {
    return new AgentError('notARepository', { folder: cwd }, detail);
  }
  const command = args[0] === 'worktree' ? `git worktree ${args[1]}` : `git ${args[0]}`;
  const code = fallback === 'worktreeFailed' ? 'worktreeCommandFailed' : 'gitCommandFailed';
  return new AgentError(code, { command, cwd }, detail);
}
