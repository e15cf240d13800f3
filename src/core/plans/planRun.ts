import type { AgentManager } from '../agents';
import { inProcessOnly, savedRefPrefix } from '../landing';
import { AgentError } from '../errors';
import { slugify } from '../naming';
import type { Plan, PlanRunRecord, PlanTask, RunOutcome, TaskRunner } from './planTypes';
import type { ChangeGit, LandingGit, MergeStrategy, RefGit, SnapshotGit, WorktreeGit } from '../git';
import type { Clock, FileSystemPort, Logger, ManagerSettings, RepositoryLocks } from '../ports';
import { PlanScheduler } from './planScheduler';
import { parentDir } from '../../util/paths';
import { taskMarks } from './planBudget';

export interface PlanRunDeps {
  readonly manager: AgentManager;
  readonly git: WorktreeGit & RefGit & ChangeGit & LandingGit & SnapshotGit;
  readonly fs: FileSystemPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Land Plan holds the repository's landing lock (see AgentLanding.merge); none when absent. */
  readonly locks?: RepositoryLocks;
  readonly settings: () => ManagerSettings & { readonly defaultProfile: string; readonly maxParallel: number };
}

export type LandPlanResult =
  | { readonly kind: 'merged'; readonly sha: string; readonly target: string }
  | { readonly kind: 'conflicts'; readonly files: readonly string[]; readonly target: string };

/**
 * One run of a plan: an integration branch in its own worktree, a scheduler, and the agents of its
 * tasks. Each finished task is committed and merged into the integration branch; dependent tasks
 * start from that branch, so they see their prerequisites' work.
 */
export class PlanRun implements TaskRunner {
  /** Replaced when the run is loaded again from a record another window wrote (see load). */
  scheduler: PlanScheduler;
  readonly maxParallel: number;
  private readonly agents = new Map<string, string>();
  private readonly conflicts = new Map<string, readonly string[]>();

  private constructor(
    readonly id: string,
    readonly plan: Plan,
    readonly repoRoot: string,
    readonly baseSha: string,
    readonly integrationBranch: string,
    readonly integrationPath: string,
    private readonly deps: PlanRunDeps,
    restored?: PlanRunRecord,
  ) {
    this.maxParallel = restored?.maxParallel ?? plan.maxParallel ?? deps.settings().maxParallel;
    this.scheduler = this.schedulerFor(restored);
    if (restored) {
      this.takeState(restored);
    }
  }

  /** Takes another window's saved state (a new, unresumed scheduler): a run another window drives. */
  load(record: PlanRunRecord): void {
    this.scheduler.dispose();
    this.scheduler = this.schedulerFor(record);
    this.conflicts.clear();
    this.agents.clear();
    this.takeState(record);
  }

  private schedulerFor(restored: PlanRunRecord | undefined): PlanScheduler {
    return new PlanScheduler(this.plan, this, {
      maxParallel: this.maxParallel,
      clock: this.deps.clock,
      restored: restored?.scheduler,
    });
  }

  private takeState(restored: PlanRunRecord): void {
    Object.entries(restored.conflicts).forEach(([taskId, files]) => this.conflicts.set(taskId, files));
    // The agents of a restored run are its tasks' latest agents among the restored agent records.
    for (const record of this.deps.manager.list()) {
      if (record.plan?.runId === this.id) {
        this.agents.set(record.plan.taskId, record.id);
      }
    }
  }

  /** A run saved by an earlier window (see toRecord); its scheduler waits for scheduler.resume(). */
  static restore(deps: PlanRunDeps, record: PlanRunRecord): PlanRun {
    return new PlanRun(
      record.id,
      record.plan,
      record.repoRoot,
      record.baseSha,
      record.integrationBranch,
      record.integrationPath,
      deps,
      record,
    );
  }

  toRecord(): PlanRunRecord {
    return {
      id: this.id,
      plan: this.plan,
      repoRoot: this.repoRoot,
      baseSha: this.baseSha,
      integrationBranch: this.integrationBranch,
      integrationPath: this.integrationPath,
      maxParallel: this.maxParallel,
      scheduler: this.scheduler.snapshot(),
      conflicts: Object.fromEntries(this.conflicts),
    };
  }

