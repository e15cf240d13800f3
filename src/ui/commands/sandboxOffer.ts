/**
 * A sandboxed profile where the sandbox cannot run (bubblewrap missing, another platform): the
 * dispatch fails with what to install, and the user may run this one agent unsandboxed, with its
 * permission prompts (its profile's own arguments, never the auto-approve ones). Never silently.
 */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager, DispatchOptions } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { errorMessage } from '../errorMessages';

export async function dispatchOfferingUnsandboxed(
  manager: Pick<AgentManager, 'dispatch'>,
  options: DispatchOptions,
  interactive: boolean,
): Promise<AgentRecord> {
  try {
    return await manager.dispatch(options);
  } catch (e) {
    if (!interactive || !AgentError.isCode(e, 'sandboxUnavailable')) {
      throw e;
    }
    const run = vscode.l10n.t('Run Unsandboxed (with prompts)');
    const detail = vscode.l10n.t(
      "Unsandboxed, the agent can read and write whatever you can; it runs with its profile's own arguments, so it asks before it acts. Only this agent: the profile stays sandboxed.",
    );
    const choice = await vscode.window.showWarningMessage(errorMessage(e), { modal: true, detail }, run);
    if (choice !== run) {
      throw e;
    }
    return manager.dispatch({ ...options, unsandboxed: true });
  }
}
