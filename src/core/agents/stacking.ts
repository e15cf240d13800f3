/**
 * Stacked agents: an agent dispatched on top of another agent's work starts from a snapshot of its
 * parent's worktree as it is then (its commits, uncommitted and untracked files), taken without
 * touching the parent; its diff is its own work alone. When the parent works on, Rebase on Parent
 * moves the stacked agent's work onto a new snapshot (see StackGit.rebaseOnto).
 */
import type { AgentRecord } from '../agent';
import { AgentError } from '../errors';
import type { RefGit, SnapshotGit, StackGit } from '../git';

export type StackingGit = Pick<SnapshotGit, 'saveWork'> & Pick<RefGit, 'deleteRef'> & StackGit;

interface Records {
  has(id: string): boolean;
  get(id: string): AgentRecord;
}

/** The agent to stack on, when it has a worktree of its own to snapshot. */
export function stackParent(records: Records, id: string): AgentRecord {
  const parent = records.get(id);
  const title = parent.title;
  if (parent.isolation !== 'worktree' || !parent.worktreePath) {
    throw new AgentError('stackParentUnfit', { title, reason: 'terminal' });
  }
  if (parent.status === 'merged' || parent.status === 'discarded') {
    throw new AgentError('stackParentUnfit', { title, reason: 'landed' });
  }
  if (parent.worktreePresent === false || parent.worktreeMissing) {
    throw new AgentError('stackParentUnfit', { title, reason: 'noWorktree' });
  }
  return parent;
}

/**
 * A commit of the parent's worktree as it is now. Its ref is deleted at once: the stacked agent's
 * branch, made from it next, keeps it (git prunes no new object for two weeks meanwhile).
 */
export async function snapshotOf(git: StackingGit, parent: AgentRecord, childId: string): Promise<string> {
  const ref = `refs/parallel-agents/stack/${childId}`;
  const saved = await git.saveWork(parent.cwd, ref, `Parallel Agents: the work of "${parent.title}" to stack on`);
  await git.deleteRef(parent.repoRoot, ref);
  return saved.sha;
}

/**
 * The parent of stacked agent `id`, fit to take a snapshot of. Refused when `id` is not stacked,
 * has no worktree, or its parent is gone or has no worktree of its own.
 */
export function stackedParent(records: Records, id: string): AgentRecord {
  const record = records.get(id);
  const title = record.title;
  if (!record.stackedOn) {
    throw new AgentError('notStacked', { title });
  }
  if (record.worktreePresent === false || record.worktreeMissing || !record.worktreePath) {
    throw new AgentError('worktreeMissing', { title });
  }
  if (!records.has(record.stackedOn.id)) {
    throw new AgentError('stackParentGone', { title, parent: record.stackedOn.title });
  }
  return stackParent(records, record.stackedOn.id);
}

/**
 * Rebase on Parent: moves the stacked agent's work (committed or not) onto a snapshot of its
 * parent's worktree as it is now; resolves with the new base. Refused, nothing changed, when it is
 * not stacked, its parent is gone or has no worktree, or its work does not apply there (the refusal
 * then names the agent, for Ask Agent to Resolve: stackRepair.ts). `now`: when the snapshot is taken.
 */
export async function rebaseOnParent(
  git: StackingGit,
  records: Records,
  id: string,
  now: number,
): Promise<Pick<AgentRecord, 'baseSha' | 'stackedOn'>> {
  const record = records.get(id);
  const parent = stackedParent(records, id);
  const base = await snapshotOf(git, parent, id);
  try {
    await git.rebaseOnto(record.cwd, record.baseSha, base);
  } catch (e) {
    if (AgentError.isCode(e, 'rebaseOnParentConflict')) {
      throw new AgentError('rebaseOnParentConflict', { ...e.data, id, title: record.title }, e.detail);
    }
    throw e;
  }
  return { baseSha: base, stackedOn: { id: parent.id, title: parent.title, at: now } };
}

/**
 * Whether the parent may have changed since the stacked agent's last snapshot of it (dispatch,
 * Rebase on Parent, or its work merged by Ask Agent to Resolve): it runs now, or a run of it ended
 * after the snapshot. Edits made by hand in the parent's worktree are not seen.
 */
export function parentRanSince(child: AgentRecord, parent: AgentRecord | undefined): boolean {
  if (!child.stackedOn || !parent || parent.id !== child.stackedOn.id) {
    return false;
  }
  const since = child.stackedOn.at ?? child.createdAt;
  return parent.status === 'running' || parent.status === 'preparing' || (parent.endedAt ?? 0) > since;
}
