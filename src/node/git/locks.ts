/**
 * Locks another git process holds: detection from git's messages, and retry with backoff. A lock
 * failure aborts a git command before it changes anything (except `worktree add -b`, see
 * repeatableOnLock), so running it again is safe.
 */
import { AgentError } from '../../core/errors';
import { delay } from '../../util/async';
import { GitProcessError, stderrOf } from './errors';

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
 * (worktreeAdd.ts retries the whole add after undoing it).
 */
export function repeatableOnLock(args: readonly string[]): boolean {
  const at = args.indexOf('worktree');
  return !(at >= 0 && args[at + 1] === 'add' && args.slice(at + 2).some((a) => a === '-b' || a === '-B'));
}
