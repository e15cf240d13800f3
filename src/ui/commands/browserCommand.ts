/** Open in Browser: http://localhost:<port> for one of the ports an agent holds (parallelAgents.worktreeEnv). */
import * as vscode from 'vscode';
import { type AgentManager, agentPorts } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { portsRow } from '../agentsView/portsText';
import { pickAgentId } from './agentPick';
import { cancelled } from './commandRunner';

export function openInBrowserCommand(manager: AgentManager, open = (uri: vscode.Uri) => vscode.env.openExternal(uri)) {
  return async (arg?: unknown): Promise<string> => {
    const id = await pickAgentId(manager, arg, {
      filter: (r) => agentPorts(r).length > 0,
      describe: (r) => portsRow(r),
      none: 'noAgentApplies',
      takeOnlyOne: true,
    });
    const record = manager.get(id);
    const ports = agentPorts(record);
    if (ports.length === 0) {
      throw new AgentError('agentHasNoPorts', { title: record.title });
    }
    const chosen =
      ports.length === 1
        ? ports[0]
        : await vscode.window.showQuickPick(
            ports.map((p) => ({ label: String(p.port), description: p.key, port: p.port, key: p.key })),
            { placeHolder: vscode.l10n.t('Which port?') },
          );
    if (!chosen) {
      return cancelled();
    }
    const url = `http://localhost:${chosen.port}`;
    await open(vscode.Uri.parse(url));
    // The URL opened, for the API and tests.
    return url;
  };
}
