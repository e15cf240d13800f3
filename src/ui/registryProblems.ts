import * as vscode from 'vscode';
import type { RegistryProblem, RegistryProblemReason } from '../node/registry/recordFiles';

/** Up to this many files are named in the message; the log names them all. */
const namedAtMost = 5;

function reasonText(reason: RegistryProblemReason): string {
  switch (reason) {
    case 'corrupt':
      return vscode.l10n.t('damaged');
    case 'newerSchema':
      return vscode.l10n.t('written by a newer version of the extension');
    case 'unreadable':
      return vscode.l10n.t('not readable');
  }
}

/**
 * Record files of the registry that could not be read are left exactly as they are; the user is
 * told which, and that every other agent is shown.
 */
export function showRegistryProblems(problems: readonly RegistryProblem[]): void {
  if (problems.length === 0) {
    return;
  }
  const named = problems.slice(0, namedAtMost).map((p) => `${p.file} (${reasonText(p.reason)})`);
  const files = problems.length > namedAtMost ? `${named.join(', ')}, …` : named.join(', ');
  void vscode.window.showWarningMessage(
    vscode.l10n.t(
      '{0} record file(s) of Parallel Agents could not be read and were left as they are: {1}. The other agents are shown; move or repair those files, then reload the window.',
      problems.length,
      files,
    ),
  );
}
