import type { AgentRecord } from '../agent';
import { isActive } from '../agent';
import type { AgentManager } from '../agents';
import { AgentError } from '../errors';
import type { ChangeGit, LandingGit, MergeStrategy, RefGit, SnapshotGit, WorktreeGit } from '../git';
import type { Logger, RepositoryLocks } from '../ports';

export type MergeResult =
  /** The main worktree has uncommitted changes to files the merge would touch: nothing was done. */
  | { readonly kind: 'dirtyMain'; readonly files: readonly string[] }
  /** The agent's worktree has uncommitted work: commit it first (nothing was done). */
  | { readonly kind: 'uncommitted'; readonly files: number }
  /** Conflicts are forecast: nothing was done. */
  | { readonly kind: 'conflicts'; readonly files: readonly string[]; readonly target: string }
  | { readonly kind: 'merged'; readonly sha: string; readonly target: string };

export const savedRefPrefix = 'refs/parallel-agents/saved/';

/** No lock across processes: for a landing that only ever runs in one process (tests of one window). */
export const inProcessOnly: RepositoryLocks = { withLandingLock: (_repoRoot, body) => body() };

/** Landing an agent's work and removing it without ever losing anything. */
export class AgentLanding {
  constructor(
    private readonly manager: AgentManager,
    private readonly git: WorktreeGit & RefGit & ChangeGit & LandingGit & SnapshotGit,
    private readonly logger: Logger,
    private readonly locks: RepositoryLocks = inProcessOnly,
  ) {}

  async commit(id: string, message: string): Promise<string | undefined> {
    const record = this.landable(id);
    const sha = await this.git.commitAll(record.cwd, message);
    await this.manager.refreshChanges(id);
    return sha;
  }

  /**
   * Forecasts first; touches the main worktree only for a merge that is known to be clean. Holds
   * the repository's landing lock from the forecast to the end of the merge, so a landing of
   * another window never moves the target between the two.
   */
  async merge(id: string, strategy: MergeStrategy, message: string): Promise<MergeResult> {
    const { repoRoot } = this.landable(id);
    return this.locks.withLandingLock(repoRoot, () => this.mergeLocked(id, strategy, message));
  }

  private async mergeLocked(id: string, strategy: MergeStrategy, message: string): Promise<MergeResult> {
    // Read again: another window may have changed the agent while this one waited for the lock.
    const record = this.landable(id);
    const target = await this.targetBranch(record);
    const work = await this.git.workState(record.cwd, record.baseSha);
    if (work.uncommittedFiles > 0) {
      return { kind: 'uncommitted', files: work.uncommittedFiles };
    }
    const touched = new Set(await this.git.changedBetween(record.repoRoot, record.baseSha, record.branch!));
    const dirty = (await this.git.dirtyFiles(record.repoRoot)).filter((f) => touched.has(f));
    if (dirty.length > 0) {
      return { kind: 'dirtyMain', files: dirty };
    }
    // land() forecasts again in the repository's write queue; this one, outside it, tells a conflict
    // without waiting behind other writes (a burst of dispatches), for one merge-tree more on a clean merge.
    const forecast = await this.git.forecastMerge(record.repoRoot, target, record.branch!);
    if (!forecast.clean) {
      return { kind: 'conflicts', files: forecast.conflicts, target };
    }
    const outcome = await this.git.land(record.repoRoot, record.cwd, record.branch!, strategy, message);
    if (!outcome.ok) {
      return { kind: 'conflicts', files: outcome.conflicts, target };
    }
    this.logger.info(`[Landing] merged ${record.branch} into ${target} (${strategy}) as ${outcome.sha.slice(0, 12)}`);
    this.manager.transition(id, 'merged', { mergedInto: target });
    await this.manager.refreshChanges(id);
    return { kind: 'merged', sha: outcome.sha, target };
  }

  /** Merges the current branch INTO the agent's branch in its worktree, leaving conflicts there. */
  async resolveInWorktree(id: string): Promise<readonly string[]> {
    const record = this.landable(id);
    const target = await this.targetBranch(record);
    const { conflicts } = await this.git.mergeLeavingConflicts(record.cwd, target);
    await this.manager.refreshChanges(id);
    return conflicts;
  }

  async sendConflictsToAgent(id: string, files: readonly string[]): Promise<void> {
    const record = this.landable(id);
    const target = await this.targetBranch(record);
    const prompt = [
      `Merge the branch ${target} into your branch ${record.branch} (git merge ${target}) and resolve the conflicts in these files:`,
      ...files.map((f) => `- ${f}`),
      'Keep the intent of both sides, then commit the merge.',
    ].join('\n');
    await this.manager.followUp(id, prompt);
  }

  /**
   * Saves everything, then removes the worktree and branch (a branch that existed before the agent
   * stays); Restore Agent brings it back exactly.
   */
  async discard(id: string): Promise<void> {
    const record = this.manager.get(id);
    // A paused agent is stopped first: it no longer resumes.
    if (this.manager.isRunning(id) || record.status === 'paused') {
      await this.manager.stop(id);
    }
    const savedRef = await this.removeWorktree(this.manager.get(id), { deleteBranch: 'always' });
    this.manager.transition(id, 'discarded', {
      // Restore gives this status back: an agent discarded while it ran (or waited to) comes back stopped.
      statusBeforeDiscard: isActive(record.status) || record.status === 'paused' ? 'stopped' : record.status,
      savedRef: savedRef ?? record.savedRef,
    });
  }

