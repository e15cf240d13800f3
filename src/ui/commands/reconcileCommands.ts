import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import type { Orphan } from '../../core/reconcile';
import type { OrphanKey, ReconcileReport, Reconciler } from '../../core/reconcile';
import { pickAgentId } from './agentPick';
import { cancelled } from './commandRunner';

export interface ReconcileCommandDeps {
  readonly manager: AgentManager;
  readonly reconciler: Reconciler;
}

interface OrphanArgs extends OrphanKey {
  /** false: no dialog (Discard saves the work either way). */
  readonly confirm?: boolean;
}

/** An orphan row of the Agents view, `{ path }` or `{ branch }`. */
function orphanKeyOf(arg: unknown): OrphanArgs {
  const o = (arg && typeof arg === 'object' ? arg : {}) as {
    orphan?: Orphan;
    path?: unknown;
    branch?: unknown;
    confirm?: unknown;
  };
  if (o.orphan) {
    return { path: o.orphan.path };
  }
  return {
    path: typeof o.path === 'string' ? o.path : undefined,
    branch: typeof o.branch === 'string' ? o.branch : undefined,
    confirm: o.confirm === false ? false : undefined,
  };
}

export function summary(report: ReconcileReport): string {
  const worktrees = report.orphans.filter((o) => o.kind === 'worktree').length;
  const branches = report.orphans.length - worktrees;
  const parts = [
    worktrees === 1
      ? vscode.l10n.t('1 orphaned worktree')
      : worktrees > 1
        ? vscode.l10n.t('{0} orphaned worktrees', worktrees)
        : '',
    branches === 1
      ? vscode.l10n.t('1 orphaned branch')
      : branches > 1
        ? vscode.l10n.t('{0} orphaned branches', branches)
        : '',
    report.missing.length === 1
      ? vscode.l10n.t('1 missing agent')
      : report.missing.length > 1
        ? vscode.l10n.t('{0} missing agents', report.missing.length)
        : '',
    report.pruned.length === 1
      ? vscode.l10n.t('1 stale entry pruned')
      : report.pruned.length > 1
        ? vscode.l10n.t('{0} stale entries pruned', report.pruned.length)
        : '',
  ].filter((p) => p !== '');
  return parts.length > 0
    ? vscode.l10n.t('Reconcile: {0}', parts.join(', '))
    : vscode.l10n.t('Reconcile: every worktree and branch is accounted for.');
}

export function reconcileCommands(deps: ReconcileCommandDeps) {
  const { manager, reconciler } = deps;
  return {
    /** `{ quiet: true }`: no progress and no message; returns the report either way. */
    reconcile: async (arg?: unknown) => {
      const quiet = (arg as { quiet?: unknown } | undefined)?.quiet === true;
      const report = quiet
        ? await reconciler.run()
        : await vscode.window.withProgress(
            {
              location: vscode.ProgressLocation.Notification,
              title: vscode.l10n.t('Reconciling agents with the worktrees on disk…'),
            },
            () => reconciler.run(),
          );
      if (!quiet) {
        void vscode.window.showInformationMessage(summary(report));
        if (report.errors.length > 0) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t('Reconcile could not read: {0}', report.errors.join('; ')),
          );
        }
      }
      return report;
    },
    adoptOrphan: async (arg?: unknown) => {
      const record = await reconciler.adopt(orphanKeyOf(arg));
      return record.id;
    },
    discardOrphan: async (arg?: unknown) => {
      const key = orphanKeyOf(arg);
      if (key.confirm !== false) {
        const discard = vscode.l10n.t('Discard');
        const what = key.path ?? key.branch ?? '';
        const detail = vscode.l10n.t(
          'Its worktree and branch are removed. Its work is saved first; Restore Agent brings it back.',
        );
        if (
          (await vscode.window.showWarningMessage(
            vscode.l10n.t('Discard the orphaned worktree {0}?', what),
            { modal: true, detail },
            discard,
          )) !== discard
        ) {
          cancelled();
        }
      }
      return (await reconciler.discardOrphan(key)).id;
    },
    restoreMissing: async (arg?: unknown) => {
      await reconciler.restoreMissing(await missingId(manager, arg));
    },
    forgetAgent: async (arg?: unknown) => {
      const id = await missingId(manager, arg);
      if ((arg as { confirm?: unknown } | undefined)?.confirm !== false) {
        const forget = vscode.l10n.t('Forget');
        const detail = manager.get(id).branchExisted
          ? vscode.l10n.t('Its branch stays: it existed before the agent.')
          : vscode.l10n.t('Its branch is deleted; commits it had are kept under refs/parallel-agents/saved/.');
        if (
          (await vscode.window.showWarningMessage(
            vscode.l10n.t('Forget agent "{0}"?', manager.get(id).title),
            { modal: true, detail },
            forget,
          )) !== forget
        ) {
          cancelled();
        }
      }
      await reconciler.forget(id);
    },
  };
}

function missingId(manager: AgentManager, arg: unknown): Promise<string> {
  return pickAgentId(manager, arg, {
    filter: (r) => r.worktreeMissing,
    describe: (r) => r.worktreePath,
    none: 'noMissingAgent',
    takeOnlyOne: true,
  });
}
