/**
 * Review progress: which of an agent's changed files the user has viewed. A mark holds the stamp of
 * the agent's version when it was marked (its blob hash, or `deleted`), so a file the agent changes
 * again comes back unviewed; a file no longer changed loses its mark.
 */
import { type AgentRecord, type ChangedFile, finishedStatuses } from '../agent';

export const deletedStamp = 'deleted';

/** Paths whose current stamp is needed to check the marks (deleted files need none). */
export function pathsToStamp(viewed: AgentRecord['viewedFiles'], files: readonly ChangedFile[]): string[] {
  return viewed ? files.filter((f) => viewed[f.path] !== undefined && f.kind !== 'deleted').map((f) => f.path) : [];
}

/**
 * The marks that still hold for `files`, given the current stamps of (some of) their paths: a file
 * no longer changed, or whose stamp moved on, loses its mark.
 */
export function keptMarks(
  viewed: AgentRecord['viewedFiles'],
  files: readonly ChangedFile[],
  stamps: ReadonlyMap<string, string | undefined>,
): Record<string, string> | undefined {
  if (!viewed) {
    return undefined;
  }
  const kept: Record<string, string> = {};
  for (const file of files) {
    const mark = viewed[file.path];
    // A path not stamped was marked after the stamps were asked for: its mark is new.
    const now = file.kind === 'deleted' ? deletedStamp : stamps.has(file.path) ? stamps.get(file.path) : mark;
    if (mark !== undefined && mark === now) {
      kept[file.path] = mark;
    }
  }
  return kept;
}

/** Whether `a` and `b` hold the same marks. */
export function sameMarks(a: AgentRecord['viewedFiles'], b: AgentRecord['viewedFiles']): boolean {
  const ka = Object.keys(a ?? {});
  // Stryker disable next-line OptionalChaining: equivalent, each key is a's, and b has as many keys: neither is unset
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => a?.[k] === b?.[k]);
}

export function isViewed(record: AgentRecord, path: string): boolean {
  return record.viewedFiles?.[path] !== undefined;
}

/** Viewed files among the changed ones, and how many are changed. */
export function viewedCount(record: AgentRecord): { readonly viewed: number; readonly total: number } {
  return {
    viewed: record.changedFiles.filter((f) => isViewed(record, f.path)).length,
    total: record.changedFiles.length,
  };
}

/** The changed files in review order: those not viewed yet first, each group in its own order. */
export function reviewOrder(record: AgentRecord): ChangedFile[] {
  const files = [...record.changedFiles];
  return [...files.filter((f) => !isViewed(record, f.path)), ...files.filter((f) => isViewed(record, f.path))];
}

/**
 * Agents waiting for review: finished, with changed files not all viewed, not merged or discarded;
 * the one that finished first comes first.
 */
export function reviewQueue(records: readonly AgentRecord[]): AgentRecord[] {
  return (
    records
      // Fewer viewed than changed: so at least one changed file.
      .filter(
        (r) => finishedStatuses.has(r.status) && !r.worktreeMissing && viewedCount(r).viewed < r.changedFiles.length,
      )
      .sort((a, b) => (a.endedAt ?? a.createdAt) - (b.endedAt ?? b.createdAt) || a.createdAt - b.createdAt)
  );
}
