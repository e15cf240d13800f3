import * as vscode from 'vscode';
import type { FolderWatcher, Logger } from '../core/ports';
import { NodeFolderWatcher } from '../node/watch/nodeFolderWatcher';
import type { Disposable } from '../util/event';

/** Recursive watching through VS Code's file watcher (small folders: registries); works outside the workspace. */
export class VscodeFolderWatcher implements FolderWatcher {
  watch(folder: string, onChange: () => void): Disposable {
    const watcher = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(vscode.Uri.file(folder), '**/*'),
    );
    const subscriptions = [
      watcher,
      watcher.onDidChange(onChange),
      watcher.onDidCreate(onChange),
      watcher.onDidDelete(onChange),
    ];
    return { dispose: () => subscriptions.forEach((s) => s.dispose()) };
  }
}

/**
 * The watcher of agents' worktrees: Node's, within a share of the system's watches. The first time
 * the system refuses a watch the user is told, once a session, how to raise the limit.
 */
export function agentFolderWatcher(logger: Logger): NodeFolderWatcher {
  return new NodeFolderWatcher({
    logger,
    onExhausted: (error) => {
      const message =
        error.code === 'EMFILE'
          ? vscode.l10n.t(
              'Parallel Agents ran out of open files for watching agent worktrees, so their changes now refresh by polling (up to 30 s late). Raise the open-file limit (ulimit -n) and reload the window.',
            )
          : vscode.l10n.t(
              'The system ran out of file watches (fs.inotify.max_user_watches), so agent worktrees now refresh by polling (up to 30 s late). To raise the limit: add "fs.inotify.max_user_watches=524288" to /etc/sysctl.conf, run "sudo sysctl -p", then reload the window.',
            );
      void vscode.window.showWarningMessage(message);
    },
  });
}
