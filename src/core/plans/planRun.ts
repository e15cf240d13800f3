import { AgentError } from '../errors';
import { slugify } from '../naming';
import type { Plan, PlanRunRecord, PlanTask, RunOutcome, TaskRunner } from './planTypes';
import type { MergeStrategy } from '../git';
import type { PlanRunDeps } from './planRunDeps';
import { PlanScheduler } from './planScheduler';
import {
  type CandidatesEnd,
  checkPick,
  discardOthers,
  resumeCandidates,
  runCandidates,
  runningAgents,
} from './planBestOf';
import { integrateTask } from './planIntegration';
import { landPlan, type LandPlanResult, removeIntegration } from './planLanding';
import { parentDir } from '../../util/paths';
import { agentEnd } from './planAgentEnd';
import { taskMarks } from './planBudget';

export type { LandPlanResult } from './planLanding';
export type { PlanRunDeps } from './planRunDeps';

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
  /** Best of N tasks: the candidate picked. */
  private readonly picks = new Map<string, string>();

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
    this.picks.clear();
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
    Object.entries(restored.picks ?? {}).forEach(([taskId, id]) => this.pick(taskId, id));
  }

  /** A Best of N task's candidate `id` is its work: the one agentOf names, merged next (see pick). */
  private pick(taskId: string, id: string): void {
    this.picks.set(taskId, id);
    this.agents.set(taskId, id);
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
      ...(this.picks.size > 0 ? { picks: Object.fromEntries(this.picks) } : {}),
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

  /**
   * Pick, for a Best of N task waiting for one: candidate `agentId` (one that succeeded) becomes the
   * task's work, which is merged next; the other candidates are discarded after that merge.
   */
  pickCandidate(taskId: string, agentId: string): void {
    checkPick(this.deps.manager, this.id, taskId, agentId);
    if (this.scheduler.states().get(taskId) !== 'picking') {
      throw new AgentError('taskNotPicking', { taskId, state: this.scheduler.states().get(taskId) ?? 'waiting' });
    }
    this.pick(taskId, agentId);
    this.scheduler.picked(taskId);
  }

  async run(task: PlanTask, from: 'base' | 'integration'): Promise<RunOutcome> {
    const settings = this.deps.settings();
    if (task.bestOf) {
      // A new attempt: an earlier attempt's pick is neither merged next nor the task's agent any more.
      this.picks.delete(task.id);
      this.agents.delete(task.id);
      const base = from === 'base' ? this.baseSha : this.integrationBranch;
      const where = { runId: this.id, folder: this.repoRoot, base, profile: task.profile ?? settings.defaultProfile };
      return this.candidatesEnded(task, await runCandidates(this.deps.manager, task, where));
    }
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
    // Stryker disable next-line OptionalChaining: equivalent, timings() has an entry for every task of the plan
    const startedAt = this.scheduler.timings().get(task.id)?.startedAt ?? 0;
    if (task.bestOf) {
      const ended = await resumeCandidates(this.deps.manager, this.id, task, startedAt);
      return ended === 'notStarted' ? ended : this.candidatesEnded(task, ended);
    }
    const id = this.agents.get(task.id);
    const agent = id === undefined ? undefined : this.deps.manager.get(id);
    if (!agent || agent.createdAt < startedAt || (agent.status === 'interrupted' && agent.startedAt === undefined)) {
      return 'notStarted';
    }
    return this.outcome(agent.id);
  }

  private candidatesEnded(task: PlanTask, ended: CandidatesEnd): RunOutcome {
    if (ended.picked !== undefined) {
      this.deps.logger.info(`[PlanRun] ${this.id}: task ${task.id}: one candidate succeeded, picked on its own`);
      this.pick(task.id, ended.picked);
    }
    return ended.outcome;
  }

  private async outcome(agentId: string): Promise<RunOutcome> {
    const ended = await agentEnd(this.deps.manager, agentId);
    return ended.status === 'succeeded'
      ? 'succeeded'
      : ended.status === 'stopped' || ended.status === 'interrupted' || ended.status === 'detached'
        ? 'stopped'
        : 'failed';
  }

  async integrate(task: PlanTask): Promise<'merged' | 'conflicts'> {
    const agentId = this.requireAgent(task.id);
    const target = { ...this, planTitle: this.plan.title };
    const result = await integrateTask(this.deps, target, task, agentId);
    if (!result.merged) {
      this.deps.logger.warn(`[PlanRun] ${this.id}: task ${task.id} conflicts in ${result.conflicts.join(', ')}`);
      this.conflicts.set(task.id, result.conflicts);
      return 'conflicts';
    }
    this.conflicts.delete(task.id);
    if (this.deps.manager.get(agentId).status !== 'merged') {
      this.deps.manager.transition(agentId, 'merged', { mergedInto: this.integrationBranch });
    }
    if (task.bestOf && this.deps.discard) {
      const discarded = await discardOthers(this.deps.manager, this.deps.discard, agentId);
      this.deps.logger.info(`[PlanRun] ${this.id}: task ${task.id}: ${discarded.length} other candidates discarded`);
    }
    return 'merged';
  }

  async stop(task: PlanTask): Promise<void> {
    for (const id of runningAgents(this.deps.manager, this.id, task, this.agents.get(task.id))) {
      await this.deps.manager.stop(id);
    }
  }

  /** Land Plan: merges the integration branch into the branch checked out in the workspace, forecast first. */
  land(strategy: MergeStrategy): Promise<LandPlanResult> {
    return landPlan(this.deps, { ...this, planTitle: this.plan.title }, strategy);
  }

  /** Remove Plan (planLanding.ts): the integration worktree goes, its branch once it has landed. */
  removeIntegration(): Promise<{ readonly branchKept: boolean }> {
    return removeIntegration(this.deps, { ...this, planTitle: this.plan.title });
  }

  private requireAgent(taskId: string): string {
    const id = this.agents.get(taskId);
    if (!id) {
      throw new AgentError('taskHasNoAgent', { taskId });
    }
    return id;
  }
}
