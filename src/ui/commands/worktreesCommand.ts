import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import type { AgentLanding } from '../../core/landing';
import {
  cleanupChoices,
  removeChosenWorktrees,
  summarizeWorktrees,
  type WorktreeSizes,
  type WorktreeSummary,
} from '../../core/usage';
import { byteSize } from '../byteSize';
import { cancelled } from './commandRunner';

export interface WorktreesCommandDeps {
  readonly manager: AgentManager;
  readonly landing: Pick<AgentLanding, 'removeMergedWorktree'>;
  readonly sizes: WorktreeSizes;
}

/**
 * Show Worktrees Summary: how many worktrees the agents keep, their size and what can go (merged
 * and discarded agents'); then, if the user wants, removes the ones picked, largest first, through
 * the same path as Clean Up: their work is saved under refs/parallel-agents/saved/ first.
 * `{ quiet: true }`: the summary only, without UI (as Forecast Conflicts takes it).
 */
export async function showWorktreesSummary(deps: WorktreesCommandDeps, arg?: unknown): Promise<WorktreeSummary> {
  const summary = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Measuring worktrees…') },
    () => summarizeWorktrees(deps.manager.list(), deps.sizes),
  );
  if (arg && typeof arg === 'object' && (arg as { quiet?: unknown }).quiet === true) {
    return summary;
  }
  const text = vscode.l10n.t(
    '{0} worktrees, {1}; reclaimable: {2} ({3}) of merged or discarded agents.',
    summary.count,
    byteSize(summary.totalBytes),
    summary.reclaimable.length,
    byteSize(summary.reclaimableBytes),
  );
  const clean = vscode.l10n.t('Clean Up Largest…');
  const answer = await vscode.window.showInformationMessage(text, ...(summary.reclaimable.length > 0 ? [clean] : []));
  if (answer === clean) {
    await cleanUpLargest(deps, summary);
  }
  return summary;
}

async function cleanUpLargest(deps: WorktreesCommandDeps, summary: WorktreeSummary): Promise<void> {
  const items = cleanupChoices(summary).map((w) => ({
    label: w.record.title,
    description: `${w.bytes === undefined ? '?' : byteSize(w.bytes)} · ${w.record.status}`,
    detail: w.record.worktreePath,
    picked: w.picked,
    id: w.record.id,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('Remove the worktrees of merged or discarded agents'),
    placeHolder: vscode.l10n.t('Their work is saved under refs/parallel-agents/saved/ first; the agents stay listed'),
  });
  if (!picked || picked.length === 0) {
    cancelled();
  }
  const { removed, freedBytes } = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Removing worktrees…') },
    () =>
      removeChosenWorktrees(
        summary,
        picked.map((item) => item.id),
        (id) => deps.landing.removeMergedWorktree(id),
      ),
  );
  void vscode.window.showInformationMessage(
    vscode.l10n.t('Removed {0} worktrees and freed {1}.', removed, byteSize(freedBytes)),
  );
}
