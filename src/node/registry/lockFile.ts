/**
 * A lock file shared by processes on one repository, possibly on several hosts (a repository on a
 * network file system): created exclusively (`open(…, 'wx')`) holding `{ pid, host, token, since }`,
 * its mtime refreshed by the holder while it holds it, removed on release only while it is still
 * the holder's (same token). A waiter takes the lock over when the holder's process is gone (same
 * host only: a pid means nothing elsewhere), or when the file has not changed for `staleMs` of the
 * waiter's own clock — a refreshing holder changes it every `refreshMs`, so no clock of another
 * host is ever compared with this one's. Takeovers go one at a time through `<file>.takeover`, so
 * two waiters that found the same stale lock cannot both remove it and then the lock one of them
 * took meanwhile.
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import type { LockHolder } from '../../core/ports';
import { pidAlive } from '../../supervisor/processIdentity';

export interface LockTimings {
  /** How often the holder touches the file. */
  readonly refreshMs: number;
  /** A file unchanged this long (by the waiter's clock) belongs to a holder that is gone. */
  readonly staleMs: number;
  /** How long a waiter waits before giving up. */
  readonly giveUpMs: number;
  /** How often a waiter looks again. */
  readonly pollMs: number;
}

export const defaultLockTimings: LockTimings = { refreshMs: 5_000, staleMs: 30_000, giveUpMs: 120_000, pollMs: 200 };

export interface LockContent extends LockHolder {
  readonly token: string;
}

export interface HeldLock {
  readonly content: LockContent;
  /** Whether the file was found to be no longer ours while held (another process took it over). */
  readonly lost: boolean;
  /** Stops refreshing; removes the file if it is still ours. Resolves to whether it was. */
  release(): Promise<boolean>;
}

/** Why acquiring stopped without the lock. */
export type NotAcquired =
  | { readonly kind: 'gaveUp'; readonly holder: LockHolder | undefined; readonly waitedMs: number }
  | { readonly kind: 'cancelled' };

export interface AcquireOptions {
  readonly timings: LockTimings;
  /** Called once, when the lock is first found held by another. */
  readonly onWait?: (holder: LockHolder) => void;
  /** Polled between looks; true stops the wait. */
  readonly cancelled?: () => boolean;
  /** Resolves early from a pause between looks (a cancel wakes the waiter). */
  readonly wake?: Promise<void>;
  /** Who this process is; tests pretend to be another host. */
  readonly identity?: { readonly pid: number; readonly host: string };
}

export class LockNotAcquired extends Error {
  constructor(readonly why: NotAcquired) {
    super(why.kind);
  }
}

/** Waits for and takes `file`; rejects with LockNotAcquired when it gives up or is cancelled. */
export async function acquireLock(file: string, options: AcquireOptions): Promise<HeldLock> {
  const { timings } = options;
  const identity = options.identity ?? { pid: process.pid, host: os.hostname() };
  const started = Date.now();
  let seen: { key: string; at: number } | undefined;
  let holder: LockHolder | undefined;
  let told = false;
  for (;;) {
    const content: LockContent = { ...identity, token: randomBytes(12).toString('hex'), since: Date.now() };
    if (await tryCreate(file, content)) {
      return hold(file, content, timings);
    }
    const found = await look(file);
    if (found === undefined) {
      // Released meanwhile: tried again at once. A dangling link at the path reads so every time: the deadline holds.
      // Stryker disable next-line EqualityOperator: equivalent, at the boundary ms the next round gives up
      if (Date.now() - started >= timings.giveUpMs) {
        throw new LockNotAcquired({ kind: 'gaveUp', holder, waitedMs: Date.now() - started });
      }
      continue;
    }
    holder = found.content ?? holder;
    const now = Date.now();
    if (seen?.key !== found.key) {
      seen = { key: found.key, at: now };
    }
    const dead = found.content?.host === identity.host && !isAlive(found.content.pid);
    // Stryker disable next-line EqualityOperator: equivalent, at the boundary ms the next look decides the same
    if (dead || now - seen.at >= timings.staleMs) {
      await takeOver(file, found.text, timings);
      seen = undefined;
      // Another taker's guard may hold it up for as long as staleMs: a cancel or the deadline still stops it.
      // Stryker disable next-line EqualityOperator: equivalent, at the boundary millisecond the checks below give up
      if (!options.cancelled?.() && Date.now() - started < timings.giveUpMs) {
        continue;
      }
    } else if (!told && holder) {
      told = true;
      options.onWait?.(holder);
    }
    if (options.cancelled?.()) {
      throw new LockNotAcquired({ kind: 'cancelled' });
    }
    // Stryker disable next-line EqualityOperator: equivalent, at the boundary millisecond the next round gives up
    if (now - started >= timings.giveUpMs) {
      throw new LockNotAcquired({ kind: 'gaveUp', holder, waitedMs: now - started });
    }
    await pause(timings.pollMs, options.wake);
    if (options.cancelled?.()) {
      throw new LockNotAcquired({ kind: 'cancelled' });
    }
  }
}

