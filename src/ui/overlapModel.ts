import * as vscode from 'vscode';
import type { AgentManager } from '../core/agents';
import { findOverlaps, type OverlapIndex, sameOverlaps } from '../core/landing';

/** Which live agents change the same files; recomputed on every agent change, fires only on a difference. */
export class OverlapModel implements vscode.Disposable {
  private current: OverlapIndex = new Map();
  private readonly emitter = new vscode.EventEmitter<void>();
  private readonly subscription: vscode.Disposable;
  readonly onDidChange = this.emitter.event;

  constructor(private readonly manager: AgentManager) {
    this.subscription = manager.onDidChangeAgent(() => this.recompute());
    this.recompute();
  }

  /** Titles of the other agents changing `path` of agent `id`. */
  othersFor(id: string, path: string): string[] {
    return (this.current.get(id)?.get(path) ?? []).map((other) => this.title(other));
  }

  /** Titles of every agent sharing at least one file with agent `id`. */
  agentsOverlapping(id: string): string[] {
    const ids = new Set([...(this.current.get(id)?.values() ?? [])].flat());
    return [...ids].map((other) => this.title(other));
  }

  private title(id: string): string {
    return this.manager.list().find((r) => r.id === id)?.title ?? id;
  }

  private recompute(): void {
    const next = findOverlaps(this.manager.list());
    if (!sameOverlaps(next, this.current)) {
      this.current = next;
      this.emitter.fire();
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
