/**
 * Ask Agent to Resolve Conflicts: the branch the agent conflicts with (the workspace's branch, or
 * another agent's) is merged INTO the agent's branch in its own worktree; a clean merge is committed
 * there, a conflicted one stays in progress and the agent gets the conflicts as a follow-up. When
 * that run ends, a merge the agent resolved but did not commit is committed, and the agent is
 * forecast again. Nothing ever lands in the workspace: the user still merges.
 */
import type { AgentRecord, AgentStatus, ForecastedConflicts } from '../agent';
import { isActive } from '../agent';
import type { AgentManager } from '../agents';
import { AgentError } from '../errors';
import type { ChangeGit, ConflictGit, LandingGit, RefGit } from '../git';
import { forecastRepo, type RepoForecast } from './conflictForecast';
import { conflictPrompt, conflictPromptBytes, type ConflictPromptInput } from './conflictPrompt';
import { liveBranchAgents, type ForecastConflict } from './mergeOrder';

export type RepairGit = Pick<ChangeGit, 'workState' | 'commitAll'> &
  Pick<LandingGit, 'mergeLeavingConflicts' | 'forecastAgents'> &
  Pick<RefGit, 'currentBranch'> &
  ConflictGit;

export type RepairManager = Pick<
  AgentManager,
  'get' | 'list' | 'annotate' | 'followUp' | 'refreshChanges' | 'isRunning' | 'whenEnded'
>;

/**
 * A branch to merge into the agent's: the workspace's, or the branch of `agentId`; with `parent`,
 * the work of its parent agent as it is now, committed or not (`branch` names the parent's branch).
 */
export interface RepairTarget {
  readonly branch: string;
  readonly agentId?: string;
  readonly parent?: true;
}

const landed = (r: AgentRecord) => r.status === 'merged' || r.status === 'discarded';

export type RepairStart =
  /** The merge was clean and is committed on the agent's branch: no follow-up was needed. */
  | { readonly kind: 'merged'; readonly target: string }
  /** The merge is in progress in the worktree and the agent runs the follow-up `prompt`. */
  | { readonly kind: 'sent'; readonly target: string; readonly files: readonly string[]; readonly prompt: string };

export type RepairEnd =
  /** Files still holding conflict markers after the agent's run: the merge stays in progress. */
  | { readonly kind: 'unresolved'; readonly files: readonly string[] }
  /** The run did not succeed (`status`) and left the merge in progress: nothing is committed for it. */
  | { readonly kind: 'runFailed'; readonly status: AgentStatus }
  /** The agent forecast again; `conflicts` are those it still has (none: it merges cleanly). */
  | { readonly kind: 'forecast'; readonly conflicts: readonly ForecastConflict[]; readonly currentBranch?: string };

export function mergeMessage(target: string, branch: string): string {
  return `Merge ${target} into ${branch}`;
}

export class ConflictRepair {
  constructor(
    private readonly manager: RepairManager,
    private readonly git: RepairGit,
  ) {}

  /**
   * The workspace's branch first; for a stacked agent, its parent's work as it is now (merged by
   * StackRepair in core/agents); then the branches of the agents the last forecast found it conflicting with.
   */
  async targets(id: string): Promise<RepairTarget[]> {
    const record = repairable(this.manager, id);
    const current = await this.git.currentBranch(record.repoRoot);
    if (!current) {
      throw new AgentError('workspaceDetachedHead', { repoRoot: record.repoRoot });
    }
    const parent = this.manager.list().find((r) => r.id === record.stackedOn?.id);
    const parents: RepairTarget[] =
      parent && parent.worktreePath && parent.worktreePresent !== false && !parent.worktreeMissing && !landed(parent)
        ? [{ branch: parent.branch ?? parent.title, agentId: parent.id, parent: true }]
        : [];
    const others = (record.forecastConflicts?.agents ?? []).flatMap((otherId) => {
      const other = this.manager.list().find((r) => r.id === otherId);
      return other?.branch && other.status !== 'discarded' && other.id !== parent?.id
        ? [{ branch: other.branch, agentId: other.id }]
        : [];
    });
    return [{ branch: current }, ...parents, ...others];
  }

  /**
   * Merges `target` into the agent's branch in its worktree. Refused, with nothing done, while the
   * agent runs or when its worktree has uncommitted changes (they would end up in the merge).
   */
  async start(id: string, target: string, instructions?: string): Promise<RepairStart> {
    const record = repairable(this.manager, id);
    if (await this.git.mergeInProgress(record.cwd)) {
      throw new AgentError('resolveMergeInProgress', { title: record.title });
    }
    const work = await this.git.workState(record.cwd, record.baseSha);
    if (work.uncommittedFiles > 0) {
      throw new AgentError('resolveUncommitted', { title: record.title, count: work.uncommittedFiles });
    }
    const message = mergeMessage(target, record.branch);
    const { conflicts } = await this.git.mergeLeavingConflicts(record.cwd, target, message);
    await this.manager.refreshChanges(id);
    if (conflicts.length === 0) {
      return { kind: 'merged', target };
    }
    try {
      const prompt = await sendConflicts(this.manager, this.git, record, conflicts, { target, instructions });
      return { kind: 'sent', target, files: conflicts, prompt };
    } catch (e) {
      // The agent never got the conflicts: the worktree goes back to how it was.
      await this.git.abortMerge(record.cwd);
      await this.manager.refreshChanges(id);
      throw e;
    }
  }

