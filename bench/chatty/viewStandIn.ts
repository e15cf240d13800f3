// What the open Agents view does in the extension host, without VS Code: every change of an agent
// refreshes its row, which reads the record and words its description (src/ui/agentsView).
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';

export class ViewStandIn {
  refreshes = 0;
  private readonly subscription: { dispose(): void };

  constructor(private readonly manager: AgentManager) {
    this.subscription = manager.onDidChangeAgent(({ id, kind }) => {
      if (kind !== 'removed') {
        this.row(this.manager.get(id));
      }
    });
  }

  private row(record: AgentRecord): string {
    this.refreshes++;
    const activity = record.activity;
    return `${record.title} · ${record.profile} · ${record.status} · ${activity?.step ?? ''} ${activity?.turns ?? ''}`;
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
