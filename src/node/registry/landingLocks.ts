/**
 * The landing lock of each repository, `<git common dir>/parallel-agents/landing.lock`: every
 * window (each its own extension host process) on the repository or on any of its worktrees finds
 * the same file. Landings of one window on one repository queue in memory first, so the file is
 * only ever contended between processes.
 */
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { LandingWait, LockHolder, Logger, RepositoryLocks } from '../../core/ports';
import { SerialQueue } from '../../util/async';
import { acquireLock, defaultLockTimings, type HeldLock, LockNotAcquired, type LockTimings } from './lockFile';
import { gitCommonDirSync, registryFolderName } from './location';

export const landingLockName = 'landing.lock';

export interface LandingLocksOptions {
  readonly logger: Logger;
  /** Shortened by tests; the defaults are a 5 s refresh, 30 s to stale, 2 min to give up. */
  readonly timings?: Partial<LockTimings>;
  /** Shown while a landing waits, when the caller of withLandingLock gives no reporter of its own. */
  readonly onWait?: (wait: LandingWait) => void;
  /** Who this process is; tests pretend to be another host. */
  readonly identity?: { readonly pid: number; readonly host: string };
}

/** The landing lock file of the repository `repoRoot` is in. */
export function landingLockFile(repoRoot: string): string {
  const common = gitCommonDirSync(repoRoot);
  if (common === undefined) {
    throw new AgentError('notARepository', { folder: repoRoot });
  }
  return path.join(common, registryFolderName, landingLockName);
}

export class LandingLocks implements RepositoryLocks {
  private readonly timings: LockTimings;
  private readonly queues = new Map<string, SerialQueue>();

  constructor(private readonly options: LandingLocksOptions) {
    this.timings = { ...defaultLockTimings, ...options.timings };
  }

  withLandingLock<T>(repoRoot: string, body: () => Promise<T>, onWait?: (wait: LandingWait) => void): Promise<T> {
    const file = landingLockFile(repoRoot);
    let queue = this.queues.get(file);
    if (!queue) {
      queue = new SerialQueue();
      this.queues.set(file, queue);
    }
    return queue.run(async () => {
      const lock = await this.acquire(repoRoot, file, onWait ?? this.options.onWait);
      try {
        return await body();
      } finally {
        await this.release(file, lock);
      }
    });
  }

  private async acquire(repoRoot: string, file: string, onWait?: (wait: LandingWait) => void): Promise<HeldLock> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    let cancelled = false;
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    let ended!: () => void;
    const endedPromise = new Promise<void>((resolve) => (ended = resolve));
    const report = (holder: LockHolder) => {
      this.options.logger.info(
        `[Landing] ${repoRoot}: waiting for the landing lock held by pid ${holder.pid} on ${holder.host}`,
      );
      const cancel = () => {
        cancelled = true;
        wake();
      };
      onWait?.({ repoRoot, holder, ended: endedPromise, cancel });
    };
    try {
      return await acquireLock(file, {
        timings: this.timings,
        onWait: report,
        cancelled: () => cancelled,
        wake: woken,
        identity: this.options.identity,
      });
    } catch (e) {
      throw this.notAcquired(e, repoRoot, file);
    } finally {
      ended();
    }
  }

  private notAcquired(e: unknown, repoRoot: string, file: string): unknown {
    if (!(e instanceof LockNotAcquired)) {
      return e;
    }
    if (e.why.kind === 'cancelled') {
      this.options.logger.info(`[Landing] ${repoRoot}: waiting for the landing lock cancelled`);
      return new AgentError('cancelled', {});
    }
    const holder = e.why.holder;
    const error = new AgentError('landingLocked', {
      repoRoot,
      lockFile: file,
      pid: holder?.pid ?? 0,
      host: holder?.host ?? '?',
      since: holder ? new Date(holder.since).toLocaleString() : '?',
      seconds: Math.round(e.why.waitedMs / 1000),
    });
    this.options.logger.warn(`[Landing] ${error.message}`);
    return error;
  }

  private async release(file: string, lock: HeldLock): Promise<void> {
    const ours = await lock.release().catch((e: Error) => {
      this.options.logger.warn(`[Landing] releasing ${file} failed: ${e.message}`);
      return true;
    });
    if (!ours || lock.lost) {
      this.options.logger.warn(`[Landing] ${file} was taken over by another window while this one held it`);
    }
  }
}
