/** Merging two windows' changes to one record. */
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
