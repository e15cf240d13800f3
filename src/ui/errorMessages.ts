/**
 * The one place an AgentError becomes what the user reads: its code's template (errorText.ts)
 * translated with vscode.l10n.t, and the buttons that help with it. Git's stderr stays in the log.
 */
import * as vscode from 'vscode';
import { commands } from '../constants';
import { AgentError, type AgentErrorCode, type AgentErrorData } from '../core/errors';
import type { PlanProblem } from '../core/plans';
import { taskStateText } from './agentsView/planNodes';
import { statusText } from './agentsView/presentation';
import { englishMessage, renderStored, textOf, type ErrorText, type TextArg } from './errorText';
import { planProblemText } from './planProblemText';

/** A button of an error notification: its label and the command it runs. */
export interface ErrorAction {
  readonly title: string;
  readonly command: string;
  readonly args?: readonly unknown[];
}

function translatedArg(a: TextArg): string {
  if (typeof a !== 'object') {
    return String(a);
  }
  return 'agentStatus' in a
    ? statusText(a.agentStatus)
    : 'taskState' in a
      ? taskStateText(a.taskState)
      : translate(a.text);
}

/** The template in the user's language, its placeholders filled. */
export function translate(text: ErrorText): string {
  return vscode.l10n.t(text.template, ...text.args.map(translatedArg));
}

/** The message of `code` with `data` in the user's language; undefined for an unknown code (an old record). */
export function codeMessage<C extends AgentErrorCode>(code: C, data: AgentErrorData[C]): string | undefined {
  const text = textOf(code, data);
  return text && translate(text);
}

/** What the user reads for a problem of a plan file. */
export function planProblemMessage(problem: PlanProblem): string {
  return translate(planProblemText(problem));
}

/** A kept error text (an agent's error, a task's reason) with the AgentError messages in it in the user's language. */
export function storedErrorText(text: string): string {
  return renderStored(text, translate);
}

/** What the user reads for `e`. A full disk reads the same whichever write failed; Show Log names it. */
export function errorMessage(e: AgentError): string {
  if (e.reason === 'diskFull') {
    return vscode.l10n.t(
      'The disk is full, so git or the agent could not write its files. Free some space, or set parallelAgents.worktreeRoot to a folder on a disk with room, then try again (Show Log has the details).',
    );
  }
  return codeMessage(e.code, e.data) ?? e.message;
}

function openSetting(setting: string): ErrorAction {
  return { title: vscode.l10n.t('Open Settings'), command: 'workbench.action.openSettings', args: [setting] };
}

/** The buttons besides Show Log that help with `e`. */
export function errorActions(e: AgentError): ErrorAction[] {
  if (AgentError.isCode(e, 'rebaseOnParentConflict') && e.data.id !== undefined) {
    const args = [{ id: e.data.id, parent: true }];
    return [{ title: vscode.l10n.t('Ask Agent to Resolve'), command: commands.resolveConflicts, args }];
  }
  switch (e.code) {
    case 'untrustedDispatch':
    case 'untrustedPlan':
      return [{ title: vscode.l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' }];
    case 'invalidBranchPrefix':
      return [openSetting('parallelAgents.branchPrefix')];
    case 'worktreeRootInsideRepository':
    case 'worktreeRootNotCreated':
      return [openSetting('parallelAgents.worktreeRoot')];
    case 'worktreeEnvNotObject':
    case 'worktreeEnvBadName':
    case 'worktreeEnvBadValue':
    case 'worktreeEnvBadPlaceholder':
      return [openSetting('parallelAgents.worktreeEnv')];
    case 'invalidPortRange':
    case 'portRangeExhausted':
      return [openSetting('parallelAgents.portRange')];
    case 'executableMissing':
    case 'executableNotOnPath':
    case 'unknownProfile':
    case 'stdinPromptInTerminal':
    case 'sandboxUnavailable':
    case 'sandboxNeedsWorktree':
      return [openSetting('parallelAgents.profiles')];
  }
  if (e.reason === 'dirtyWorkspace' || e.reason === 'mergeConflicts') {
    return [{ title: vscode.l10n.t('Open Source Control'), command: 'workbench.view.scm' }];
  }
  return [];
}

/**
 * Shows `message` with the actions, Details when git or the OS said more (`detail`, shown in a
 * modal dialog), and Show Log, without waiting for it to be dismissed. The chosen button runs.
 */
export function showError(message: string, actions: readonly ErrorAction[], detail?: string): void {
  const showLog: ErrorAction = { title: vscode.l10n.t('Show Log'), command: commands.showLog };
  const details = detail?.trim() ? vscode.l10n.t('Details') : undefined;
  const all = [...actions, showLog];
  const titles = [...actions.map((a) => a.title), ...(details ? [details] : []), showLog.title];
  void vscode.window.showErrorMessage(message, ...titles).then((choice) => {
    if (choice !== undefined && choice === details) {
      void vscode.window.showErrorMessage(message, { modal: true, detail: detail?.trim() });
      return;
    }
    const action = all.find((a) => a.title === choice);
    if (action) {
      void vscode.commands.executeCommand(action.command, ...(action.args ?? []));
    }
  });
}

/** The log text of `e`: its English message, its code and data, then git's or the OS's words. */
export function errorLogText(e: AgentError): string {
  return [englishMessage(e), e.message, e.detail].filter((line) => line !== undefined && line !== '').join('\n');
}

/**
 * A failure as a caller of the extension's API gets it: the message the user would read (in the
 * UI's language), with the code, reason and data kept for code that tells failures apart.
 */
export function apiError(e: unknown): unknown {
  if (!AgentError.is(e)) {
    return e;
  }
  // The error's class name, not a text for the user.
  return Object.assign(new Error(errorMessage(e)), { name: e.name, code: e.code, reason: e.reason, data: e.data });
}
