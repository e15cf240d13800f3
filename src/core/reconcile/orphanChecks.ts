/**
 * When an orphan is no orphan: a worktree or branch is orphaned only while no record claims it and
 * no live process works in it. Reconcile checks both when it lists orphans; Adopt and Discard check
 * again at the moment they act, on the records as the registry on disk has them now (another window
 * may have written one since) and on the processes running now. Pure decisions only.
 */
import type { AgentRecord } from '../agent';
import { AgentError } from '../errors';
import type { WorktreeEntry } from '../git';
import type { LiveProcess } from '../ports';
import { type Orphan, samePathKey, shortBranch } from './reconcile';

/** Whether `p` is `folder` or inside it (paths compared as git and Node print them). */
export function atOrUnder(p: string, folder: string): boolean {
  const key = samePathKey(p);
  const dir = samePathKey(folder);
  return key === dir || key.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The record of the orphan's repository that claims its worktree folder or its branch, if any. */
export function claimOf(orphan: Orphan, records: readonly AgentRecord[]): AgentRecord | undefined {
  const root = samePathKey(orphan.repoRoot);
  const path = samePathKey(orphan.path);
  return records.find(
    (r) =>
      samePathKey(r.repoRoot) === root &&
      ((r.worktreePath !== undefined && samePathKey(r.worktreePath) === path) || r.branch === orphan.branch),
  );
}

/** Worktrees and branches in use, with those the given records claim added. */
export function claimedToo(
  inUse: { readonly paths: readonly string[]; readonly branches: readonly string[] },
  records: readonly AgentRecord[],
): { readonly paths: readonly string[]; readonly branches: readonly string[] } {
  return {
    paths: [...inUse.paths, ...records.flatMap((r) => (r.worktreePath ? [r.worktreePath] : []))],
    branches: [...inUse.branches, ...records.flatMap((r) => (r.branch ? [r.branch] : []))],
  };
}

/** A live process working in the orphan's worktree; a branch orphan has no folder for one to work in. */
export function liveIn(orphan: Orphan, live: readonly LiveProcess[]): LiveProcess | undefined {
  return orphan.kind === 'worktree' ? live.find((p) => atOrUnder(p.cwd, orphan.path)) : undefined;
}

/** The orphans no live process works in. */
export function withoutLive(orphans: readonly Orphan[], live: readonly LiveProcess[]): Orphan[] {
  return orphans.filter((o) => liveIn(o, live) === undefined);
}

/** Why Adopt or Discard must leave the orphan as it is now, or undefined when it is still an orphan. */
export function orphanRefusal(
  orphan: Orphan,
  records: readonly AgentRecord[],
  live: readonly LiveProcess[],
): AgentError | undefined {
  const claim = claimOf(orphan, records);
  if (claim) {
    return new AgentError('orphanNowHasRecord', { branch: orphan.branch, title: claim.title });
  }
  const process = liveIn(orphan, live);
  return process ? new AgentError('orphanInUse', { path: orphan.path, pid: process.pid }) : undefined;
}

/**
 * Reconcile lists a branch as orphaned when the worktree holding it is to be pruned; a prune that was
 * refused (its folder still holds files) leaves the branch checked out there: no orphan, or Adopt
 * would aim at that folder and Discard could not delete the branch.
 */
export function withoutUnpruned(
  orphans: readonly Orphan[],
  worktrees: readonly WorktreeEntry[],
  unpruned: readonly string[],
): Orphan[] {
  const keys = new Set(unpruned.map(samePathKey));
  const held = new Set(
    worktrees.filter((w) => keys.has(samePathKey(w.path))).flatMap((w) => shortBranch(w.branch) ?? []),
  );
  return orphans.filter((o) => o.kind !== 'branch' || !held.has(o.branch));
}
