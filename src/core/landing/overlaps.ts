import type { AgentRecord, AgentStatus } from '../agent';

/** agent id → path (relative to the agent's folder) → ids of the other agents changing that file. */
export type OverlapIndex = ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;

const settled: ReadonlySet<AgentStatus> = new Set(['merged', 'discarded']);

/** Path of a change relative to the repository, so agents in different folders compare equal. */
export function repoRelativePath(record: AgentRecord, path: string): string {
  const prefix = record.cwd.startsWith(`${record.repoRoot}/`) ? `${record.cwd.slice(record.repoRoot.length + 1)}/` : '';
  return prefix + path;
}

/** Files that two or more live agents of one repository change at once. */
export function findOverlaps(records: readonly AgentRecord[]): OverlapIndex {
  const byFile = new Map<string, { id: string; path: string }[]>();
  for (const record of records) {
    if (settled.has(record.status)) {
      continue;
    }
    for (const file of record.changedFiles) {
      const key = `${record.repoRoot}\0${repoRelativePath(record, file.path)}`;
      const list = byFile.get(key) ?? [];
      list.push({ id: record.id, path: file.path });
      byFile.set(key, list);
    }
  }
  const index = new Map<string, Map<string, string[]>>();
  for (const owners of byFile.values()) {
    if (owners.length < 2) {
      continue;
    }
    for (const owner of owners) {
      const files = index.get(owner.id) ?? new Map<string, string[]>();
      files.set(
        owner.path,
        owners.filter((o) => o.id !== owner.id).map((o) => o.id),
      );
      index.set(owner.id, files);
    }
  }
  return index;
}

export function sameOverlaps(a: OverlapIndex, b: OverlapIndex): boolean {
  const flat = (index: OverlapIndex) => JSON.stringify([...index].map(([id, files]) => [id, [...files]]).sort());
  return flat(a) === flat(b);
}
