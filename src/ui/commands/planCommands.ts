import * as vscode from 'vscode';
import type { AgentLanding } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { parsePlan } from '../../core/plans';
import type { PlanService } from '../../core/plans';
import type { Plan } from '../../core/plans';
import type { MergeStrategy, RefGit } from '../../core/git';
import type { Profile } from '../../core/clis';
import { pickRepositoryFolder } from './folderPick';
import { cancelled } from './commandRunner';
import { describeProblems, readPlanText, showProblems } from './planFile';
import { planWithAgent } from './planWithAgentCommand';

export interface PlanCommandDeps {
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly plans: PlanService;
  readonly profiles: () => readonly Profile[];
  readonly defaultProfile: () => string;
  readonly strategy: () => MergeStrategy;
  /** Tells which workspace folders are git repositories. */
  readonly git: Pick<RefGit, 'repoRoot'>;
}

/** Task commands take `{ runId, taskId }` or a task row. */
function taskOf(arg: unknown): { runId: string; taskId: string } {
  const o = (arg ?? {}) as { runId?: string; taskId?: string; run?: { id: string }; task?: { id: string } };
  const runId = o.runId ?? o.run?.id;
  const taskId = o.taskId ?? o.task?.id;
  if (!runId || !taskId) {
    throw new AgentError('noPlanTask', {});
  }
  return { runId, taskId };
}

function runOf(deps: PlanCommandDeps, arg: unknown): string {
  const o = (arg ?? {}) as { runId?: string; run?: { id: string } };
  const id = typeof arg === 'string' ? arg : (o.runId ?? o.run?.id ?? deps.plans.list().at(-1)?.id);
  if (!id) {
    throw new AgentError('noPlanRunning', {});
  }
  return id;
}

export function planCommands(deps: PlanCommandDeps) {
  const folder = (title: string) =>
    pickRepositoryFolder(deps.git, {
      title,
      noFolder: 'noFolderForPlan',
    });
  const validate = (text: string, name: string, uri?: vscode.Uri): Plan => {
    const { plan, problems } = parsePlan(
      text,
      deps.profiles().map((p) => p.name),
    );
    showProblems(uri, text, problems);
    if (!plan || problems.length > 0) {
      const shown = describeProblems(problems.slice(0, 3));
      throw new AgentError(
        'invalidPlanFile',
        { name, count: problems.length, problems: shown },
        describeProblems(problems),
      );
    }
    return plan;
  };

  return {
    dispatchPlan: async (arg?: unknown) => {
      if (!vscode.workspace.isTrusted) {
        throw new AgentError('untrustedPlan', {});
      }
      const o = (arg ?? {}) as { plan?: unknown; text?: string };
      const { text, name, uri } =
        o.text !== undefined
          ? { text: o.text, name: 'plan', uri: undefined }
          : o.plan !== undefined
            ? { text: JSON.stringify(o.plan), name: 'plan', uri: undefined }
            : await readPlanText(arg);
      const plan = validate(text, name, uri);
      const repository = await folder(vscode.l10n.t('Dispatch Plan: repository'));
      const run = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting plan "{0}"…', plan.title) },
        () => deps.plans.start(plan, repository),
      );
      return run.id;
    },
    retryTask: async (arg?: unknown) => {
      const { runId, taskId } = taskOf(arg);
      await deps.plans.retry(runId, taskId);
    },
    skipTask: async (arg?: unknown) => {
      const { runId, taskId } = taskOf(arg);
      await deps.plans.skip(runId, taskId);
    },
    stopPlan: async (arg?: unknown) => {
      await deps.plans.stop(runOf(deps, arg));
    },
    landPlan: async (arg?: unknown) => {
      const runId = runOf(deps, arg);
      const o = (arg && typeof arg === 'object' ? arg : {}) as { strategy?: MergeStrategy; confirm?: boolean };
      const result = await deps.plans.land(runId, o.strategy ?? deps.strategy());
      if (o.confirm !== false) {
        const run = deps.plans.get(runId);
        if (result.kind === 'merged') {
          void vscode.window.showInformationMessage(
            vscode.l10n.t('Plan "{0}" landed on {1}.', run.plan.title, result.target),
          );
        } else {
          void vscode.window.showWarningMessage(
            vscode.l10n.t(
              'Landing plan "{0}" on {1} would conflict in {2}. Nothing was changed; the integration branch {3} is ready for a pull request.',
              run.plan.title,
              result.target,
              result.files.join(', '),
              run.integrationBranch,
            ),
          );
        }
      }
      return result;
    },
    removePlan: async (arg?: unknown) => removePlan(deps, arg),
    planWithAgent: async (arg?: unknown) =>
      planWithAgent(deps, await folder(vscode.l10n.t('Plan with Agent: repository')), arg),
  };
}

/** Remove Plan: a row's run, `{ runId, confirm? }`, or a pick among the plans; confirmed unless `confirm: false`. */
async function removePlan(deps: PlanCommandDeps, arg: unknown): Promise<{ branchKept: boolean }> {
  const o = (arg && typeof arg === 'object' ? arg : {}) as { runId?: string; run?: { id: string }; confirm?: boolean };
  const runs = deps.plans.list();
  let runId = typeof arg === 'string' ? arg : (o.runId ?? o.run?.id);
  if (!runId) {
    if (runs.length === 0) {
      throw new AgentError('noPlanToRemove', {});
    }
    const picked =
      runs.length === 1
        ? runs[0]
        : (
            await vscode.window.showQuickPick(
              runs.map((run) => ({ label: run.plan.title, description: run.integrationBranch, run })),
              { placeHolder: vscode.l10n.t('Which plan should be removed?') },
            )
          )?.run;
    runId = picked?.id ?? cancelled();
  }
  const run = deps.plans.get(runId);
  const busy = run.activeTasks();
  if (busy.length > 0) {
    throw new AgentError('planStillRunning', { title: run.plan.title, tasks: busy });
  }
  if (o.confirm !== false) {
    const remove = vscode.l10n.t('Remove Plan');
    const detail = vscode.l10n.t(
      'Its integration worktree is removed, its state saved under refs/parallel-agents/saved/ first. Its branch {0} is deleted only if it has landed. Its agents stay in the list.',
      run.integrationBranch,
    );
    if (
      (await vscode.window.showWarningMessage(
        vscode.l10n.t('Remove plan "{0}"?', run.plan.title),
        { modal: true, detail },
        remove,
      )) !== remove
    ) {
      cancelled();
    }
  }
  const { branchKept } = await deps.plans.remove(runId);
  if (o.confirm !== false) {
    void vscode.window.showInformationMessage(
      branchKept
        ? vscode.l10n.t(
            'Plan "{0}" removed. Its branch {1} is kept: it has not landed.',
            run.plan.title,
            run.integrationBranch,
          )
        : vscode.l10n.t('Plan "{0}" removed.', run.plan.title),
    );
  }
  return { branchKept };
}
