/**
 * The end of a plan run: Land Plan merges its integration branch into the branch checked out in
 * the workspace (forecast first, under the repository's landing lock); Remove Plan removes its
 * integration worktree, saving its state first, and its branch once that has landed.
 */
import { inProcessOnly, savedRefPrefix } from '../landing';
import { AgentError } from '../errors';
import type { MergeStrategy } from '../git';
import type { PlanRunDeps } from './planRunDeps';

export type LandPlanResult =
  | { readonly kind: 'merged'; readonly sha: string; readonly target: string }
  | { readonly kind: 'conflicts'; readonly files: readonly string[]; readonly target: string };

export interface LandedRun {
  readonly id: string;
  readonly planTitle: string;
  readonly repoRoot: string;
  readonly integrationBranch: string;
  readonly integrationPath: string;
}

export function landPlan(deps: PlanRunDeps, run: LandedRun, strategy: MergeStrategy): Promise<LandPlanResult> {
  const locks = deps.locks ?? inProcessOnly;
  return locks.withLandingLock(run.repoRoot, () => landLocked(deps, run, strategy));
}

async function landLocked(deps: PlanRunDeps, run: LandedRun, strategy: MergeStrategy): Promise<LandPlanResult> {
  const target = await deps.git.currentBranch(run.repoRoot);
  if (!target) {
    throw new AgentError('planTargetDetached', { repoRoot: run.repoRoot });
  }
  // land() forecasts again in the write queue; this one tells a conflict without waiting behind other writes.
  const forecast = await deps.git.forecastMerge(run.repoRoot, target, run.integrationBranch);
  if (!forecast.clean) {
    return { kind: 'conflicts', files: forecast.conflicts, target };
  }
  const outcome = await deps.git.land(
    run.repoRoot,
    run.integrationPath,
    run.integrationBranch,
    strategy,
    `Land plan "${run.planTitle}" (${run.integrationBranch})`,
  );
  return outcome.ok
    ? { kind: 'merged', sha: outcome.sha, target }
    : { kind: 'conflicts', files: outcome.conflicts, target };
}

/**
 * Remove Plan: the integration worktree goes (its state saved under refs/parallel-agents/saved/
 * first); the integration branch goes only when its content is in the workspace's branch.
 */
export async function removeIntegration(deps: PlanRunDeps, run: LandedRun): Promise<{ readonly branchKept: boolean }> {
  if (await deps.fs.exists(run.integrationPath)) {
    await deps.git.saveWork(
      run.integrationPath,
      `${savedRefPrefix}plan-${run.id}`,
      `Parallel Agents: integration worktree of plan "${run.planTitle}" saved before removing it`,
    );
  }
  await deps.git.removeWorktree(run.repoRoot, run.integrationPath, true);
  const target = await deps.git.currentBranch(run.repoRoot);
  const merged =
    target !== undefined && (await deps.git.isMergedByContent(run.repoRoot, run.integrationBranch, target));
  if (merged) {
    await deps.git.deleteBranch(run.repoRoot, run.integrationBranch, true);
  }
  deps.logger.info(
    `[PlanRun] ${run.id}: integration worktree removed; branch ${run.integrationBranch} ${merged ? 'deleted (landed)' : 'kept (not landed)'}`,
  );
  return { branchKept: !merged };
}
