import * as vscode from 'vscode';
import { AgentError } from '../core/errors';

/** Whether a file exists at `uri`. */
export function uriExists(uri: vscode.Uri): Thenable<boolean> {
  return vscode.workspace.fs.stat(uri).then(
    () => true,
    () => false,
  );
}

/**
 * Opens a log file of agent `title` (its output, its check's) in an editor at its end, through
 * VS Code's own opening (and so its handling of large files); `noLog` when there is none.
 */
export async function openLogFile(logPath: string | undefined, title: string): Promise<void> {
  const uri = logPath ? vscode.Uri.file(logPath) : undefined;
  if (!uri || !(await uriExists(uri))) {
    throw new AgentError('noLog', { title });
  }
  await vscode.commands.executeCommand('vscode.open', uri, { preview: true });
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.uri.toString() === uri.toString()) {
    const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
    editor.selection = new vscode.Selection(end, end);
    editor.revealRange(new vscode.Range(end, end));
  }
}
