/**
 * The records of one kind (agents, plan runs) in the registries of the repositories they belong
 * to: `<registry>/<kind>/<id>.json`, one file per record. A window reads them all at start and
 * writes only the records it changed. When another window wrote a record since this one read it,
 * the two are merged field by field: the fields this window changed win, the others stay as the
 * other window left them — so neither window's change is lost. A file that cannot be read (corrupt,
 * from a newer version) is reported, skipped, and never overwritten or deleted.
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangedElsewhere, RecordStore, RecordUpdate } from '../../core/ports';
import { SerialQueue } from '../../util/async';
import { type Disposable, Emitter } from '../../util/event';
import { mergeRecords } from '../../util/merge';
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
import type { Known, RegistryStoreOptions, StoredRecord } from './registryTypes';

export type { RegistryKind, RegistryStoreOptions } from './registryTypes';

/** Another window's write is read this long after its first file event (a rename comes with a few more). */
const settleMs = 25;

export class RegistryStore<T extends StoredRecord> implements RecordStore<T>, Disposable {
  private readonly known = new Map<string, Known<T>>();
  private readonly queue = new SerialQueue();
  private readonly writer = `${os.hostname()}:${process.pid}`;
  private readonly elsewhere = new Emitter<ChangedElsewhere<T>>();
  private readonly watchers: fs.FSWatcher[] = [];
  /** Files named by watch events, read once the events settle. */
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private problemList: RegistryProblem[] = [];
  readonly onDidChangeElsewhere = this.elsewhere.event;

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
      this.watch(dir);
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
    // What this window removed is decided now, against what it knows now: by the time the queue
    // gets to this save, it may know records another window added, which this list never had.
    const listed = new Set(snapshot.map((r) => r.id));
    const removed = [...this.known.keys()].filter((id) => !listed.has(id));
    // Likewise each record's base: what this window knew of it when it made this list.
    const bases = new Map(snapshot.map((r) => [r.id, this.known.get(r.id)]));
    return this.queue.run(async () => {
      let failure: unknown;
      // One record that cannot be written does not keep the others from being written.
      for (const record of snapshot) {
        try {
          await this.write(record, bases.get(record.id));
        } catch (e) {
          failure ??= e;
        }
      }
      for (const id of removed) {
        const known = this.known.get(id);
        if (known) {
          await this.remove(id, known);
        }
      }
      if (failure !== undefined) {
        throw failure;
      }
    });
  }

  /** Stops watching; what is read after this is announced to nobody (the emitter drops its listeners). */
  dispose(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers.splice(0)) {
      watcher.close();
    }
    this.elsewhere.dispose();
  }

  /**
   * Follows a registry folder: what another window writes or removes there is read and announced
   * (onDidChangeElsewhere). This window's own writes are recognised by their revision and not announced.
   */
  private watch(dir: string): void {
    try {
      fs.mkdirSync(dir, { recursive: true });
      // Stryker disable next-line ObjectLiteral,BooleanLiteral: equivalent, every owner disposes the store
      const watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (name && name.endsWith('.json')) {
          this.pending.add(path.join(dir, name));
          this.timer ??= setTimeout(() => void this.readPending(), settleMs);
        }
      });
      // Stryker disable next-line all: untestable, no test can make a started watch fail; a warning only
      watcher.on('error', (e) => this.options.logger.warn(`[Registry] watching ${dir}: ${e.message}`));
      this.watchers.push(watcher);
    } catch (e) {
      this.options.logger.warn(
        `[Registry] cannot watch ${dir}: ${(e as Error).message}; other windows' changes show after a reload`,
      );
    }
  }

  /** Reads the files other windows touched; runs in the write queue, so a read never sees this window half-way. */
  private readPending(): Promise<void> {
    this.timer = undefined;
    const files = [...this.pending];
    this.pending.clear();
    return this.queue.run(async () => {
      const reads = await Promise.all(files.map(async (file) => ({ file, read: await readRecordFile<T>(file) })));
      // From here on nothing waits: what this window knows and what it is told change in one step,
      // so a save never sees a record known here that the window's list does not have yet.
      const changed: { record: T; base?: T }[] = [];
      const removed: string[] = [];
      for (const { file, read } of reads) {
        const id = path.basename(file, '.json');
        const known = this.known.get(id);
        if (read.kind === 'missing') {
          if (known?.file === file) {
            this.known.delete(id);
            removed.push(id);
          }
        } else if (read.kind === 'problem') {
          this.options.logger.warn(`[Registry] ${file} skipped (${read.problem.reason}): ${read.problem.detail}`);
        } else if (read.file.record.id === id && (known === undefined || read.file.revision > known.revision)) {
          const record = read.file.record;
          this.known.set(id, { file, revision: read.file.revision, json: JSON.stringify(record), record });
          changed.push({ record, base: known?.record });
        }
      }
      if (changed.length > 0 || removed.length > 0) {
        this.elsewhere.fire({ changed, removed });
      }
    });
  }

  /**
   * Writes one record. When another window's changes were merged in, the merged record is announced
   * as a change from elsewhere (its base: what this window wrote), in the same step as this window
   * learns its revision — else the window would keep its older copy and write it back later.
   */
  private async write(record: T, base: Known<T> | undefined): Promise<void> {
    const json = JSON.stringify(record);
    if (base?.json === json) {
      return;
    }
    const registry = base ? undefined : this.options.registryOf(record.repoRoot);
    if (!base && registry === undefined) {
      this.options.logger.warn(`[Registry] ${record.id}: ${record.repoRoot} has no registry; not saved`);
      return;
    }
    const file = base?.file ?? recordFilePath(path.join(registry as string, this.options.kind), record.id);
    try {
      await this.writeMerged(file, record, json, base);
    } catch (e) {
      if (!this.options.health?.report(file, e)) {
        throw e;
      }
      this.options.logger.warn(`[Registry] ${file} not written, its folder refuses writes: ${(e as Error).message}`);
    }
  }

  private async writeMerged(file: string, record: T, json: string, base: Known<T> | undefined): Promise<void> {
    await fsp.mkdir(path.dirname(file), { recursive: true });
    return withFileLock(file, async () => {
      const disk = await readRecordFile<T>(file);
      if (disk.kind === 'problem') {
        this.options.logger.warn(`[Registry] ${file} not overwritten (${disk.problem.reason}): ${disk.problem.detail}`);
        return;
      }
      // Stryker disable next-line ConditionalExpression: equivalent, a missing read has no file
      const theirs = disk.kind === 'file' ? disk.file : undefined;
      const changedElsewhere = theirs !== undefined && theirs.revision !== base?.revision;
      const next = changedElsewhere ? mergeRecords(base?.record, record, theirs.record) : record;
      const nextJson = await this.writeFile(file, next, (theirs?.revision ?? base?.revision ?? 0) + 1);
      if (nextJson !== json) {
        this.elsewhere.fire({ changed: [{ record: next, base: record }], removed: [] });
      }
    });
  }

  /** A locked read-modify-write (RecordStore.update): `change` sees the file as it is now. */
  update(id: string, change: (stored: T) => T | undefined): Promise<RecordUpdate<T> | undefined> {
    return this.queue.run(async () => {
      const file = this.known.get(id)?.file;
      // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, reading no file gives undefined too
      if (file === undefined) {
        return undefined;
      }
      return withFileLock(file, async () => {
        const disk = await readRecordFile<T>(file);
        if (disk.kind !== 'file') {
          return undefined;
        }
        const next = change(disk.file.record);
        if (next === undefined) {
          const { revision, record } = disk.file;
          this.known.set(id, { file, revision, json: JSON.stringify(record), record });
          return { record, written: false };
        }
        await this.writeFile(file, next, disk.file.revision + 1);
        return { record: next, written: true };
      });
    });
  }

  /** Writes `record` as `revision` (the lock held) and takes it as known; returns its JSON. */
  private async writeFile(file: string, record: T, revision: number): Promise<string> {
    const content: RecordFile<T> = {
      schemaVersion: registrySchemaVersion,
      revision,
      writtenAt: Date.now(),
      writer: this.writer,
      record,
    };
    await writeAtomically(file, `${JSON.stringify(content, null, 2)}\n`);
    const json = JSON.stringify(record);
    this.known.set(record.id, { file, revision, json, record });
    return json;
  }

  /** Deletes a record's file, unless another window changed it since: then it stays, theirs. */
  private async remove(id: string, known: Known<T>): Promise<void> {
    this.known.delete(id);
    await withFileLock(known.file, async () => {
      const disk = await readRecordFile<T>(known.file);
      if (disk.kind === 'file' && disk.file.revision !== known.revision) {
        // Stryker disable next-line StringLiteral: log text
        this.options.logger.warn(`[Registry] ${known.file} kept: another window changed it since this one read it`);
        return;
      }
      if (disk.kind === 'file') {
        // Stryker disable next-line ObjectLiteral,BooleanLiteral: race-only, the file was just read under its lock
        await fsp.rm(known.file, { force: true });
      }
    }).catch((e: Error) => {
      this.options.health?.report(known.file, e);
      this.options.logger.warn(`[Registry] removing ${known.file}: ${e.message}`);
    });
  }
}
