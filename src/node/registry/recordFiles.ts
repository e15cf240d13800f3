/**
 * One record per file: `{ schemaVersion, revision, writtenAt, writer, record }`, written atomically
 * (a temporary file in the same folder, then rename) so a reader never sees half a record, and
 * changed under a lock file (`<name>.lock`, the lock of lockFile.ts: created exclusively, naming its
 * holder) so two windows never interleave a read-compare-write.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import { acquireLock, type HeldLock, LockNotAcquired, type LockTimings } from './lockFile';

/** The version of the files this build writes; a file with a higher one is left alone. */
export const registrySchemaVersion = 1;
/**
 * A record's lock is held for the milliseconds of one read-compare-write; a lock unchanged for
 * `staleMs` (the holder refreshes it every `refreshMs`) or whose holder on this host is gone is
 * taken over, and a writer gives up after `giveUpMs` (longer than `staleMs`, so a stale lock never
 * makes it give up).
 */
const recordLockTimings: LockTimings = { refreshMs: 2_000, staleMs: 10_000, giveUpMs: 15_000, pollMs: 15 };

export interface RecordFile<T> {
  readonly schemaVersion: number;
  /** Grows by one with every write: a writer whose base revision is not the file's merges first. */
  readonly revision: number;
  readonly writtenAt: number;
  /** `host:pid` of the window that wrote it last. */
  readonly writer: string;
  readonly record: T;
}

/** Why a file of the registry was not read; the file itself is never overwritten. */
export type RegistryProblemReason = 'corrupt' | 'newerSchema' | 'unreadable';

export interface RegistryProblem {
  readonly file: string;
  readonly reason: RegistryProblemReason;
  /** The parser's or the file system's words, for the log and "details". */
  readonly detail: string;
}

export type ReadResult<T> =
  | { readonly kind: 'file'; readonly file: RecordFile<T> }
  | { readonly kind: 'missing' }
  | { readonly kind: 'problem'; readonly problem: RegistryProblem };

/** Parses a record file's text; `name` is the file, for the problem. */
export function parseRecordFile<T extends { readonly id: string }>(name: string, text: string): ReadResult<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { kind: 'problem', problem: { file: name, reason: 'corrupt', detail: (e as Error).message } };
  }
  const file = value as Partial<RecordFile<T>> | null;
  if (!file || typeof file.schemaVersion !== 'number') {
    return { kind: 'problem', problem: { file: name, reason: 'corrupt', detail: 'no schemaVersion' } };
  }
  if (file.schemaVersion > registrySchemaVersion) {
    const detail = `schemaVersion ${file.schemaVersion}; this version reads ${registrySchemaVersion}`;
    return { kind: 'problem', problem: { file: name, reason: 'newerSchema', detail } };
  }
  const record = file.record as { id?: unknown } | undefined;
  if (typeof file.revision !== 'number' || !record || typeof record.id !== 'string') {
    return { kind: 'problem', problem: { file: name, reason: 'corrupt', detail: 'no revision or record id' } };
  }
  return { kind: 'file', file: file as RecordFile<T> };
}

export function readRecordFileSync<T extends { readonly id: string }>(file: string): ReadResult<T> {
  try {
    // Stryker disable next-line StringLiteral: equivalent, JSON.parse reads a Buffer as UTF-8 text too
    return parseRecordFile<T>(file, fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return notRead(file, e);
  }
}

export async function readRecordFile<T extends { readonly id: string }>(file: string): Promise<ReadResult<T>> {
  try {
    // Stryker disable next-line StringLiteral: equivalent, JSON.parse reads a Buffer as UTF-8 text too
    return parseRecordFile<T>(file, await fsp.readFile(file, 'utf8'));
  } catch (e) {
    return notRead(file, e);
  }
}

function notRead<T>(file: string, e: unknown): ReadResult<T> {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
    return { kind: 'missing' };
  }
  return { kind: 'problem', problem: { file, reason: 'unreadable', detail: (e as Error).message } };
}

/** Writes `text` to `file` as one step for readers: a temporary file beside it, then a rename over it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    // Stryker disable next-line StringLiteral: equivalent, the name (pid and 32 random bits) is never taken already
    await fsp.writeFile(temp, text, { flag: 'wx', mode: 0o600 });
    await fsp.rename(temp, file);
  } catch (e) {
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, the catch drops the error force would avoid
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Runs `body` holding `<file>.lock`; waits for another holder, takes over a stale lock. */
export async function withFileLock<T>(file: string, body: () => Promise<T>): Promise<T> {
  let held: HeldLock;
  try {
    held = await acquireLock(`${file}.lock`, { timings: recordLockTimings });
  } catch (e) {
    if (e instanceof LockNotAcquired) {
      throw new AgentError('registryLocked', { file, seconds: recordLockTimings.giveUpMs / 1000 });
    }
    throw e;
  }
  try {
    return await body();
  } finally {
    await held.release();
  }
}

/** The record files of a folder (not temporary files or locks). */
export function recordFileNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
}

export function recordFilePath(dir: string, id: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(id) || id.startsWith('.')) {
    throw new AgentError('invalidRecordId', { id: JSON.stringify(id) });
  }
  return path.join(dir, `${id}.json`);
}
