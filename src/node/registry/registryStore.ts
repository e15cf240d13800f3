/**
 * The records of one kind (agents, plan runs) in the registries of the repositories they belong
 * to: `<registry>/<kind>/<id>.json`, one file per record. A window reads them all at start and
 * writes only the records it changed. When another window wrote a record since this one read it,
 * the two are merged field by field: the fields this window changed win, the others stay as the
 * other window left them — so neither window's change is lost. A file that cannot be read (corrupt,
 * from a newer version) is reported, skipped, and never overwritten or deleted.
 */
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger, RecordStore } from '../../core/ports';
import { SerialQueue } from '../../util/async';
import {
  type RecordFile,
  type RegistryProblem,
  readRecordFile,
  readRecordFileSync,
  recordFileNames,
  recordFilePath,
  registrySchemaVersion,
  withFileLock,
  writeAtomically,
} from './recordFiles';

export type RegistryKind = 'agents' | 'plans';

interface StoredRecord {
  readonly id: string;
  readonly repoRoot: string;
}

export interface RegistryStoreOptions {
  readonly kind: RegistryKind;
  /** The registry folders read at start: those of the window's repositories. */
  readonly registries: () => readonly string[];
  /** The registry folder of a record's repository; undefined when it has none (not a repository). */
  readonly registryOf: (repoRoot: string) => string | undefined;
  readonly logger: Logger;
  /** Tells a record the window read or wrote last, merged, when it differs from what the window has. */
  readonly onDidMerge?: (records: readonly unknown[]) => void;
}

/** What this window last read or wrote of a record: the base of the next write's merge. */
interface Known<T> {
  readonly file: string;
  readonly revision: number;
  readonly json: string;
  readonly record: T;
}

export class RegistryStore<T extends StoredRecord> implements RecordStore<T> {
  private readonly known = new Map<string, Known<T>>();
  private readonly queue = new SerialQueue();
  private readonly writer = `${os.hostname()}:${process.pid}`;
  private problemList: RegistryProblem[] = [];

  constructor(private readonly options: RegistryStoreOptions) {}

  /** Whether the record has its own file, as this window last read or wrote it. */
  isStored(id: string): boolean {
    return this.known.has(id);
  }

  /** The files the last load could not read. */
  problems(): readonly RegistryProblem[] {
    return this.problemList;
  }

  load(): readonly T[] {
    const records: T[] = [];
    this.problemList = [];
    for (const registry of new Set(this.options.registries())) {
      const dir = path.join(registry, this.options.kind);
      for (const name of recordFileNames(dir)) {
        const file = path.join(dir, name);
        const read = readRecordFileSync<T>(file);
        if (read.kind === 'problem') {
          this.problemList.push(read.problem);
          this.options.logger.warn(`[Registry] ${file} skipped (${read.problem.reason}): ${read.problem.detail}`);
        } else if (read.kind === 'file' && !this.known.has(read.file.record.id)) {
          const record = read.file.record;
          this.known.set(record.id, { file, revision: read.file.revision, json: JSON.stringify(record), record });
          records.push(record);
        }
      }
    }
    return records;
  }

  /** Writes the records that changed since this window last read or wrote them; removes those no longer listed. */
  save(records: readonly T[]): Promise<void> {
    const snapshot = [...records];
    return this.queue.run(async () => {
      const listed = new Set(snapshot.map((r) => r.id));
      const merged: T[] = [];
      let failure: unknown;
      // One record that cannot be written does not keep the others from being written.
      for (const record of snapshot) {
        try {
          const result = await this.write(record);
          if (result !== undefined) {
            merged.push(result);
          }
        } catch (e) {
          failure ??= e;
        }
      }
      for (const [id, known] of [...this.known]) {
        if (!listed.has(id)) {
          await this.remove(id, known);
        }
      }
      if (merged.length > 0) {
        this.options.onDidMerge?.(merged);
      }
      if (failure !== undefined) {
        throw failure;
      }
    });
  }

  /** Resolves with the merged record when another window's changes were merged in. */
  private async write(record: T): Promise<T | undefined> {
    const json = JSON.stringify(record);
    const base = this.known.get(record.id);
    if (base?.json === json) {
      return undefined;
    }
    const registry = base ? undefined : this.options.registryOf(record.repoRoot);
    if (!base && registry === undefined) {
      this.options.logger.warn(`[Registry] ${record.id}: ${record.repoRoot} has no registry; not saved`);
      return undefined;
    }
    const file = base?.file ?? recordFilePath(path.join(registry as string, this.options.kind), record.id);
    await fsp.mkdir(path.dirname(file), { recursive: true });
    return withFileLock(file, async () => {
      const disk = await readRecordFile<T>(file);
      if (disk.kind === 'problem') {
        this.options.logger.warn(`[Registry] ${file} not overwritten (${disk.problem.reason}): ${disk.problem.detail}`);
        return undefined;
      }
      const theirs = disk.kind === 'file' ? disk.file : undefined;
      const changedElsewhere = theirs !== undefined && theirs.revision !== base?.revision;
      const next = changedElsewhere ? mergeRecords(base?.record, record, theirs.record) : record;
      const revision = (theirs?.revision ?? base?.revision ?? 0) + 1;
      const content: RecordFile<T> = {
        schemaVersion: registrySchemaVersion,
        revision,
        writtenAt: Date.now(),
        writer: this.writer,
        record: next,
      };
      await writeAtomically(file, `${JSON.stringify(content, null, 2)}\n`);
      const nextJson = JSON.stringify(next);
      this.known.set(record.id, { file, revision, json: nextJson, record: next });
      return nextJson === json ? undefined : next;
    });
  }

  /** Deletes a record's file, unless another window changed it since: then it stays, theirs. */
  private async remove(id: string, known: Known<T>): Promise<void> {
    this.known.delete(id);
    await withFileLock(known.file, async () => {
      const disk = await readRecordFile<T>(known.file);
      if (disk.kind === 'file' && disk.file.revision !== known.revision) {
        this.options.logger.warn(`[Registry] ${known.file} kept: another window changed it since this one read it`);
        return;
      }
      if (disk.kind === 'file') {
        await fsp.rm(known.file, { force: true });
      }
    }).catch((e: Error) => this.options.logger.warn(`[Registry] removing ${known.file}: ${e.message}`));
  }
}

/**
 * Three-way merge of one record, field by field: a field `ours` changed since `base` takes ours
 * (removed when ours removed it); every other field is theirs. Without a base, ours wins whole.
 */
export function mergeRecords<T extends object>(base: T | undefined, ours: T, theirs: T): T {
  if (base === undefined) {
    return ours;
  }
  const merged: Record<string, unknown> = { ...(theirs as Record<string, unknown>) };
  const b = base as Record<string, unknown>;
  const o = ours as Record<string, unknown>;
  for (const key of new Set([...Object.keys(b), ...Object.keys(o)])) {
    if (JSON.stringify(o[key]) !== JSON.stringify(b[key])) {
      if (key in o && o[key] !== undefined) {
        merged[key] = o[key];
      } else {
        delete merged[key];
      }
    }
  }
  return merged as T;
}
