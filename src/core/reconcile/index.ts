/**
 * Reconcile: compares the agent records with the worktrees, branches and saved refs git really has,
 * and repairs what a crash or another tool left (orphans to adopt or discard, records whose worktree
 * is gone), never deleting work that is not saved elsewhere.
 */
export type { GitRefInfo } from '../git';
export type { Orphan, OrphanKey } from './reconcile';
export { Reconciler } from './reconciler';
export type { ReconcileReport } from './reconciler';
export type { WorktreeEntry } from '../git';
export { atOrUnder } from './orphanChecks';
