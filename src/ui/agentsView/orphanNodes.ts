import * as vscode from 'vscode';
import type { Orphan } from '../../core/reconcile';
import type { ViewNode } from './nodes';

/** A worktree or branch the extension made that no agent record knows: Adopt or Discard it. */
export class OrphanNode implements ViewNode {
  readonly type = 'orphan';
  /** A finding of Reconcile Agents (no agent record exists for it); Adopt and Discard read its path and branch. */
  constructor(readonly orphan: Orphan) {}

  treeItem(): vscode.TreeItem {
    const o = this.orphan;
    const item = new vscode.TreeItem(o.branch, vscode.TreeItemCollapsibleState.None);
    item.id = `orphan:${o.repoRoot}:${o.branch}`;
    item.description =
      o.kind === 'worktree'
        ? o.plan
          ? vscode.l10n.t('orphaned plan worktree')
          : vscode.l10n.t('orphaned worktree')
        : o.plan
          ? vscode.l10n.t('orphaned plan branch')
          : vscode.l10n.t('orphaned branch');
    item.iconPath = new vscode.ThemeIcon(
      o.kind === 'worktree' ? 'folder-opened' : 'git-branch',
      new vscode.ThemeColor('list.warningForeground'),
    );
    item.tooltip =
      o.kind === 'worktree'
        ? vscode.l10n.t(
            'Worktree {0} on branch {1}, made by Parallel Agents but unknown to it. Adopt it as an agent, or discard it (its work is saved first).',
            o.path,
            o.branch,
          )
        : vscode.l10n.t(
            'Branch {0}, made by Parallel Agents, checked out nowhere and unknown to it. Adopt it as an agent, or discard it (its commits are saved first).',
            o.branch,
          );
    item.contextValue = `orphan.${o.kind}`;
    return item;
  }

  children(): ViewNode[] {
    return [];
  }

  parent(): undefined {
    return undefined;
  }
}
