import * as vscode from 'vscode';
import type { AgentManager } from '../core/agents';
import { findOverlaps, type OverlapIndex, sameOverlaps } from '../core/landing';
import { findAgent } from './agentsView/agentsViewModel';

/** Which live agents change the same files; recomputed on every agent change, fires only on a difference. */
export class OverlapModel implements vscode.Disposable {
  private current: OverlapIndex = new Map();
  /** agentsOverlapping's answers since the last change of any agent (a title may change too). */
  private readonly overlapping = new Map<string, readonly string[]>();
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

  /** Titles of every agent sharing at least one file with agent `id`: worked out once per agent change. */
  agentsOverlapping(id: string): string[] {
    let titles = this.overlapping.get(id);
    if (!titles) {
      const ids = new Set([...(this.current.get(id)?.values() ?? [])].flat());
      titles = [...ids].map((other) => this.title(other));
      this.overlapping.set(id, titles);
    }
    return [...titles];
  }

  private title(id: string): string {
    return findAgent(this.manager, id)?.title ?? id;
  }

  private recompute(): void {
    this.overlapping.clear();
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
