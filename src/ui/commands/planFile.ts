/**
 * Plan files in the editor: finding the file Dispatch Plan means (argument, active editor or a
 * pick), and a plan's problems shown in the Problems view and the editor, or as one text.
 */
import * as vscode from 'vscode';
import { AgentError } from '../../core/errors';
import type { PlanProblem } from '../../core/plans';
import { planProblemMessage } from '../errorMessages';
import { cancelled } from './commandRunner';

/** Problems of the last Dispatch Plan of each plan file, shown in the Problems view and the editor. */
export const planDiagnostics = vscode.languages.createDiagnosticCollection('parallelAgents.plan');

/** Marks each problem on the line that names its task (the first line when none does). */
export function showProblems(uri: vscode.Uri | undefined, text: string, problems: readonly PlanProblem[]): void {
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

export function describeProblems(problems: readonly PlanProblem[]): string {
  return problems.map((p) => `${p.taskId ? `task "${p.taskId}" ` : ''}${p.field}: ${planProblemMessage(p)}`).join('\n');
}

/** The plan file `arg` names, else the active JSON editor's, else one the user picks. */
export async function readPlanText(arg: unknown): Promise<{ text: string; name: string; uri?: vscode.Uri }> {
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
