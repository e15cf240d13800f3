import * as vscode from 'vscode';
import { AgentError } from '../../core/errors';
import type { Logger } from '../../core/ports';
import { errorActions, errorLogText, errorMessage, showError } from '../errorMessages';

export type CommandHandler = (...args: unknown[]) => unknown;

/**
 * Where failures of commands become notifications: an AgentError reads as errorMessages.ts words
 * its code, anything else is unexpected. Either way the user gets a "Show Log" button and the log
 * gets the detail.
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
  throw new AgentError('cancelled', {});
}

/** Shows the message without waiting for it to be dismissed: the command itself is over. */
export function reportError(e: unknown, logger: Logger): void {
  if (AgentError.is(e, 'cancelled')) {
    return;
  }
  if (AgentError.is(e)) {
    logger.error(`[Command] ${errorLogText(e)}`);
    showError(errorMessage(e), errorActions(e), e.detail);
    return;
  }
  const message = vscode.l10n.t('Unexpected error: {0}', (e as Error)?.message ?? String(e));
  const stack = (e as Error)?.stack;
  logger.error(`[Command] ${message}${stack ? `\n${stack}` : ''}`);
  showError(message, []);
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