/** The holder named in `file`, if it is held and readable. */
export async function readHolder(file: string): Promise<LockContent | undefined> {
  return (await look(file))?.content;
}

async function tryCreate(file: string, content: LockContent): Promise<boolean> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(file, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      return false;
    }
    throw e;
  }
  try {
    await handle.writeFile(`${JSON.stringify(content)}\n`);
  } finally {
    await handle.close();
  }
  return true;
}

interface Found {
  readonly text: string;
  /** Changes whenever the holder refreshes or another holder takes over. */
  readonly key: string;
  readonly content?: LockContent;
}

async function look(file: string): Promise<Found | undefined> {
  try {
    const [text, stat] = await Promise.all([fsp.readFile(file, 'utf8'), fsp.stat(file)]);
    return { text, key: `${stat.mtimeMs} ${text}`, content: parse(text) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return undefined;
    }
    throw e;
  }
}

/**
 * The file's content; undefined while it is being written, or when it is not a lock of ours. A bare
 * pid is the record lock of an earlier version, which always meant a process of this host.
 */
function parse(text: string): LockContent | undefined {
  if (/^\d+\n$/.test(text)) {
    return { pid: Number.parseInt(text, 10), host: os.hostname(), token: '', since: 0 };
  }
  let v: Partial<LockContent> | null = null;
  try {
    v = JSON.parse(text) as Partial<LockContent> | null;
  } catch {
    // Not JSON (half written, or not ours): v stays null.
  }
  return typeof v?.pid === 'number' && typeof v.host === 'string' && typeof v.token === 'string'
    ? { pid: v.pid, host: v.host, token: v.token, since: typeof v.since === 'number' ? v.since : 0 }
    : undefined;
}

/** Removes the lock judged stale, if it still is the very file judged (same text), one taker at a time. */
async function takeOver(file: string, staleText: string, timings: LockTimings): Promise<void> {
  const guard = `${file}.takeover`;
  try {
    // Stryker disable next-line StringLiteral: equivalent, the guard's content is never read
    await fsp.writeFile(guard, `${process.pid}\n`, { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw e;
    }
    // A taker that died inside this step (which lasts milliseconds) leaves its guard behind.
    const stat = await fsp.stat(guard).catch(() => undefined);
    // Stryker disable next-line EqualityOperator: equivalent, at the boundary millisecond the next look removes it
    if (stat && Date.now() - stat.mtimeMs > timings.staleMs) {
      // Race-only: the guard was just seen; another taker removing it in between is the one case force covers.
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: race-only, no test can order it
      await fsp.rm(guard, { force: true });
    }
    await pause(timings.pollMs);
    return;
  }
  try {
    const now = await fsp.readFile(file, 'utf8').catch(() => undefined);
    // The lock would have to change between the waiter's look and this read, microseconds apart.
    // Stryker disable next-line ConditionalExpression: race-only, no test can order it
    if (now === staleText) {
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: race-only, the file was just read
      await fsp.rm(file, { force: true });
    }
  } finally {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, this taker made the guard and holds it
    await fsp.rm(guard, { force: true });
  }
}

function hold(file: string, content: LockContent, timings: LockTimings): HeldLock {
  let lost = false;
  const ours = async () => (await readHolder(file).catch(() => undefined))?.token === content.token;
  // Runs only from the timer, which release clears; a lost lock never becomes ours again: looking again is harmless.
  const refresh = async () => {
    if (await ours()) {
      const now = new Date();
      await fsp.utimes(file, now, now).catch(() => undefined);
    } else {
      lost = true;
    }
  };
  const timer = setInterval(() => void refresh(), timings.refreshMs);
  timer.unref();
  return {
    content,
    get lost() {
      return lost;
    },
    async release() {
      clearInterval(timer);
      if (!(await ours())) {
        lost = true;
        return false;
      }
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: race-only, the file was ours a moment ago
      await fsp.rm(file, { force: true });
      return true;
    },
  };
}

function isAlive(pid: number): boolean {
  // On Linux pidAlive finds no /proc entry for pid 0, a negative or a fractional pid: the guard is for other platforms.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent on Linux
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid);
}

function pause(ms: number, wake?: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void wake?.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