  /**
   * After the agent's run: a merge it resolved but left uncommitted is committed (only after a run
   * that succeeded); files it left with markers are reported (the merge stays in progress);
   * otherwise the agent is forecast again.
   */
  async finish(id: string, target: string): Promise<RepairEnd> {
    const record = await this.manager.whenEnded(id);
    const stopped = await settleRun(this.manager, this.git, record, mergeMessage(target, record.branch ?? ''));
    return stopped ?? this.reforecast(id);
  }

  /** Forecasts the agent's repository again (recording every agent's result) and returns the agent's conflicts. */
  async reforecast(id: string): Promise<RepairEnd> {
    const record = this.manager.get(id);
    const agents = liveBranchAgents(this.manager.list()).get(record.repoRoot) ?? [];
    const currentBranch = await this.git.currentBranch(record.repoRoot);
    const forecast = await forecastRepo(this.git, record.repoRoot, agents, currentBranch);
    recordForecast(this.manager, forecast);
    const conflicts = forecast.conflicts.filter((c) => c.agentId === id || c.otherId === id);
    return { kind: 'forecast', conflicts, currentBranch };
  }
}

/** The agent, when it can take a repair: its worktree and branch there, not running. */
export function repairable(manager: RepairManager, id: string): AgentRecord & { branch: string } {
  const record = manager.get(id);
  if (record.worktreeMissing) {
    throw new AgentError('worktreeMissing', { title: record.title });
  }
  if (!record.branch || !record.worktreePath || record.worktreePresent === false) {
    throw new AgentError('noWorktreeBranch', { title: record.title });
  }
  if (isActive(record.status) || manager.isRunning(id)) {
    throw new AgentError('agentStillRunning', { title: record.title });
  }
  return record as AgentRecord & { branch: string };
}

/** Sends the conflicted files of the merge in progress in the agent's worktree as its follow-up; resolves with it. */
export async function sendConflicts(
  manager: RepairManager,
  git: RepairGit,
  record: AgentRecord & { branch: string },
  conflicts: readonly string[],
  input: Omit<ConflictPromptInput, 'branch' | 'files'>,
): Promise<string> {
  const texts = await git.worktreeTexts(record.cwd, conflicts, conflictPromptBytes * 4);
  const files = conflicts.map((path, i) => ({ path, text: texts[i] }));
  const prompt = conflictPrompt({ ...input, branch: record.branch, files });
  await manager.followUp(record.id, prompt);
  return prompt;
}

/**
 * After the agent's run (`record` as it ended): a merge it resolved but left uncommitted is
 * committed with `message` (only after a run that succeeded). Resolves with why it stopped short
 * (runFailed, unresolved), or undefined when no merge is left in progress.
 */
export async function settleRun(
  manager: RepairManager,
  git: RepairGit,
  record: AgentRecord,
  message: string,
): Promise<RepairEnd | undefined> {
  if (!record.branch || record.worktreePresent === false || !(await git.mergeInProgress(record.cwd))) {
    return undefined;
  }
  if (record.status !== 'succeeded') {
    return { kind: 'runFailed', status: record.status };
  }
  try {
    await git.commitAll(record.cwd, message);
  } catch (e) {
    if (AgentError.isCode(e, 'unresolvedConflicts')) {
      await manager.refreshChanges(record.id);
      return { kind: 'unresolved', files: e.data.files };
    }
    throw e;
  }
  await manager.refreshChanges(record.id);
  return undefined;
}

/** Keeps each forecast agent's conflicts on its record (the Agents view offers Ask Agent to Resolve for them). */
export function recordForecast(manager: Pick<AgentManager, 'get' | 'annotate'>, forecast: RepoForecast): void {
  const branch = forecast.currentBranch ?? 'HEAD';
  for (const id of forecast.agentIds) {
    const mine = forecast.conflicts.filter((c) => c.agentId === id || c.otherId === id);
    const found: ForecastedConflicts | undefined =
      mine.length === 0
        ? undefined
        : {
            ...(mine.some((c) => c.otherId === undefined) ? { branch } : {}),
            agents: mine.flatMap((c) => (c.otherId === undefined ? [] : [c.agentId === id ? c.otherId : c.agentId])),
            files: [...new Set(mine.flatMap((c) => c.files))].sort(),
          };
    if (JSON.stringify(manager.get(id).forecastConflicts) !== JSON.stringify(found)) {
      manager.annotate(id, { forecastConflicts: found });
    }
  }
}