  async restore(id: string): Promise<void> {
    const record = this.manager.get(id);
    if (record.worktreePresent !== false || !record.savedRef || !record.worktreePath || !record.branch) {
      throw new AgentError('noSavedWorktree', { title: record.title });
    }
    await this.git.restoreWork(record.repoRoot, record.worktreePath, record.branch, record.savedRef);
    const status = record.status === 'discarded' ? (record.statusBeforeDiscard ?? 'stopped') : record.status;
    // A merged agent restored after Remove keeps its status: a transition to the same status is no change of it.
    this.manager.transition(id, status, { worktreePresent: true });
    this.manager.setTracked(id, true);
  }

  /**
   * Clean Up Agents: removes the worktrees of merged agents (saved first; their branch goes only
   * when its content is in the target branch) and drops merged and discarded agents from the list.
   */
  async cleanUp(): Promise<{ removed: number }> {
    let removed = 0;
    for (const record of this.manager.list()) {
      if (record.status === 'merged') {
        // Nothing to remove when the worktree is gone already (removeWorktree checks).
        // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, any deleteBranch but 'always' is ifMerged
        await this.removeWorktree(record, { deleteBranch: 'ifMerged' });
      }
      if (record.status === 'merged' || record.status === 'discarded') {
        this.manager.forget(record.id);
        removed++;
      }
    }
    return { removed };
  }

  /** Parks the user's own changes that block a merge, so the merge can go ahead. */
  async stashBlockingChanges(id: string, files: readonly string[]): Promise<void> {
    const record = this.manager.get(id);
    await this.git.stashFiles(record.repoRoot, files, `Parallel Agents: before merging "${record.title}"`);
  }

  /** Deletes saved work refs older than `maxAgeMs` — only ever on the user's explicit request. */
  async deleteSavedWork(repoRoots: Iterable<string>, maxAgeMs: number, now: number): Promise<number> {
    let deleted = 0;
    for (const repoRoot of new Set(repoRoots)) {
      for (const saved of await this.git.listSavedWork(repoRoot, savedRefPrefix)) {
        if (now - saved.date > maxAgeMs) {
          await this.git.deleteRef(repoRoot, saved.ref);
          deleted++;
        }
      }
    }
    return deleted;
  }

  /** Removes a merged agent's worktree right after its merge (offered by the Merge command). */
  async removeMergedWorktree(id: string): Promise<void> {
    // Stryker disable next-line ObjectLiteral,StringLiteral: equivalent, any deleteBranch but 'always' is ifMerged
    await this.removeWorktree(this.manager.get(id), { deleteBranch: 'ifMerged' });
  }

  private async removeWorktree(
    record: AgentRecord,
    options: { deleteBranch: 'always' | 'ifMerged' },
  ): Promise<string | undefined> {
    if (!record.worktreePath || record.worktreePresent === false) {
      return undefined;
    }
    // What its runs left running (a server the agent started) ends first: nothing writes the folder after it is saved.
    await this.manager.endLeftovers(record.id);
    const ref = `${savedRefPrefix}${record.id}`;
    const saved = await this.git.saveWork(
      record.cwd,
      ref,
      `Parallel Agents: work of "${record.title}" saved before removing its worktree`,
    );
    this.manager.setTracked(record.id, false);
    await this.git.removeWorktree(record.repoRoot, record.worktreePath, true);
    this.manager.annotate(record.id, { worktreePresent: false, savedRef: saved.ref, changedFiles: [] });
    // A branch that existed before the agent is the user's: only the worktree goes.
    if (record.branch && !record.branchExisted) {
      if (options.deleteBranch === 'always' || (await this.mergedIntoCurrent(record.repoRoot, record.branch))) {
        await this.git.deleteBranch(record.repoRoot, record.branch, true);
      }
    }
    return saved.ref;
  }

  private async mergedIntoCurrent(repoRoot: string, branch: string): Promise<boolean> {
    const target = await this.git.currentBranch(repoRoot);
    return target !== undefined && this.git.isMergedByContent(repoRoot, branch, target);
  }

  private landable(id: string): AgentRecord & { branch: string } {
    const record = this.manager.get(id);
    if (!record.branch || !record.worktreePath || record.worktreePresent === false) {
      throw new AgentError('noWorktreeBranch', { title: record.title });
    }
    if (isActive(record.status)) {
      throw new AgentError('agentStillRunning', { title: record.title });
    }
    return record as AgentRecord & { branch: string };
  }

  private async targetBranch(record: AgentRecord): Promise<string> {
    const target = await this.git.currentBranch(record.repoRoot);
    if (!target) {
      throw new AgentError('workspaceDetachedHead', { repoRoot: record.repoRoot });
    }
    return target;
  }
}
