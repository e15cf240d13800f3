import type * as vscode from 'vscode';
import type { RecordStore } from '../core/ports';

/** Agents and plan runs belong to a workspace, so they live in its workspaceState, one key each. */
export class MementoStateStore<T> implements RecordStore<T> {
  constructor(
    private readonly memento: vscode.Memento,
    private readonly key: string,
  ) {}

  load(): readonly T[] {
    const value = this.memento.get<unknown>(this.key);
    return Array.isArray(value) ? (value as T[]) : [];
  }

  async save(records: readonly T[]): Promise<void> {
    await this.memento.update(this.key, records);
  }
}
