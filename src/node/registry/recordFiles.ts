/**
 * One record per file: `{ schemaVersion, revision, writtenAt, writer, record }`, written atomically
 * (a temporary file in the same folder, then rename) so a reader never sees half a record, and
 * changed under a lock file (`<name>.lock`, created exclusively, holding the writer's pid) so two
 * windows never interleave a read-compare-write. A lock whose holder is gone, or that is older than
 * `staleLockMs`, is taken over.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';

/** The version of the files this build writes; a file with a higher one is left alone. */
export const registrySchemaVersion = 1;
/** A lock older than this is a writer that died without removing it. */
export const staleLockMs = 10_000;
const lockRetryMs = 15;
const lockGiveUpMs = 5_000;

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
  if (!file || typeof file !== 'object' || typeof file.schemaVersion !== 'number') {
    return { kind: 'problem', problem: { file: name, reason: 'corrupt', detail: 'no schemaVersion' } };
  }
  if (file.schemaVersion > registrySchemaVersion) {
    const detail = `schemaVersion ${file.schemaVersion}; this version reads ${registrySchemaVersion}`;
    return { kind: 'problem', problem: { file: name, reason: 'newerSchema', detail } };
  }
  const record = file.record as { id?: unknown } | undefined;
  if (typeof file.revision !== 'number' || !record || typeof record !== 'object' || typeof record.id !== 'string') {
    return { kind: 'problem', problem: { file: name, reason: 'corrupt', detail: 'no revision or record id' } };
  }
  return { kind: 'file', file: file as RecordFile<T> };
}

export function readRecordFileSync<T extends { readonly id: string }>(file: string): ReadResult<T> {
  try {
    return parseRecordFile<T>(file, fs.readFileSync(file, 'utf8'));
  } catch (e) {
    return notRead(file, e);
  }
}

export async function readRecordFile<T extends { readonly id: string }>(file: string): Promise<ReadResult<T>> {
  try {
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
    await fsp.writeFile(temp, text, { flag: 'wx', mode: 0o600 });
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** Runs `body` holding `<file>.lock`; waits for another holder, takes over a stale lock. */
export async function withFileLock<T>(file: string, body: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      await fsp.writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw e;
      }
      if (await isStale(lock)) {
        await fsp.rm(lock, { force: true });
        continue;
      }
      if (Date.now() - started > lockGiveUpMs) {
        throw new AgentError('registryLocked', { file, seconds: lockGiveUpMs / 1000 });
      }
      await new Promise((resolve) => setTimeout(resolve, lockRetryMs));
    }
  }
  try {
    return await body();
  } finally {
    await fsp.rm(lock, { force: true });
  }
}

async function isStale(lock: string): Promise<boolean> {
  try {
    const [text, stat] = await Promise.all([fsp.readFile(lock, 'utf8'), fsp.stat(lock)]);
    if (Date.now() - stat.mtimeMs > staleLockMs) {
      return true;
    }
    const pid = Number.parseInt(text, 10);
    return Number.isInteger(pid) && pid > 0 && !isAlive(pid);
  } catch {
    return false; // gone meanwhile, or being written: try again
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
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
