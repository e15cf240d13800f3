import type * as vscode from 'vscode';
import type { AgentRecord } from '../core/agent';
import type { StateStore } from '../core/ports';
import { stateKeys } from '../constants';

/** Agents belong to a workspace, so they live in its workspaceState. */
export class MementoStateStore implements StateStore {
  constructor(private readonly memento: vscode.Memento) {}

  load(): readonly AgentRecord[] {
    const value = this.memento.get<unknown>(stateKeys.agents);
    return Array.isArray(value) ? (value as AgentRecord[]) : [];
  }

  async save(records: readonly AgentRecord[]): Promise<void> {
    await this.memento.update(stateKeys.agents, records);
  }
}
