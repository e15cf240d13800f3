import type { AgentRecord } from '../agent';
import { reclaimable, worktreeOnDisk, type WorktreeSizes } from './worktreeSizes';

export interface WorktreeSize {
  readonly record: AgentRecord;
  /** Undefined when it could not be measured (the folder went meanwhile, a permission). */
  readonly bytes: number | undefined;
}

/** Show Worktrees Summary: the agents' worktrees on disk, and which can go without losing anything. */
export interface WorktreeSummary {
  readonly count: number;
  readonly totalBytes: number;
  /** Merged and discarded agents' worktrees still on disk, the largest first. */
  readonly reclaimable: readonly WorktreeSize[];
  readonly reclaimableBytes: number;
}

/** Measures every agent's worktree on disk (sizes are cached: see WorktreeSizes) and sums them up. */
export async function summarizeWorktrees(
  records: readonly AgentRecord[],
  sizes: WorktreeSizes,
): Promise<WorktreeSummary> {
  const onDisk = records.filter(worktreeOnDisk);
  const measured: WorktreeSize[] = await Promise.all(
    onDisk.map(async (record) => ({ record, bytes: await sizes.size(record).catch(() => undefined) })),
  );
  const sum = (list: readonly WorktreeSize[]) => list.reduce((total, w) => total + (w.bytes ?? 0), 0);
  const spare = measured
    .filter((w) => reclaimable(w.record))
    .sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1) || a.record.id.localeCompare(b.record.id));
  return { count: measured.length, totalBytes: sum(measured), reclaimable: spare, reclaimableBytes: sum(spare) };
}
