/**
 * Clean Up Largest (after Show Worktrees Summary): which worktrees it offers, which of them checked,
 * and the removal of exactly the ones the user keeps checked.
 */
import type { WorktreeSize, WorktreeSummary } from './worktreeSummary';

/** How many of the largest reclaimable worktrees the pick offers checked. */
export const preselectedLargest = 3;

export interface CleanupChoice extends WorktreeSize {
  /** Offered checked: one of the largest. */
  readonly picked: boolean;
}

/** The reclaimable worktrees (merged and discarded agents'), the largest first, the first few checked. */
export function cleanupChoices(summary: WorktreeSummary): CleanupChoice[] {
  return summary.reclaimable.map((w, i) => ({ ...w, picked: i < preselectedLargest }));
}

/**
 * Removes the worktrees of the agents `chosen` among those offered, one at a time in the order
 * offered, each through `remove` (Clean Up's path: its work saved first). An id not offered is left
 * alone. Returns how many went and the bytes they were measured at.
 */
export async function removeChosenWorktrees(
  summary: WorktreeSummary,
  chosen: readonly string[],
  remove: (id: string) => Promise<void>,
): Promise<{ readonly removed: number; readonly freedBytes: number }> {
  const wanted = new Set(chosen);
  let removed = 0;
  let freedBytes = 0;
  for (const w of summary.reclaimable.filter((r) => wanted.has(r.record.id))) {
    await remove(w.record.id);
    removed++;
    freedBytes += w.bytes ?? 0;
  }
  return { removed, freedBytes };
}
