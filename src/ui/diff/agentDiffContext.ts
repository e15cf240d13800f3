import * as vscode from 'vscode';
import { contextKeys } from '../../constants';
import { BaseContentProvider } from './baseContentProvider';

/** Lets the diff editor's title bar offer Accept File / Revert File when the diff is an agent's. */
export function trackAgentDiffContext(): vscode.Disposable {
  const update = () => {
    const active = BaseContentProvider.changeOf(vscode.window.tabGroups.activeTabGroup.activeTab) !== undefined;
    void vscode.commands.executeCommand('setContext', contextKeys.agentDiffActive, active);
  };
  return vscode.Disposable.from(
    vscode.window.tabGroups.onDidChangeTabs(update),
    vscode.window.tabGroups.onDidChangeTabGroups(update),
  );
}