  /** Resolves the base and creates the integration worktree; nothing is left behind on failure. */
  static async create(deps: PlanRunDeps, id: string, plan: Plan, folder: string): Promise<PlanRun> {
    const repoRoot = await deps.git.repoRoot(folder);
    const baseSha = plan.base ? await deps.git.resolveCommit(repoRoot, plan.base) : await deps.git.headSha(repoRoot);
    const settings = deps.settings();
    const reserved = await deps.manager.names.reserve(repoRoot, `plan-${slugify(plan.title)}`, settings);
    try {
      await deps.fs.mkdirp(parentDir(reserved.worktreePath));
      await deps.git.addWorktree(repoRoot, reserved.worktreePath, reserved.branch, baseSha);
    } finally {
      reserved.release();
    }
    deps.logger.info(
      `[PlanRun] ${id}: integration branch ${reserved.branch} at ${baseSha.slice(0, 12)} in ${reserved.worktreePath}`,
    );
    return new PlanRun(id, plan, repoRoot, baseSha, reserved.branch, reserved.worktreePath, deps);
  }

  /** Files that conflicted the last time the task was merged into the integration branch. */
  conflictsOf(taskId: string): readonly string[] {
    return this.conflicts.get(taskId) ?? [];
  }

  /** Tasks already merged that changed any of `files`: who the conflicting task collides with. */
  collidingTasks(taskId: string): string[] {
    const files = new Set(this.conflictsOf(taskId));
    return this.plan.tasks
      .filter((t) => t.id !== taskId && this.scheduler.states().get(t.id) === 'done')
      .filter((t) => {
        const agent = this.agents.get(t.id);
        return agent !== undefined && this.deps.manager.get(agent).changedFiles.some((f) => files.has(f.path));
      })
      .map((t) => t.id);
  }

  /** Merges the integration branch into the task's agent branch in its worktree, leaving conflicts there to resolve. */
  async resolveInWorktree(taskId: string): Promise<readonly string[]> {
    const agent = this.deps.manager.get(this.requireAgent(taskId));
    const { conflicts } = await this.deps.git.mergeLeavingConflicts(agent.cwd, this.integrationBranch);
    await this.deps.manager.refreshChanges(agent.id);
    return conflicts;
  }

  /** Tasks whose agent runs or whose work is being merged: the run cannot be removed meanwhile. */
  activeTasks(): string[] {
    return [...this.scheduler.states()].filter(([, s]) => s === 'running' || s === 'integrating').map(([id]) => id);
  }

  /** In a window that follows the run, an agent another window made since the run was loaded is found too. */
  agentOf(taskId: string): string | undefined {
    const known = this.agents.get(taskId);
    if (known !== undefined) {
      return known;
    }
    return this.deps.manager
      .list()
      .filter((r) => r.plan?.runId === this.id && r.plan.taskId === taskId)
      .at(-1)?.id;
  }

  async run(task: PlanTask, from: 'base' | 'integration'): Promise<'succeeded' | 'failed' | 'stopped'> {
    const settings = this.deps.settings();
    const record = await this.deps.manager.dispatch({
      prompt: task.prompt,
      profile: task.profile ?? settings.defaultProfile,
      isolation: 'worktree',
      title: task.title,
      folder: this.repoRoot,
      base: from === 'base' ? this.baseSha : this.integrationBranch,
      ...taskMarks(this.id, this.plan, task),
      // Its work must be merged into the integration branch, so even a terminal task gets a worktree.
      inTerminal: task.isolation === 'terminal',
    });
    this.agents.set(task.id, record.id);
    return this.outcome(record.id);
  }

  /**
   * The task starts again when its latest attempt never got an agent that ran: none was made, the
   * agent found belongs to an earlier attempt (made before this one started), or the closing
   * window cut its dispatch short (interrupted before it ever started).
   */
  async resume(task: PlanTask): Promise<RunOutcome | 'notStarted'> {
    const id = this.agents.get(task.id);
    const agent = id === undefined ? undefined : this.deps.manager.get(id);
    const startedAt = this.scheduler.timings().get(task.id)?.startedAt ?? 0;
    if (!agent || agent.createdAt < startedAt || (agent.status === 'interrupted' && agent.startedAt === undefined)) {
      return 'notStarted';
    }
    return this.outcome(agent.id);
  }

