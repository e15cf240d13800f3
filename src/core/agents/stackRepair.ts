/**
 * Ask Agent to Resolve for a stacked agent whose Rebase on Parent conflicts. Its parent's work as
 * it is now (a snapshot, taken without touching the parent's worktree, made a commit on the child's
 * base so that base is the merge's) is merged into the child's branch in its worktree, and the
 * conflicts go to the child as a follow-up. Once that merge is committed the child's branch is
 * settled on the parent's commit, its new base: its own work stays uncommitted when it was, or
 * becomes one commit, so its diff is its own work alone and the next Rebase on Parent moves it like
 * any other. Nothing lands anywhere: the user still merges.
 */
import type { AgentRecord } from '../agent';
import { AgentError } from '../errors';
import type { RefGit } from '../git';
import {
  ConflictRepair,
  repairable,
  sendConflicts,
  settleRun,
  type RepairEnd,
  type RepairGit,
  type RepairManager,
} from '../landing';
import type { AgentManager } from './agentManager';
import { snapshotOf, stackedParent, type StackingGit } from './stacking';

export type StackRepairGit = RepairGit & StackingGit & Pick<RefGit, 'headSha' | 'mergeBase'>;
export type StackRepairManager = RepairManager & Pick<AgentManager, 'setTracked' | 'now'>;

/** A merge of the parent's work under way: what settling it needs. */
export interface ParentMerge {
  readonly parent: string;
  /** The commit merged: the parent's work as it was, its parent the child's base. */
  readonly commit: string;
  /** The child's HEAD before. */
  readonly head: string;
  /** The commit holding the child's uncommitted work for the merge; undefined when it had none. */
  readonly work?: string;
  /** Whether the child had commits of its own: they become one commit on the parent's. */
  readonly commits: boolean;
  /** When the parent's snapshot was taken (ms, the manager's clock): the child's stackedOn.at once settled. */
  readonly at: number;
}

export type ParentRepairStart =
  /** The merge was clean: the child now sits on its parent's work. */
  | { readonly kind: 'merged'; readonly merge: ParentMerge }
  /** The merge is in progress in the child's worktree and the child runs the follow-up `prompt`. */
  | {
      readonly kind: 'sent';
      readonly merge: ParentMerge;
      readonly files: readonly string[];
      readonly prompt: string;
    };

export class StackRepair {
  private readonly repair: ConflictRepair;

  constructor(
    private readonly manager: StackRepairManager,
    private readonly git: StackRepairGit,
  ) {
    this.repair = new ConflictRepair(manager, git);
  }

  /** The parent of stacked agent `id`, when its work can be merged in; refused (nothing done) otherwise. */
  parentOf(id: string): AgentRecord {
    const records = { get: (x: string) => this.manager.get(x), has: (x: string) => this.known(x) };
    return stackedParent(records, id);
  }

  /**
   * Merges the parent's work as it is now into the child's branch in its worktree. Refused, nothing
   * changed, when it is not stacked, its parent is gone, it runs, a merge is in progress, or it has
   * both commits and uncommitted changes (which of them the merge would take is not clear).
   */
  async start(id: string, instructions?: string): Promise<ParentRepairStart> {
    const parent = this.parentOf(id);
    const record = repairable(this.manager, id);
    if (await this.git.mergeInProgress(record.cwd)) {
      throw new AgentError('resolveMergeInProgress', { title: record.title });
    }
    const state = await this.git.workState(record.cwd, record.baseSha);
    if (state.uncommittedFiles > 0 && state.commitsAhead > 0) {
      throw new AgentError('resolveUncommitted', { title: record.title, count: state.uncommittedFiles });
    }
    const head = await this.git.headSha(record.cwd);
    const at = this.manager.now();
    const snapshot = await snapshotOf(this.git, parent, id);
    const commit = await this.git.commitSnapshotOnto(
      record.cwd,
      snapshot,
      record.baseSha,
      `Parallel Agents: the work of "${parent.title}" as it is now`,
    );
    let merge: ParentMerge = { parent: parent.title, commit, head, commits: state.commitsAhead > 0, at };
    let conflicts: readonly string[];
    try {
      if (state.uncommittedFiles > 0) {
        const work = await this.git.commitAll(record.cwd, `Parallel Agents: the work of "${record.title}"`);
        merge = { ...merge, work };
      }
      const message = parentMergeMessage(merge, record.branch);
      ({ conflicts } = await this.git.mergeLeavingConflicts(record.cwd, commit, message));
    } catch (e) {
      await this.undo(id, merge);
      throw e;
    }
    if (conflicts.length === 0) {
      await this.settle(id, merge);
      return { kind: 'merged', merge };
    }
    try {
      const theirs = `the work of agent "${parent.title}" as it is now (commit ${commit.slice(0, 12)})`;
      const prompt = await sendConflicts(this.manager, this.git, record, conflicts, {
        target: commit,
        theirs,
        instructions,
      });
      await this.manager.refreshChanges(id);
      return { kind: 'sent', merge, files: conflicts, prompt };
    } catch (e) {
      // The agent never got the conflicts.
      await this.undo(id, merge);
      throw e;
    }
  }

  /** The child's worktree and branch as they were before `start`: no merge, its work uncommitted again. */
  private async undo(id: string, merge: ParentMerge): Promise<void> {
    const cwd = this.manager.get(id).cwd;
    await this.git.abortMerge(cwd);
    await this.git.settleOnto(cwd, merge.head);
    await this.manager.refreshChanges(id);
  }

  /**
   * After the child's run: its resolved merge committed (only after a run that succeeded), the
   * child settled on its parent's work, and forecast again. A merge left in progress is reported.
   */
  async finish(id: string, merge: ParentMerge): Promise<RepairEnd> {
    const record = await this.manager.whenEnded(id);
    const stopped = await settleRun(this.manager, this.git, record, parentMergeMessage(merge, record.branch ?? ''));
    if (stopped) {
      return stopped;
    }
    const head = await this.git.headSha(record.cwd);
    if ((await this.git.mergeBase(record.cwd, head, merge.commit)) === merge.commit) {
      await this.settle(id, merge);
    } else if (merge.work !== undefined && head === merge.work) {
      // The agent gave the merge up: its work is uncommitted again, as it was.
      await this.git.settleOnto(record.cwd, merge.head);
      await this.manager.refreshChanges(id);
    }
    return this.repair.reforecast(id);
  }

  /** The child's branch moved onto the parent's commit, keeping its files; that commit is its base. */
  private async settle(id: string, merge: ParentMerge): Promise<void> {
    const record = this.manager.get(id);
    const message = merge.commits ? `${record.title} (on the work of "${merge.parent}")` : undefined;
    await this.git.settleOnto(record.cwd, merge.commit, message);
    const stackedOn = record.stackedOn && { ...record.stackedOn, at: merge.at };
    this.manager.annotate(id, { baseSha: merge.commit, ...(stackedOn ? { stackedOn } : {}) });
    this.manager.setTracked(id, false);
    this.manager.setTracked(id, true);
    await this.manager.refreshChanges(id);
  }

  private known(id: string): boolean {
    return this.manager.list().some((r) => r.id === id);
  }
}

export function parentMergeMessage(merge: ParentMerge, branch: string): string {
  return `Merge the work of "${merge.parent}" into ${branch}`;
}
