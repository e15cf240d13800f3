/** An agent's ports (parallelAgents.worktreeEnv) on its row: in the description, the tooltip and the context value. */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import { agentPorts } from '../../core/agents';

/** "port 3101" / "ports 3101, 3102" while the agent holds ports; undefined otherwise. */
export function portsBadge(record: AgentRecord): string | undefined {
  const ports = agentPorts(record).map((p) => p.port);
  if (ports.length === 0) {
    return undefined;
  }
  return ports.length === 1 ? vscode.l10n.t('port {0}', ports[0]) : vscode.l10n.t('ports {0}', ports.join(', '));
}

/** "web 3101, api 3102": each port with its name (a `${freePort:name}`'s name, or its variable's). */
export function portsRow(record: AgentRecord): string | undefined {
  const ports = agentPorts(record);
  return ports.length > 0 ? ports.map((p) => `${p.key} ${p.port}`).join(', ') : undefined;
}

/** The context value's part that offers Open in Browser: ".ports" while the agent holds any. */
export function portsContext(record: AgentRecord): string {
  return agentPorts(record).length > 0 ? '.ports' : '';
}
