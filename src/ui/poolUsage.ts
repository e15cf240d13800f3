/** The warm worktree pool's disk cost, shown as the Agents view's description ("pool: 2 worktrees, 310.4 MB"). */
import * as vscode from 'vscode';
import type { PoolUsage } from '../core/worktrees';
import { byteSize } from './byteSize';
import type { Disposable, Event } from '../util/event';

export function poolUsageText(usage: PoolUsage): string | undefined {
  if (usage.entries === 0) {
    return undefined;
  }
  return usage.entries === 1
    ? vscode.l10n.t('pool: 1 worktree, {0}', byteSize(usage.bytes))
    : vscode.l10n.t('pool: {0} worktrees, {1}', usage.entries, byteSize(usage.bytes));
}

/** Keeps the view's description in step with the pool. */
export function showPoolUsage(
  pool: { usage(): PoolUsage; readonly onDidChangeUsage: Event<PoolUsage> },
  treeView: { description?: string },
): Disposable {
  treeView.description = poolUsageText(pool.usage());
  return pool.onDidChangeUsage((usage) => {
    treeView.description = poolUsageText(usage);
  });
}
