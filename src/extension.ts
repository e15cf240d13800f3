import * as vscode from 'vscode';
import { schemes, views } from './constants';
import type { AgentRecord } from './core/agent';
import { PlanService } from './core/plans';
import { Config } from './host/config';
import { ChannelLogger } from './host/logger';
import type { AgentManager } from './core/agents';
import type { Reconciler } from './core/reconcile';
import { createServices } from './services';
import { AgentsTreeProvider, type ViewRow } from './ui/agentsView/agentsTreeProvider';
import { commandTable } from './ui/commands/commandTable';
import { registerCommands } from './ui/commands/commandRunner';
import { type DispatchArgs, dispatchCommand } from './ui/commands/dispatchCommand';
import { planDiagnostics } from './ui/commands/planFile';
import { trackAgentDiffContext } from './ui/diff/agentDiffContext';
import { BaseContentProvider } from './ui/diff/baseContentProvider';
import { apiError } from './ui/errorMessages';
import { ChangeDecorationProvider } from './ui/diff/changeDecorations';
import { FinishNotifications } from './ui/notifications';
import { AgentOutputViews } from './ui/outputViews';
import { OverlapModel } from './ui/overlapModel';
import { PlanNotifications } from './ui/planNotifications';
import { AgentsStatusBar } from './ui/statusBar';
import { showTimeline } from './ui/timeline/timelineSources';

/** The public API returned by activate(); plain data only. */
export interface ParallelAgentsApi {
  dispatch(options: DispatchArgs & { prompt: string }): Promise<string>;
  agents(): AgentRecord[];
  readonly onDidChangeAgents: vscode.Event<AgentRecord[]>;
  /** The Agents view's rows as rendered (label, description, children). */
  viewSnapshot(): ViewRow[];
  /** Milliseconds activate() took; reported by `npm run bench`. */
  readonly activationMs: number;
}

export function activate(context: vscode.ExtensionContext): ParallelAgentsApi {
  const started = performance.now();
  const logger = new ChannelLogger();
  const config = new Config(logger);
  const { git, terminals, manager, landing, plans, reconciler } = createServices(context, config, logger);
  const overlaps = new OverlapModel(manager);
  const tree = new AgentsTreeProvider(manager, overlaps, plans, reconciler);
  const outputs = new AgentOutputViews(manager);
  const agentsChanged = new vscode.EventEmitter<AgentRecord[]>();
  const dispatchDeps = {
    manager,
    git,
    profiles: () => config.profiles(),
    defaultProfile: () => config.defaultProfile(),
    memento: context.globalState,
  };

  context.subscriptions.push(
    logger,
    terminals,
    manager,
    plans,
    reconciler,
    overlaps,
    tree,
    outputs,
    agentsChanged,
    vscode.window.createTreeView(views.agents, { treeDataProvider: tree, showCollapseAll: true }),
    vscode.workspace.registerTextDocumentContentProvider(schemes.base, new BaseContentProvider(git)),
    vscode.window.registerFileDecorationProvider(new ChangeDecorationProvider(overlaps)),
    new AgentsStatusBar(manager),
    new FinishNotifications(manager, () => config.notifyOnFinish()),
    new PlanNotifications(plans, manager),
    manager.onDidChangeAgent(() => agentsChanged.fire(manager.list())),
    trackAgentDiffContext(),
    planDiagnostics,
    ...registerCommands(
      commandTable({
        manager,
        plans,
        showTimeline: (arg) => showTimeline(context.extensionUri, manager, plans, arg),
        landing,
        git,
        outputs,
        terminals,
        dispatch: dispatchDeps,
        strategy: () => config.mergeStrategy(),
        showLog: () => logger.show(),
        reconciler,
      }),
      logger,
    ),
  );
  // Restored agents are re-scanned after activation so that startup stays fast, and only in a
  // trusted workspace: nothing runs git or agents in a workspace the user has not trusted.
  if (vscode.workspace.isTrusted) {
    setTimeout(() => resumeAndReconcile(manager, plans, reconciler), 0);
  } else {
    context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => resumeAndReconcile(manager, plans, reconciler)),
    );
  }

  return {
    dispatch: (options) =>
      dispatchCommand(dispatchDeps, options).then(
        (id) => id as string,
        (e: unknown) => Promise.reject(apiError(e)),
      ),
    agents: () => manager.list(),
    onDidChangeAgents: agentsChanged.event,
    viewSnapshot: () => tree.snapshot(),
    activationMs: performance.now() - started,
  };
}

/** Reconcile runs in the background after the restored agents and plan runs resume; its failures are only logged. */
function resumeAndReconcile(manager: AgentManager, plans: PlanService, reconciler: Reconciler): void {
  manager.resume();
  plans.resume();
  void reconciler.run().catch(() => undefined);
}

export function deactivate(): void {
  // The context's disposables end watchers and stop running agents (AgentManager.dispose).
}
