import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agentManager';
import { isActive } from '../../core/agent';
import type { PlanService } from '../../core/planService';
import type { Orphan } from '../../core/reconcile';
import type { Event } from '../../util/event';
import type { OverlapModel } from '../overlapModel';
import { AgentNode, FileNode, type TreeNode as AgentTreeNode } from './nodes';
import { OrphanNode } from './orphanNodes';
import { PlanNode, TaskNode } from './planNodes';
import { statusText } from './presentation';

export type TreeNode = AgentTreeNode | PlanNode | TaskNode | OrphanNode;

/** Reconcile Agents' last findings, held in memory. */
export interface OrphanSource {
  orphans(): readonly Orphan[];
  readonly onDidChange: Event<void>;
}

export interface ViewRow {
  readonly label: string;
  readonly description: string;
  readonly contextValue: string;
  readonly children: ViewRow[];
}

/** Reads only the manager's memory; per-agent change events refresh just that row. */
export class AgentsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly nodes = new Map<string, AgentNode>();
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private ticker: ReturnType<typeof setInterval> | undefined;

  readonly onDidChangeTreeData = this.emitter.event;

  constructor(
    private readonly manager: AgentManager,
    private readonly overlaps: OverlapModel,
    private readonly plans: PlanService,
    private readonly orphanSource?: OrphanSource,
  ) {
    this.subscriptions.push(
      plans.onDidChange(() => this.emitter.fire(undefined)),
      ...(orphanSource ? [orphanSource.onDidChange(() => this.emitter.fire(undefined))] : []),
      overlaps.onDidChange(() => this.emitter.fire(undefined)),
      manager.onDidChangeAgent((change) => {
        const node = this.nodes.get(change.id);
        if (change.kind === 'updated' && node) {
          node.record = manager.get(change.id);
          this.emitter.fire(node);
        } else {
          this.emitter.fire(undefined);
        }
        this.updateTicker();
      }),
    );
    this.updateTicker();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node instanceof PlanNode || node instanceof OrphanNode) {
      return node.toTreeItem();
    }
    if (node instanceof TaskNode) {
      const agentId = node.run.agentOf(node.task.id);
      const record = agentId ? this.manager.list().find((r) => r.id === agentId) : undefined;
      return node.toTreeItem(
        record ? `${record.profile} · ${statusText(record.status)}` : undefined,
        (record?.changedFiles.length ?? 0) > 0,
      );
    }
    return node instanceof AgentNode
      ? node.toTreeItem(Date.now(), this.overlaps.agentsOverlapping(node.id))
      : node.toTreeItem(this.overlaps.othersFor(node.agentId, node.file.path));
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node instanceof PlanNode) {
      const byId = new Map(node.run.plan.tasks.map((t) => [t.id, t]));
      return [...node.run.scheduler.states().keys()].map((id) => new TaskNode(node.run, byId.get(id)!));
    }
    if (node instanceof TaskNode) {
      const agentId = node.run.agentOf(node.task.id);
      const record = agentId ? this.manager.list().find((r) => r.id === agentId) : undefined;
      return record ? record.changedFiles.map((f) => new FileNode(record.id, record.cwd, f)) : [];
    }
    if (!node) {
      const plans = this.plans.list().map((run) => new PlanNode(run));
      const records = this.manager.list().filter((r) => !r.plan);
      const live = new Set(records.map((r) => r.id));
      for (const id of this.nodes.keys()) {
        if (!live.has(id)) {
          this.nodes.delete(id);
        }
      }
      const orphans = (this.orphanSource?.orphans() ?? []).map((o) => new OrphanNode(o));
      return [
        ...plans,
        ...orphans,
        ...records.map((r) => {
          const existing = this.nodes.get(r.id);
          if (existing) {
            existing.record = r;
            return existing;
          }
          const created = new AgentNode(r);
          this.nodes.set(r.id, created);
          return created;
        }),
      ];
    }
    if (node instanceof AgentNode) {
      return node.record.changedFiles.map((f) => new FileNode(node.id, node.record.cwd, f));
    }
    return [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return node instanceof FileNode
      ? this.nodes.get(node.agentId)
      : node instanceof TaskNode
        ? new PlanNode(node.run)
        : undefined;
  }

  /** The rows as the view renders them (labels, descriptions, context values): for tests and the API. */
  snapshot(): ViewRow[] {
    const row = (node: TreeNode): ViewRow => {
      const item = this.getTreeItem(node);
      const label =
        typeof item.label === 'string'
          ? item.label
          : (item.label?.label ?? item.resourceUri?.path.split('/').pop() ?? '');
      return {
        label,
        description: String(item.description ?? ''),
        contextValue: item.contextValue ?? '',
        children: this.getChildren(node).map(row),
      };
    };
    return this.getChildren().map(row);
  }

  /** Running rows show elapsed time, so they are refreshed once a second while any agent runs. */
  private updateTicker(): void {
    const anyRunning = this.manager.list().some((r) => isActive(r.status));
    if (anyRunning && !this.ticker) {
      this.ticker = setInterval(() => {
        for (const node of this.nodes.values()) {
          if (isActive(node.record.status)) {
            this.emitter.fire(node);
          }
        }
      }, 1000);
    } else if (!anyRunning && this.ticker) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }

  dispose(): void {
    if (this.ticker) {
      clearInterval(this.ticker);
    }
    this.subscriptions.forEach((s) => s.dispose());
    this.emitter.dispose();
  }
}
