import * as vscode from 'vscode';
import type { LandingWait } from '../../core/ports';

/**
 * While a landing waits for another window's landing on the same repository: a notification with
 * who holds the lock; Cancel gives up the wait, and the landing ends without touching anything.
 */
export function showLandingWait(wait: LandingWait): void {
  const name = wait.repoRoot.split(/[\\/]/).filter(Boolean).pop() ?? wait.repoRoot;
  void vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t("Waiting for another window's landing on {0}…", name),
      cancellable: true,
    },
    (progress, token) => {
      progress.report({
        message: vscode.l10n.t(
          'process {0} on {1}, since {2}',
          wait.holder.pid,
          wait.holder.host,
          new Date(wait.holder.since).toLocaleTimeString(),
        ),
      });
      const subscription = token.onCancellationRequested(() => wait.cancel());
      return wait.ended.finally(() => subscription.dispose());
    },
  );
}
