import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentLanding } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import type { TerminalRunner } from '../../host/terminalRunner';
import type { AgentOutputViews } from '../outputViews';
import { openChange } from '../diff/openChange';
import { pickAgentId } from './agentPick';
import { agentIdOf, cancelled } from './commandRunner';
import { RefreshAll, type RefreshAllDeps } from './refreshAll';

export interface AgentCommandDeps {
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly outputs: AgentOutputViews;
  readonly terminals: TerminalRunner;
  /** Which agents' change sets are still current (Refresh of every agent skips those at first). */
  readonly freshness?: Pick<RefreshAllDeps, 'unchanged'>;
}

export interface DiscardArgs {
  readonly id?: string;
  /** false: no dialog (the work is saved either way). */
  readonly confirm?: boolean;
}

export function agentCommands(deps: AgentCommandDeps) {
  const { manager } = deps;
  const refreshAll = new RefreshAll({
    list: () => manager.list(),
    refreshChanges: (id) => manager.refreshChanges(id),
    refreshSeen: (id) => manager.refreshSeen(id),
    unchanged: (cwd, baseSha) => deps.freshness?.unchanged(cwd, baseSha) ?? Promise.resolve(false),
  });
  const pickAgent = async (arg: unknown, filter?: (r: AgentRecord) => boolean): Promise<AgentRecord> => {
    return manager.get(await pickAgentId(manager, arg, { filter, none: 'noAgentApplies' }));
  };
  return {
    stop: async (arg?: unknown) => {
      const stoppable = new Set(['queued', 'preparing', 'running', 'waiting-for-input']);
      const record = await pickAgent(arg, (r) => stoppable.has(r.status));
      await manager.stop(record.id);
    },
    showOutput: async (arg?: unknown) => {
      const record = await pickAgent(arg);
      if (record.mode === 'terminal' && deps.terminals.reveal(record.id)) {
        return;
      }
      await deps.outputs.show(record.id);
    },
    openFullLog: async (arg?: unknown) => {
      await deps.outputs.openFullLog(await pickAgent(arg, (r) => r.logPath !== undefined));
    },
    showResult: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.activity?.result !== undefined);
      const result = record.activity?.result;
      if (!result) {
        throw new AgentError('noResult', { title: record.title });
      }
      const document = await vscode.workspace.openTextDocument({
        language: 'markdown',
        content: `# ${record.title}\n\n${result}\n`,
      });
      await vscode.window.showTextDocument(document, { preview: true });
    },
    openWorktree: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.worktreePath !== undefined);
      if (!record.worktreePath) {
        throw new AgentError('notInWorktree', { title: record.title });
      }
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(record.worktreePath), {
        forceNewWindow: true,
      });
    },
    revealTerminal: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.mode === 'terminal');
      if (!deps.terminals.reveal(record.id)) {
        throw new AgentError('terminalClosed', { title: record.title });
      }
    },
    reopenTerminal: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.status === 'detached');
      if (record.status !== 'detached') {
        throw new AgentError('notDetached', { title: record.title, status: record.status });
      }
      if (record.worktreePresent === false || record.worktreeMissing) {
        throw new AgentError('worktreeMissing', { title: record.title });
      }
      await manager.reopenTerminal(record.id);
      deps.terminals.reveal(record.id);
    },
    discard: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.status !== 'discarded');
      const options = (arg && typeof arg === 'object' ? arg : {}) as DiscardArgs;
      if (record.worktreeMissing) {
        throw new AgentError('worktreeMissing', { title: record.title });
      }
      if (options.confirm !== false) {
        await confirmDiscard(manager, record);
      }
      await deps.landing.discard(record.id);
    },
    restore: async (arg?: unknown) => {
      const record = await pickAgent(arg, (r) => r.worktreePresent === false && r.savedRef !== undefined);
      await deps.landing.restore(record.id);
    },
    refresh: async (arg?: unknown) => {
      const id = agentIdOf(arg);
      await (id ? manager.refreshChanges(id) : refreshAll.run());
    },
    openChange: async (arg?: unknown) => {
      const { agentId, path } = (arg ?? {}) as { agentId?: string; path?: string };
      if (!agentId || !path) {
        throw new AgentError('noFileRow', {});
      }
      await openChange(manager.get(agentId), path);
    },
  };
}

/** One modal confirmation naming what is removed and where the work is kept; throws 'cancelled' on no. */
async function confirmDiscard(manager: AgentManager, record: AgentRecord): Promise<void> {
  const work = record.worktreePath && record.worktreePresent !== false ? await manager.workState(record.id) : undefined;
  const discard = vscode.l10n.t('Discard');
  const parts = [
    record.worktreePath && record.branchExisted
      ? vscode.l10n.t(
          'Its worktree {0} will be removed; the branch {1} stays.',
          record.worktreePath,
          record.branch ?? '',
        )
      : record.worktreePath
        ? vscode.l10n.t('Its worktree {0} and branch {1} will be removed.', record.worktreePath, record.branch ?? '')
        : vscode.l10n.t('It is removed from the list; the workspace files it edited stay as they are.'),
  ];
  if (work && (work.uncommittedFiles > 0 || work.commitsAhead > 0)) {
    parts.push(
      vscode.l10n.t(
        'Its work ({0} uncommitted files, {1} commits) is saved first; Restore Agent brings it back.',
        work.uncommittedFiles,
        work.commitsAhead,
      ),
    );
  }
  if (
    (await vscode.window.showWarningMessage(
      vscode.l10n.t('Discard agent "{0}"?', record.title),
      { modal: true, detail: parts.join('\n\n') },
      discard,
    )) !== discard
  ) {
    cancelled();
  }
}
