/** Run Check, Fix Failing Check and Open Check Log: the check command of an agent (core/agents/checkRuns.ts). */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { pickAgentId } from './agentPick';
import { cancelled } from './commandRunner';
import { openLogFile } from '../logFiles';

/** Agents whose folder can be checked: finished, with a folder. */
function checkable(r: AgentRecord): boolean {
  return (
    !['queued', 'preparing', 'running', 'waiting-for-input', 'merged', 'discarded'].includes(r.status) &&
    r.worktreePresent !== false &&
    !r.worktreeMissing
  );
}

export function checkCommands(manager: AgentManager) {
  const pick = async (arg: unknown, filter: (r: AgentRecord) => boolean) =>
    manager.get(await pickAgentId(manager, arg, { filter, none: 'noAgentApplies' }));
  return {
    runCheck: async (arg?: unknown) => {
      const record = await pick(arg, checkable);
      await manager.checks.start(record.id);
    },
    fixFailingCheck: async (arg?: unknown) => {
      const record = await pick(arg, (r) => checkable(r) && r.check?.state === 'failed');
      await manager.fixFailingCheck(record.id);
    },
    openCheckLog: async (arg?: unknown) => {
      const record = await pick(arg, (r) => r.check !== undefined);
      await openLogFile(record.check?.logPath, record.title);
    },
  };
}

/**
 * Before a merge: an agent whose check failed, is running, could not run or is stale (its folder
 * changed since) needs a yes (Merge Anyway). Run Check starts it and merges nothing; no check
 * command set, or a passed and fresh check: no question.
 */
export async function confirmCheckBeforeMerge(manager: AgentManager, id: string): Promise<void> {
  const verdict = await manager.checks.verdict(id);
  if (verdict === undefined || verdict === 'passed') {
    return;
  }
  const title = manager.get(id).title;
  const message =
    verdict === 'failed'
      ? vscode.l10n.t('The check of agent "{0}" failed.', title)
      : verdict === 'stale'
        ? vscode.l10n.t('The check of agent "{0}" is stale: its files changed since the check ran.', title)
        : verdict === 'running'
          ? vscode.l10n.t('The check of agent "{0}" is still running.', title)
          : vscode.l10n.t('The check of agent "{0}" could not run.', title);
  const mergeAnyway = vscode.l10n.t('Merge Anyway');
  const runCheck = vscode.l10n.t('Run Check');
  const choices = verdict === 'running' ? [mergeAnyway] : [mergeAnyway, runCheck];
  const choice = await vscode.window.showWarningMessage(
    message,
    { modal: true, detail: vscode.l10n.t('Merge it anyway, or run the check first?') },
    ...choices,
  );
  if (choice === runCheck) {
    await manager.checks.start(id);
  }
  if (choice !== mergeAnyway) {
    cancelled();
  }
}
