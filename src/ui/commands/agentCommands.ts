import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agentManager';
import { AgentError } from '../../core/errors';
import type { TerminalRunner } from '../../host/terminalRunner';
import type { AgentOutputViews } from '../outputViews';
import { openChange } from '../diff/openChange';
import { agentIdOf } from './commandRunner';

export interface AgentCommandDeps {
  readonly manager: AgentManager;
  readonly outputs: AgentOutputViews;
  readonly terminals: TerminalRunner;
}

export interface DiscardArgs {
  readonly id?: string;
  /** false: no dialogs; refuses when the agent has work unless `force` is true. */
  readonly confirm?: boolean;
  readonly force?: boolean;
}

async function pickAgent(manager: AgentManager, arg: unknown, filter: (r: AgentRecord) => boolean = () => true): Promise<AgentRecord> {
  const id = agentIdOf(arg);
  if (id) {
    return manager.get(id);
  }
  const candidates = manager.list().filter(filter);
  if (candidates.length === 0) {
    throw new AgentError('unknownAgent', vscode.l10n.t('There is no agent this applies to.'));
  }
  const picked = await vscode.window.showQuickPick(
    candidates.map((r) => ({ label: r.title, description: `${r.profile} · ${r.status}`, id: r.id })),
    { placeHolder: vscode.l10n.t('Which agent?') },
  );
  if (!picked) {
    throw new AgentError('cancelled', 'cancelled');
  }
  return manager.get(picked.id);
}

export function agentCommands(deps: AgentCommandDeps) {
  const { manager } = deps;
  return {
    stop: async (arg?: unknown) => {
      const record = await pickAgent(manager, arg, (r) => r.status === 'running' || r.status === 'waiting-for-input');
      await manager.stop(record.id);
    },
    showOutput: async (arg?: unknown) => {
      const record = await pickAgent(manager, arg);
      if (record.mode === 'terminal' && deps.terminals.reveal(record.id)) {
        return;
      }
      await deps.outputs.show(record.id);
    },
    openWorktree: async (arg?: unknown) => {
      const record = await pickAgent(manager, arg, (r) => r.worktreePath !== undefined);
      if (!record.worktreePath) {
        throw new AgentError('unknownAgent', vscode.l10n.t('Agent "{0}" works in the workspace itself, not in a worktree.', record.title));
      }
      await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(record.worktreePath), { forceNewWindow: true });
    },
    revealTerminal: async (arg?: unknown) => {
      const record = await pickAgent(manager, arg, (r) => r.mode === 'terminal');
      if (!deps.terminals.reveal(record.id)) {
        throw new AgentError('unknownAgent', vscode.l10n.t('The terminal of agent "{0}" has closed.', record.title));
      }
    },
    discard: async (arg?: unknown) => {
      const record = await pickAgent(manager, arg);
      const options = (arg && typeof arg === 'object' ? arg : {}) as DiscardArgs;
      const force = await confirmDiscard(manager, record, options);
      await manager.discard(record.id, { force });
    },
    refresh: async (arg?: unknown) => {
      const id = agentIdOf(arg);
      const ids = id ? [id] : manager.list().map((r) => r.id);
      await Promise.all(ids.map((i) => manager.refreshChanges(i)));
    },
    openChange: async (arg?: unknown) => {
      const { agentId, path } = (arg ?? {}) as { agentId?: string; path?: string };
      if (!agentId || !path) {
        throw new AgentError('unknownAgent', vscode.l10n.t('Open a change from a file row of the Agents view.'));
      }
      await openChange(manager.get(agentId), path);
    },
  };
}

/** Returns whether removal may force past uncommitted content; throws 'cancelled' when the user backs out. */
async function confirmDiscard(manager: AgentManager, record: AgentRecord, options: DiscardArgs): Promise<boolean> {
  const work = record.worktreePath ? await manager.workState(record.id) : { uncommittedFiles: 0, commitsAhead: 0 };
  const hasWork = work.uncommittedFiles > 0 || work.commitsAhead > 0;
  if (options.confirm === false) {
    if (hasWork && !options.force) {
      throw new AgentError('invalidTransition', vscode.l10n.t('Agent "{0}" has {1} uncommitted files and {2} commits not merged; pass force to discard them.', record.title, work.uncommittedFiles, work.commitsAhead));
    }
    return true;
  }
  const discard = vscode.l10n.t('Discard');
  const detail = record.worktreePath
    ? vscode.l10n.t('Its worktree {0} and branch {1} will be removed.', record.worktreePath, record.branch ?? '')
    : vscode.l10n.t('It is removed from the list; the workspace files it edited stay as they are.');
  if ((await vscode.window.showWarningMessage(vscode.l10n.t('Discard agent "{0}"?', record.title), { modal: true, detail }, discard)) !== discard) {
    throw new AgentError('cancelled', 'cancelled');
  }
  if (!hasWork) {
    return false;
  }
  const anyway = vscode.l10n.t('Discard Work');
  const lost = vscode.l10n.t('Agent "{0}" has {1} uncommitted files and {2} commits that are not merged. Discarding deletes this work.', record.title, work.uncommittedFiles, work.commitsAhead);
  if ((await vscode.window.showWarningMessage(lost, { modal: true }, anyway)) !== anyway) {
    throw new AgentError('cancelled', 'cancelled');
  }
  return true;
}