  private async outcome(agentId: string): Promise<RunOutcome> {
    const ended = await this.deps.manager.whenEnded(agentId);
    return ended.status === 'succeeded'
      ? 'succeeded'
      : ended.status === 'stopped' || ended.status === 'interrupted' || ended.status === 'detached'
        ? 'stopped'
        : 'failed';
  }

  async integrate(task: PlanTask): Promise<'merged' | 'conflicts'> {
    const agent = this.deps.manager.get(this.requireAgent(task.id));
    await this.deps.git.commitAll(agent.cwd, `${task.title}\n\nPlan "${this.plan.title}", task ${task.id}`);
    const outcome = await this.deps.git.land(
      this.integrationPath,
      agent.cwd,
      agent.branch!,
      'merge',
      `Merge task ${task.id}: ${task.title}`,
    );
    if (!outcome.ok) {
      this.deps.logger.warn(`[PlanRun] ${this.id}: task ${task.id} conflicts in ${outcome.conflicts.join(', ')}`);
      this.conflicts.set(task.id, outcome.conflicts);
      return 'conflicts';
    }
    this.conflicts.delete(task.id);
    if (agent.status !== 'merged') {
      this.deps.manager.transition(agent.id, 'merged', { mergedInto: this.integrationBranch });
    }
    return 'merged';
  }

  async stop(task: PlanTask): Promise<void> {
    const id = this.agents.get(task.id);
    if (id && this.deps.manager.isRunning(id)) {
      await this.deps.manager.stop(id);
    }
  }

  /** Land Plan: merges the integration branch into the branch checked out in the workspace, forecast first. */
  async land(strategy: MergeStrategy): Promise<LandPlanResult> {
    const locks = this.deps.locks ?? inProcessOnly;
    return locks.withLandingLock(this.repoRoot, () => this.landLocked(strategy));
  }

  private async landLocked(strategy: MergeStrategy): Promise<LandPlanResult> {
    const target = await this.deps.git.currentBranch(this.repoRoot);
    if (!target) {
      throw new AgentError('planTargetDetached', { repoRoot: this.repoRoot });
    }
    const forecast = await this.deps.git.forecastMerge(this.repoRoot, target, this.integrationBranch);
    if (!forecast.clean) {
      return { kind: 'conflicts', files: forecast.conflicts, target };
    }
    const outcome = await this.deps.git.land(
      this.repoRoot,
      this.integrationPath,
      this.integrationBranch,
      strategy,
      `Land plan "${this.plan.title}" (${this.integrationBranch})`,
    );
    return outcome.ok
      ? { kind: 'merged', sha: outcome.sha, target }
      : { kind: 'conflicts', files: outcome.conflicts, target };
  }

  /**
   * Remove Plan: the integration worktree goes (its state saved under refs/parallel-agents/saved/
   * first); the integration branch goes only when its content is in the workspace's branch.
   */
  async removeIntegration(): Promise<{ readonly branchKept: boolean }> {
    if (await this.deps.fs.exists(this.integrationPath)) {
      await this.deps.git.saveWork(
        this.integrationPath,
        `${savedRefPrefix}plan-${this.id}`,
        `Parallel Agents: integration worktree of plan "${this.plan.title}" saved before removing it`,
      );
    }
    await this.deps.git.removeWorktree(this.repoRoot, this.integrationPath, true);
    const target = await this.deps.git.currentBranch(this.repoRoot);
    const merged =
      target !== undefined && (await this.deps.git.isMergedByContent(this.repoRoot, this.integrationBranch, target));
    if (merged) {
      await this.deps.git.deleteBranch(this.repoRoot, this.integrationBranch, true);
    }
    this.deps.logger.info(
      `[PlanRun] ${this.id}: integration worktree removed; branch ${this.integrationBranch} ${merged ? 'deleted (landed)' : 'kept (not landed)'}`,
    );
    return { branchKept: !merged };
  }

  private requireAgent(taskId: string): string {
    const id = this.agents.get(taskId);
    if (!id) {
      throw new AgentError('taskHasNoAgent', { taskId });
    }
    return id;
  }
}
