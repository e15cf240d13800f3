import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import { type AgentRecord, isActive } from '../../core/agent';
import type { PlanService } from '../../core/plans';
import type { OverlapModel } from '../overlapModel';
import { AgentsViewModel, type OrphanSource } from './agentsViewModel';
import type { AgentCosts } from './costText';
import { runningClock, untilClockChanges } from './clock';
import { AgentNode, type ViewNode } from './nodes';
import { OrphanNode } from './orphanNodes';
import { PlanNode, TaskNode } from './planNodes';

export type { OrphanSource } from './agentsViewModel';

const started = (record: AgentRecord) => record.startedAt ?? record.createdAt;
export type TreeNode = ViewNode;

/** Whether the Agents view is on screen: the shape of vscode.TreeView's visibility. */
export interface ViewVisibility {
  readonly visible: boolean;
  readonly onDidChangeVisibility: vscode.Event<{ readonly visible: boolean }>;
}

export interface ViewRow {
  readonly label: string;
  readonly description: string;
  readonly contextValue: string;
  readonly children: ViewRow[];
}

/** Reads only the view model (memory); per-agent change events refresh just that row. */
/** How long a hover waits for its worktree's size before it shows without it (the row is redrawn once it comes). */
const hoverSizeWaitMs = 1500;

export class AgentsTreeProvider implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  private readonly model: AgentsViewModel;
  /** One node per top-level agent, so that a change event can name the row VS Code already has. */
  private readonly agentNodes = new Map<string, AgentNode>();
  private readonly emitter = new vscode.EventEmitter<ViewNode | undefined>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private ticker: ReturnType<typeof setTimeout> | undefined;
  /** The clock each running row showed at its last refresh by the ticker. */
  private readonly clocks = new Map<string, string>();

  readonly onDidChangeTreeData = this.emitter.event;

  constructor(
    private readonly manager: AgentManager,
    overlaps: OverlapModel,
    plans: PlanService,
    orphanSource?: OrphanSource,
    private readonly visibility?: ViewVisibility,
    costs?: AgentCosts,
  ) {
    this.model = new AgentsViewModel(manager, overlaps, plans, orphanSource, costs);
    this.subscriptions.push(
      plans.onDidChange(() => this.emitter.fire(undefined)),
      ...(orphanSource ? [orphanSource.onDidChange(() => this.emitter.fire(undefined))] : []),
      overlaps.onDidChange(() => this.emitter.fire(undefined)),
      manager.onDidChangeAgent((change) => {
        const node = this.agentNodes.get(change.id);
        this.emitter.fire(change.kind === 'updated' && node ? node : undefined);
        this.updateTicker();
      }),
      ...(visibility ? [visibility.onDidChangeVisibility(() => this.updateTicker())] : []),
      ...(costs ? [costs.onDidChange((ids) => this.refreshRows(ids))] : []),
    );
    this.updateTicker();
  }

  getTreeItem(node: ViewNode): vscode.TreeItem {
    return node.treeItem(this.model);
  }

  /**
   * Fills in what getTreeItem leaves out for speed: an agent row's tooltip, built when hovered, its
   * worktree's size measured first (briefly: a redraw of the row after the hover shows closes it).
   */
  async resolveTreeItem(item: vscode.TreeItem, node: ViewNode): Promise<vscode.TreeItem> {
    if (node instanceof AgentNode && item.tooltip === undefined) {
      const record = this.model.agent(node.id);
      if (record) {
        await this.model.costs?.measureWithin(record, hoverSizeWaitMs);
      }
      item.tooltip = node.tooltip(this.model);
    }
    return item;
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
    if (record.plan && !record.bestOf) {
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
    if (!this.ticker) {
      this.updateTicker(); // rows the view shows now may have a clock
    }
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

  /**
   * Running rows show a clock (see clock.ts): while the view is visible, one timer wakes when the
   * first of their texts changes and refreshes the rows whose text did. Hidden view, no clock: no timer.
   */
  private updateTicker(): void {
    clearTimeout(this.ticker);
    this.ticker = undefined;
    if (this.visibility && !this.visibility.visible) {
      return;
    }
    const now = this.model.now();
    const waits = this.runningRows().map(({ record }) => untilClockChanges(now - started(record)));
    if (waits.length > 0) {
      this.ticker = setTimeout(() => this.tick(), Math.min(...waits));
    }
  }

  private tick(): void {
    this.ticker = undefined;
    const now = this.model.now();
    const rows = this.runningRows();
    const running = new Set(rows.map(({ node }) => node.id));
    [...this.clocks.keys()].filter((id) => !running.has(id)).forEach((id) => this.clocks.delete(id));
    for (const { node, record } of rows) {
      const clock = runningClock(now - started(record));
      if (this.clocks.get(node.id) !== clock) {
        this.clocks.set(node.id, clock);
        this.emitter.fire(node);
      }
    }
    this.updateTicker();
  }

  /** Refreshes the rows of these agents that the view shows (their costs changed). */
  private refreshRows(ids: readonly string[]): void {
    for (const id of ids) {
      const node = this.agentNodes.get(id);
      if (node) {
        this.emitter.fire(node);
      }
    }
  }

  /** The rows of the view (top-level agents) whose agent is active. */
  private runningRows(): { node: AgentNode; record: AgentRecord }[] {
    const records = new Map(this.manager.list().map((r) => [r.id, r]));
    return [...this.agentNodes.values()].flatMap((node) => {
      const record = records.get(node.id);
      return record && isActive(record.status) ? [{ node, record }] : [];
    });
  }

  dispose(): void {
    clearTimeout(this.ticker);
    this.subscriptions.forEach((s) => s.dispose());
    this.emitter.dispose();
  }
}
