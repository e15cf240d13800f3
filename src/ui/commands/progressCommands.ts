import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { reviewQueue } from '../../core/review';
import { commands } from '../../constants';

/** A file row, `{ agentId, path }` or `{ agentId, paths }`: the agent and the files meant. */
function filesOf(arg: unknown, selected: unknown): { agentId: string; paths: string[] } {
  const rows = Array.isArray(selected) && selected.length > 0 ? selected : [arg];
  const targets = rows.map((row) => (row && typeof row === 'object' ? row : {}) as Record<string, unknown>);
  const agentId = targets[0]?.agentId;
  if (typeof agentId !== 'string') {
    throw new AgentError('noAgentFile', {});
  }
  const paths = targets.flatMap((t) =>
    t.agentId !== agentId
      ? []
      : Array.isArray(t.paths)
        ? t.paths.filter((p): p is string => typeof p === 'string')
        : typeof t.path === 'string'
          ? [t.path]
          : [],
  );
  if (paths.length === 0) {
    throw new AgentError('noAgentFile', {});
  }
  return { agentId, paths };
}

/**
 * Review progress: Mark as Viewed / Not Viewed on file rows (several rows at once when selected), and
 * Next Agent to Review, which opens the changes of the agents waiting for review one after another,
 * the one that finished first first (its account, then the files not viewed yet at the top), and
 * selects its row in the Agents view.
 */
export function progressCommands(manager: AgentManager, revealAgent: (id: string) => Thenable<void>) {
  let lastShown: string | undefined;
  return {
    markViewed: async (arg?: unknown, selected?: unknown) => {
      const { agentId, paths } = filesOf(arg, selected);
      await manager.markViewed(agentId, paths, true);
    },
    markUnviewed: async (arg?: unknown, selected?: unknown) => {
      const { agentId, paths } = filesOf(arg, selected);
      await manager.markViewed(agentId, paths, false);
    },
    nextToReview: async () => {
      const queue = reviewQueue(manager.list());
      if (queue.length === 0) {
        lastShown = undefined;
        void vscode.window.showInformationMessage(vscode.l10n.t('No agent is waiting for review.'));
        return undefined;
      }
      // Walk on from the agent shown last; the queue keeps its order while the user reviews.
      const after = queue.findIndex((r) => r.id === lastShown);
      const next = queue[(after + 1) % queue.length];
      lastShown = next.id;
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t(
          '$(eye) Reviewing "{0}" ({1} of {2} waiting)',
          next.title,
          ((after + 1) % queue.length) + 1,
          queue.length,
        ),
        4000,
      );
      await vscode.commands.executeCommand(commands.reviewAll, next.id);
      // Its row is selected too (the editor keeps the focus), so the Agents view shows whose review it is.
      await revealAgent(next.id);
      return next.id;
    },
  };
}
