/**
 * Plan with Agent: a headless agent is asked to break a described change into a plan; its reply is
 * validated and written under .vscode/agents/ for the user to edit, never dispatched.
 */
import * as vscode from 'vscode';
import type { AgentLanding } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { slugify } from '../../core/naming';
import { extractPlanJson, parsePlan, planningPrompt, problemAt, replyText } from '../../core/plans';
import type { Profile } from '../../core/clis';
import { cancelled } from './commandRunner';
import { describeProblems } from './planFile';
import { uriExists } from '../logFiles';

export interface PlanWithAgentDeps {
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly profiles: () => readonly Profile[];
}

/** Asks a headless agent for a plan; the reply is validated and opened for editing, never dispatched. */
export async function planWithAgent(deps: PlanWithAgentDeps, folder: string, arg: unknown): Promise<string> {
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
  let target = vscode.Uri.joinPath(dir, `${slugify(plan.title)}.json`);
  for (let n = 2; await uriExists(target); n++) {
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
