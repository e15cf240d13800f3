import type { AgentRecord, ChangedFile } from '../../core/agent';

/**
 * A value computed from one version of a record: kept as long as the manager holds that very
 * object. Records are never changed in place (every change puts a new object), so a new version
 * is a new key and computes again; old versions are dropped with their objects.
 */
export class RecordMemo<T> {
  private readonly values = new WeakMap<AgentRecord, { readonly variant: string; readonly value: T }>();

  /** `keepable`: whether a value depends on its record alone (not on the clock, say); else never kept. */
  constructor(private readonly keepable: (record: AgentRecord) => boolean = () => true) {}

  /**
   * The value kept for this version of `record` and this `variant` (what else it depends on, e.g.
   * other agents' titles), else `compute()`'s, kept when it may be.
   */
  get(record: AgentRecord, variant: string, compute: () => T): T {
    if (!this.keepable(record)) {
      return compute();
    }
    const kept = this.values.get(record);
    if (kept && kept.variant === variant) {
      return kept.value;
    }
    const value = compute();
    this.values.set(record, { variant, value });
    return value;
  }
}

/** Each change set's files by path, built once per change set (a record's list is never changed in place). */
const filesByPath = new WeakMap<readonly ChangedFile[], Map<string, ChangedFile>>();

/** The file `path` of the record's change set: one lookup, however many files the agent changed. */
export function fileOf(record: AgentRecord, path: string): ChangedFile | undefined {
  let byPath = filesByPath.get(record.changedFiles);
  if (!byPath) {
    byPath = new Map(record.changedFiles.map((f) => [f.path, f]));
    filesByPath.set(record.changedFiles, byPath);
  }
  return byPath.get(path);
}
