import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import { type AgentRecord, isActive } from '../../core/agent';
import type { PlanService } from '../../core/plans';
import type { OverlapModel } from '../overlapModel';
import { AgentsViewModel, type OrphanSource } from './agentsViewModel';
import { AgentNode, type ViewNode } from './nodes';
import { OrphanNode } from './orphanNodes';
import { PlanNode, TaskNode } from './planNodes';

export type { OrphanSource } from './agentsViewModel';
export type TreeNode = ViewNode;

export interface ViewRow {
  readonly label: string;
  readonly description: string;
  readonly contextValue: string;
  readonly children: ViewRow[];
}

/** Reads only the view model (memory); per-agent change events refresh just that row. */
export class AgentsTreeProvider implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  private readonly model: AgentsViewModel;
  /** One node per top-level agent, so that a change event can name the row VS Code already has. */
  private readonly agentNodes = new Map<string, AgentNode>();
  private readonly emitter = new vscode.EventEmitter<ViewNode | undefined>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private ticker: ReturnType<typeof setInterval> | undefined;

  readonly onDidChangeTreeData = this.emitter.event;

  constructor(
    private readonly manager: AgentManager,
    overlaps: OverlapModel,
    plans: PlanService,
    orphanSource?: OrphanSource,
  ) {
    this.model = new AgentsViewModel(manager, overlaps, plans, orphanSource);
    this.subscriptions.push(
      plans.onDidChange(() => this.emitter.fire(undefined)),
      ...(orphanSource ? [orphanSource.onDidChange(() => this.emitter.fire(undefined))] : []),
      overlaps.onDidChange(() => this.emitter.fire(undefined)),
      manager.onDidChangeAgent((change) => {
        const node = this.agentNodes.get(change.id);
        this.emitter.fire(change.kind === 'updated' && node ? node : undefined);
        this.updateTicker();
      }),
    );
    this.updateTicker();
  }

  getTreeItem(node: ViewNode): vscode.TreeItem {
    return node.treeItem(this.model);
  }

  getChildren(node?: ViewNode): ViewNode[] {
    return node ? node.children(this.model) : this.roots();
  }

  getParent(node: ViewNode): ViewNode | undefined {
    const parent = node.parent(this.model);
    return parent instanceof AgentNode ? (this.agentNodes.get(parent.id) ?? parent) : parent;
  }

  /** The row that shows `record`: its plan task's for an agent that runs one, else its own (for reveal). */
  rowOf(record: AgentRecord): ViewNode {
    if (record.plan) {
      return new TaskNode(record.plan.runId, record.plan.taskId);
    }
    return this.agentNodes.get(record.id) ?? new AgentNode(record.id);
  }

  /** Plans first, then Reconcile's orphans, then the agents that are not a plan's task. */
  private roots(): ViewNode[] {
    const records = this.model.standaloneAgents();
    const live = new Set(records.map((r) => r.id));
    for (const id of this.agentNodes.keys()) {
      if (!live.has(id)) {
        this.agentNodes.delete(id);
      }
    }
    const agents = records.map((r) => {
      let node = this.agentNodes.get(r.id);
      if (!node) {
        node = new AgentNode(r.id);
        this.agentNodes.set(r.id, node);
      }
      return node;
    });
    return [
      ...this.model.planRuns().map((run) => new PlanNode(run.id)),
      ...this.model.orphans().map((o) => new OrphanNode(o)),
      ...agents,
    ];
  }

  /** The rows as the view renders them (labels, descriptions, context values): for tests and the API. */
  snapshot(): ViewRow[] {
    const row = (node: ViewNode): ViewRow => {
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
        for (const node of this.agentNodes.values()) {
          const record = this.model.agent(node.id);
          if (record && isActive(record.status)) {
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
