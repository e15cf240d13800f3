import * as vscode from 'vscode';
import type { AgentLanding } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { slugify } from '../../core/naming';
import { parsePlan } from '../../core/plans';
import { extractPlanJson, planningPrompt, replyText } from '../../core/plans';
import type { PlanService } from '../../core/plans';
import { problemAt, type Plan, type PlanProblem } from '../../core/plans';
import type { MergeStrategy, RefGit } from '../../core/git';
import type { Profile } from '../../core/clis';
import { planProblemMessage } from '../errorMessages';
import { pickRepositoryFolder } from './folderPick';
import { cancelled } from './commandRunner';

/** Problems of the last Dispatch Plan of each plan file, shown in the Problems view and the editor. */
export const planDiagnostics = vscode.languages.createDiagnosticCollection('parallelAgents.plan');

function showProblems(uri: vscode.Uri | undefined, text: string, problems: readonly PlanProblem[]): void {
  if (!uri) {
    return;
  }
  const lines = text.split('\n');
  const lineOf = (taskId?: string) => {
    const i = taskId ? lines.findIndex((l) => l.includes(`"${taskId}"`)) : -1;
    return Math.max(i, 0);
  };
  planDiagnostics.set(
    uri,
    problems.map((p) => {
      const line = lineOf(p.taskId);
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(line, 0, line, lines[line]?.length ?? 0),
        planProblemMessage(p),
        vscode.DiagnosticSeverity.Error,
      );
      diagnostic.source = 'Parallel Agents';
      return diagnostic;
    }),
  );
}

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

function describeProblems(problems: readonly PlanProblem[]): string {
  return problems.map((p) => `${p.taskId ? `task "${p.taskId}" ` : ''}${p.field}: ${planProblemMessage(p)}`).join('\n');
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

async function readPlanText(arg: unknown): Promise<{ text: string; name: string; uri?: vscode.Uri }> {
  const uri = arg instanceof vscode.Uri ? arg : (arg as { uri?: vscode.Uri } | undefined)?.uri;
  if (uri) {
    const doc = await vscode.workspace.openTextDocument(uri);
    return { text: doc.getText(), name: vscode.workspace.asRelativePath(uri), uri };
  }
  const editor = vscode.window.activeTextEditor;
  if (editor && /\.json$/i.test(editor.document.fileName)) {
    return {
      text: editor.document.getText(),
      name: vscode.workspace.asRelativePath(editor.document.uri),
      uri: editor.document.uri,
    };
  }
  const files = await vscode.workspace.findFiles('{**/*.agents.json,.vscode/agents/*.json}', '**/node_modules/**', 50);
  const picked = await vscode.window.showQuickPick(
    files.map((f) => ({ label: vscode.workspace.asRelativePath(f), uri: f })),
    { placeHolder: vscode.l10n.t('Which plan?') },
  );
  if (!picked) {
    if (files.length === 0) {
      throw new AgentError('noPlanFile', {});
    }
    cancelled();
  }
  const doc = await vscode.workspace.openTextDocument(picked.uri);
  return { text: doc.getText(), name: picked.label, uri: picked.uri };
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
      deps.plans.retry(runId, taskId);
    },
    skipTask: async (arg?: unknown) => {
      const { runId, taskId } = taskOf(arg);
      deps.plans.skip(runId, taskId);
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

/** Asks a headless agent for a plan; the reply is validated and opened for editing, never dispatched. */
async function planWithAgent(deps: PlanCommandDeps, folder: string, arg: unknown): Promise<string> {
  const o = (arg ?? {}) as { description?: string; profile?: string };
  const description =
    o.description ??
    (await vscode.window.showInputBox({
      title: vscode.l10n.t('Plan with Agent'),
      prompt: vscode.l10n.t('Describe the change; an agent breaks it into tasks with dependencies.'),
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Describe the change.') : undefined),
    }));
  if (!description) {
    cancelled();
  }
  const headless = deps.profiles().filter((p) => p.mode === 'headless');
  const profile =
    o.profile ??
    (await vscode.window.showQuickPick(
      headless.map((p) => p.name),
      { placeHolder: vscode.l10n.t('Which agent should plan?') },
    ));
  if (!profile) {
    cancelled();
  }
  const reply = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Agent "{0}" is planning…', profile) },
    async () => {
      const record = await deps.manager.dispatch({
        prompt: planningPrompt(
          description,
          deps.profiles().map((p) => p.name),
        ),
        profile,
        folder,
        title: vscode.l10n.t('Plan: {0}', description.split('\n')[0]),
      });
      const ended = await deps.manager.whenEnded(record.id);
      const log = ended.logPath
        ? new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(ended.logPath)))
        : '';
      // The planning agent's worktree is only scaffolding: remove it (its state is saved) and forget it.
      await deps.landing.discard(record.id);
      deps.manager.forget(record.id);
      return log;
    },
  );
  const json = extractPlanJson(replyText(reply));
  const { plan, problems } = json
    ? parsePlan(
        json,
        deps.profiles().map((p) => p.name),
      )
    : { plan: undefined, problems: [problemAt('reply', 'noPlanInReply', {})] };
  if (!plan || problems.length > 0) {
    const doc = await vscode.workspace.openTextDocument({
      language: 'markdown',
      content: `<!-- ${vscode.l10n.t("The agent's reply is not a valid plan:")}\n${describeProblems(problems)}\n-->\n\n${reply}`,
    });
    await vscode.window.showTextDocument(doc);
    throw new AgentError('invalidAgentPlan', { count: problems.length }, describeProblems(problems));
  }
  const dir = vscode.Uri.joinPath(vscode.Uri.file(folder), '.vscode', 'agents');
  const exists = (uri: vscode.Uri) =>
    vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
  let target = vscode.Uri.joinPath(dir, `${slugify(plan.title)}.json`);
  for (let n = 2; await exists(target); n++) {
    target = vscode.Uri.joinPath(dir, `${slugify(plan.title)}-${n}.json`);
  }
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(`${JSON.stringify(plan, null, 2)}\n`));
  await vscode.window.showTextDocument(target);
  void vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Plan "{0}" with {1} tasks is ready: edit it, then run Dispatch Plan.',
      plan.title,
      plan.tasks.length,
    ),
  );
  return target.fsPath;
}
