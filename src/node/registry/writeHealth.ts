/**
 * Whether the registry folders take writes. A folder that refuses one (a read-only mount, a file
 * system or permissions that forbid it) is reported once per window, naming the folder and the
 * first file; the store then carries on: the records stay in memory and on screen, nothing on disk
 * is changed, and later writes are tried again (they succeed once the folder is writable).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../core/errors';
import type { RecordWriteFailure, RecordWriteWarnings } from '../../core/ports';
import { type Disposable, Emitter } from '../../util/event';

/** The OS's codes for "this folder does not take writes" (as opposed to a full disk or a lock). */
const notWritableCodes = new Set(['EROFS', 'EACCES', 'EPERM']);

export function isNotWritable(e: unknown): boolean {
  return notWritableCodes.has((e as NodeJS.ErrnoException | undefined)?.code ?? '');
}

/** The registry folder of a record file `<registry>/<kind>/<id>.json`. */
export function registryOfRecordFile(file: string): string {
  return path.dirname(path.dirname(file));
}

export class WriteHealth implements RecordWriteWarnings, Disposable {
  private readonly warned = new Set<string>();
  private readonly emitter = new Emitter<RecordWriteFailure>();
  readonly onDidFailToWrite = this.emitter.event;

  /**
   * Takes a failed write of record `file`: true when the folder refuses writes (the caller then
   * treats the write as skipped, not as an error); the first such failure of a folder is announced.
   */
  report(file: string, e: unknown): boolean {
    if (!isNotWritable(e)) {
      return false;
    }
    const folder = registryOfRecordFile(file);
    if (!this.warned.has(folder)) {
      this.warned.add(folder);
      const code = (e as NodeJS.ErrnoException).code ?? 'EROFS';
      this.emitter.fire({
        folder,
        file,
        error: new AgentError('registryNotWritable', { folder, file, error: code }, (e as Error).message),
      });
    }
    return true;
  }

  /** Whether a write to `folder` failed in this window because it refuses writes. */
  refused(folder: string): boolean {
    return this.warned.has(folder);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/**
 * Whether `folder` (or, while it does not exist, its nearest existing parent) takes writes, asked
 * of the file system without writing: for files that may go elsewhere when it does not (agent logs).
 */
export function writableSync(folder: string): boolean {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    try {
      fs.accessSync(dir, fs.constants.W_OK);
      return true;
    } catch (e) {
      if (isNotWritable(e)) {
        return false;
      }
      if (path.dirname(dir) === dir) {
        return true;
      }
    }
  }
}
