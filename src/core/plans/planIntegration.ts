/**
 * A task's work merged into the plan's integration branch, then checked there: when a check
 * command is set (the task agent's profile's `checkCommand`, else parallelAgents.checkCommand) it
 * runs in the integration worktree after each merge. One that fails sends the task's agent a
 * follow-up with the command, how it ended and the end of its output; once the agent has ended,
 * its new work is merged and checked again, up to planCheckFixes times; then the task fails. The
 * scheduler merges one task at a time, so the merge that broke the check is the task's own.
 */
import { checkEnd, type FolderCheck, fixPrompt } from '../agents';
import { AgentError } from '../errors';
import type { PlanRunDeps } from './planRunDeps';
import type { PlanTask } from './planTypes';
import { agentEnd } from './planAgentEnd';

/** Follow-ups that ask a task's agent to fix the check its merge broke before the task fails. */
export const planCheckFixes = 2;

export interface IntegrationTarget {
  readonly id: string;
  readonly planTitle: string;
  readonly integrationBranch: string;
  readonly integrationPath: string;
}

/** Merged and checked: the task's work is in; conflicts: nothing was merged. */
export type TaskIntegration = { readonly merged: true } | { readonly merged: false; readonly conflicts: string[] };

export async function integrateTask(
  deps: PlanRunDeps,
  target: IntegrationTarget,
  task: PlanTask,
  agentId: string,
): Promise<TaskIntegration> {
  // A window closed while the agent was fixing: its run is followed to its end first.
  if (deps.manager.isRunning(agentId)) {
    await agentEnd(deps.manager, agentId);
  }
  for (let fixes = 0; ; fixes++) {
    const conflicts = await mergeTask(deps, target, task, agentId);
    if (conflicts) {
      return { merged: false, conflicts };
    }
    const failure = await failingCheck(deps, target, task, agentId);
    if (!failure) {
      return { merged: true };
    }
    const exit = checkEnd(failure.check).replace(/^failed with |^was ended by /, '');
    deps.logger.warn(`[PlanRun] ${target.id}: the check failed after merging task ${task.id} (${exit})`);
    const data = { taskId: task.id, command: failure.check.command.join(' '), exit, fixes };
    if (fixes === planCheckFixes) {
      throw new AgentError('planCheckFailed', data);
    }
    await deps.manager.followUp(agentId, fixRequest(target, task, failure));
    const ended = await agentEnd(deps.manager, agentId);
    if (ended.status !== 'succeeded') {
      throw new AgentError('planCheckFailed', { ...data, fixes: fixes + 1 });
    }
  }
}

/** Commits the agent's work and merges its branch into the integration branch; the conflicted files when it cannot. */
async function mergeTask(
  deps: PlanRunDeps,
  target: IntegrationTarget,
  task: PlanTask,
  agentId: string,
): Promise<string[] | undefined> {
  const agent = deps.manager.get(agentId);
  await deps.git.commitAll(agent.cwd, `${task.title}\n\nPlan "${target.planTitle}", task ${task.id}`);
  const outcome = await deps.git.land(
    target.integrationPath,
    agent.cwd,
    agent.branch!,
    'merge',
    `Merge task ${task.id}: ${task.title}`,
  );
  return outcome.ok ? undefined : [...outcome.conflicts];
}

async function failingCheck(
  deps: PlanRunDeps,
  target: IntegrationTarget,
  task: PlanTask,
  agentId: string,
): Promise<FolderCheck | undefined> {
  const name = `plan-${target.id}-${task.id}`;
  const result = await deps.manager.checks.inFolder(agentId, target.integrationPath, name);
  return result?.check.state === 'failed' ? result : undefined;
}

function fixRequest(target: IntegrationTarget, task: PlanTask, failure: FolderCheck): string {
  const branch = target.integrationBranch;
  const where =
    `after your work (task ${task.id} of plan "${target.planTitle}") ` +
    `was merged into its integration branch ${branch}`;
  return [
    fixPrompt(failure.check, failure.output, where),
    '',
    `That branch also holds the work of the tasks merged before yours: merge ${branch} into your branch if you need it`,
    'to see the failure. Your new commits are merged and checked again when you end.',
  ].join('\n');
}
