import type { AgentRecord } from '../agent';
import { Limiter } from '../../util/limiter';

/** The bytes of a folder's files, and a stamp that changes when its top level does (its mtime). */
export interface FolderSizes {
  bytes(dir: string): Promise<number>;
  stamp(dir: string): Promise<number | undefined>;
}

/** An agent's worktree still on disk (as far as its record knows). */
export function worktreeOnDisk(record: AgentRecord): record is AgentRecord & { worktreePath: string } {
  return record.worktreePath !== undefined && record.worktreePresent !== false && !record.worktreeMissing;
}

/** Merged or discarded: its work is landed or saved, so its folder only takes room. */
export function reclaimable(record: AgentRecord): boolean {
  return worktreeOnDisk(record) && (record.status === 'merged' || record.status === 'discarded');
}

/** What a worktree's size depends on, as far as the record tells: status, change set, end. */
function revision(record: AgentRecord): string {
  const changes = record.changedFiles.map((f) => `${f.path}:${f.kind}:${f.added ?? ''}:${f.removed ?? ''}`);
  return [record.status, record.endedAt ?? '', ...changes].join('\n');
}

/**
 * Sizes of agents' worktrees, measured only when asked for, one folder at a time (a walk yields
 * between folders and files), and kept until the record's change set or status, or the folder's
 * mtime, changes.
 */
export class WorktreeSizes {
  private readonly cache = new Map<string, { key: string; bytes: Promise<number> }>();
  private readonly limiter = new Limiter(1);
  /** The sizes measured so far, by the promise that measured them. */
  private readonly settled = new WeakMap<Promise<number>, number>();
  /** The sizes measured so far, by the promise that measured them. */
  constructor(private readonly folders: FolderSizes) {}

  /** The last size measured for this record's worktree, if it is still current by its record. */
  known(record: AgentRecord): number | undefined {
    const entry = worktreeOnDisk(record) ? this.cache.get(record.worktreePath) : undefined;
    return entry?.key.startsWith(`${revision(record)}\n#`) ? this.settled.get(entry.bytes) : undefined;
  }

  /** Measures (or reuses) the size of the record's worktree; undefined when it has none on disk. */
  async size(record: AgentRecord): Promise<number | undefined> {
    if (!worktreeOnDisk(record)) {
      return undefined;
    }
    const dir = record.worktreePath;
    const key = `${revision(record)}\n#${(await this.folders.stamp(dir)) ?? 'gone'}`;
    const entry = this.cache.get(dir);
    if (entry?.key === key) {
      return entry.bytes;
    }
    const bytes = this.limiter.run(() => this.folders.bytes(dir));
    void bytes.then(
      (value) => this.settled.set(bytes, value),
      () => this.cache.get(dir)?.bytes === bytes && this.cache.delete(dir),
    );
    this.cache.set(dir, { key, bytes });
    return bytes;
  }
}
