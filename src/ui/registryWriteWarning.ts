import * as vscode from 'vscode';
import { commands } from '../constants';
import type { RecordWriteWarnings } from '../core/ports';
import type { Disposable } from '../util/event';
import { errorLogText, errorMessage } from './errorMessages';

/**
 * A registry folder that refuses writes (a read-only mount, permissions) is named in one warning
 * per window (RecordWriteWarnings fires once per folder); the agents stay listed and no record file
 * is changed. The log has the OS's words.
 */
export function showRegistryWriteWarnings(warnings: RecordWriteWarnings, log: (line: string) => void): Disposable {
  return warnings.onDidFailToWrite((failure) => {
    log(`[Registry] ${errorLogText(failure.error)}`);
    const showLog = vscode.l10n.t('Show Log');
    void vscode.window.showWarningMessage(errorMessage(failure.error), showLog).then((choice) => {
      if (choice === showLog) {
        void vscode.commands.executeCommand(commands.showLog);
      }
    });
  });
}
