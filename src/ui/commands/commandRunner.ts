import * as vscode from 'vscode';
import { commands } from '../../constants';
import { AgentError } from '../../core/errors';
import type { Logger } from '../../core/ports';

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * The one place where failures become messages: AgentErrors carry a user-facing message, anything
 * else is unexpected. Either way the user gets a "Show Log" button and the log gets the detail.
 */
export function registerCommands(table: Record<string, CommandHandler>, logger: Logger): vscode.Disposable[] {
  return Object.entries(table).map(([id, handler]) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await handler(...args);
      } catch (e) {
        reportError(e, logger);
        return undefined;
      }
    }),
  );
}

/** Ends a command the user backed out of (a dismissed pick, input box or dialog): no message is shown. */
export function cancelled(): never {
  throw new AgentError('cancelled', 'cancelled');
}

/** Shows the message without waiting for it to be dismissed: the command itself is over. */
export function reportError(e: unknown, logger: Logger): void {
  if (AgentError.is(e, 'cancelled')) {
    return;
  }
  const message = AgentError.is(e, 'diskFull')
    ? vscode.l10n.t(
        'The disk is full, so git or the agent could not write its files. Free some space, or set parallelAgents.worktreeRoot to a folder on a disk with room, then try again (Show Log has the details).',
      )
    : AgentError.is(e)
      ? e.message
      : vscode.l10n.t('Unexpected error: {0}', (e as Error)?.message ?? String(e));
  const detail = AgentError.is(e, 'diskFull')
    ? `${e.message}\n${e.detail ?? ''}`
    : AgentError.is(e)
      ? e.detail
      : (e as Error)?.stack;
  logger.error(`[Command] ${message}${detail ? `\n${detail}` : ''}`);
  const showLog = vscode.l10n.t('Show Log');
  void vscode.window.showErrorMessage(message, showLog).then((choice) => {
    if (choice === showLog) {
      void vscode.commands.executeCommand(commands.showLog);
    }
  });
}

/** Agent commands accept a tree node, `{ id }`, `{ agentId }` or a plain id string. */
export function agentIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg;
  }
  if (arg && typeof arg === 'object') {
    const o = arg as { id?: unknown; agentId?: unknown; type?: unknown };
    if (typeof o.agentId === 'string') {
      return o.agentId;
    }
    if (typeof o.id === 'string') {
      return o.id;
    }
  }
  return undefined;
}
