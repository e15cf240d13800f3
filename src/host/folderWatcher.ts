import * as vscode from 'vscode';
import type { FolderWatcher } from '../core/ports';
import type { Disposable } from '../util/event';

/** Recursive watching through VS Code's file watcher; works for folders outside the workspace. */
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
