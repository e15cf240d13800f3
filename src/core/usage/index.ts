/**
 * Usage: what each agent costs the machine. CPU and memory of its whole process tree, sampled by one
 * sampler while someone looks (the Agents view); the disk its worktree takes, measured when asked for
 * and cached; and the summary of the worktrees on disk with the ones that can go (merged, discarded).
 */
export { ProcessForest, parseProcStat, sampleTree, treeUsage } from './processTree';
export type { ProcessUsage, ProcStat, TreeSample } from './processTree';
export { UsageSampler } from './usageSampler';
export type { ProcessTable, UsageSamplerDeps } from './usageSampler';
export { WorktreeSizes, reclaimable, worktreeOnDisk } from './worktreeSizes';
export type { FolderSizes } from './worktreeSizes';
export { summarizeWorktrees } from './worktreeSummary';
export { cleanupChoices, preselectedLargest, removeChosenWorktrees } from './worktreeCleanup';
export type { CleanupChoice } from './worktreeCleanup';
export type { WorktreeSize, WorktreeSummary } from './worktreeSummary';
