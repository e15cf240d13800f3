/** Dispatch Stacked Agent and Rebase on Parent: agents on top of another agent's work (core/agents/stacking.ts). */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import { type DispatchDeps, dispatchCommand } from './dispatchCommand';
import { pickAgentId } from './agentPick';

const live = ['queued', 'preparing', 'running', 'waiting-for-input'];

/** An agent with a worktree of its own to stack on: not landed, its worktree there. */
function stackable(r: AgentRecord): boolean {
  return (
    r.isolation === 'worktree' &&
    !!r.worktreePath &&
    r.status !== 'merged' &&
    r.status !== 'discarded' &&
    r.worktreePresent !== false &&
    !r.worktreeMissing
  );
}

export function stackCommands(deps: DispatchDeps) {
  const manager = deps.manager;
  return {
    dispatchStacked: async (arg?: unknown) => {
      const parent = await pickAgentId(manager, arg, { filter: stackable, none: 'noAgentApplies' });
      return dispatchCommand(deps, { stackOn: parent });
    },
    rebaseOnParent: async (arg?: unknown) => {
      const id = await pickAgentId(manager, arg, {
        filter: (r) => r.stackedOn !== undefined && !live.includes(r.status),
        none: 'noAgentApplies',
      });
      const record = manager.get(id);
      await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Rebasing "{0}" on "{1}"…', record.title, record.stackedOn?.title ?? ''),
        },
        () => manager.rebaseOnParent(id),
      );
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Agent "{0}" now works on top of the work of "{1}" as it is now; its diff still shows its own changes alone.',
          record.title,
          record.stackedOn?.title ?? '',
        ),
      );
    },
  };
}
