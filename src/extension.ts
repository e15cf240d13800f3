import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { contextKeys, schemes, settings, stateKeys, views } from './constants';
import type { AgentRecord } from './core/agent';
import { AgentLanding } from './core/agentLanding';
import { AgentManager } from './core/agentManager';
import { PlanService } from './core/planService';
import { Reconciler } from './core/reconciler';
import type { MergeStrategy } from './core/ports';
import { Config } from './host/config';
import { VscodeFolderWatcher } from './host/folderWatcher';
import { ChannelLogger } from './host/logger';
import { MementoStateStore } from './host/mementoStateStore';
import { TerminalRunner } from './host/terminalRunner';
import { PathExecutableResolver } from './node/executableResolver';
import { NodeFileSystem } from './node/fileSystem';
import { GitLanding } from './node/gitLanding';
import { GitReconcile } from './node/gitReconcile';
import { GitService } from './node/gitService';
import { GitWorktreeSource } from './node/gitWorktreeSource';
import { SupervisedRunner } from './node/supervisedRunner';
import { AgentsTreeProvider, type ViewRow } from './ui/agentsView/agentsTreeProvider';
import { commandTable } from './ui/commands/commandTable';
import { registerCommands } from './ui/commands/commandRunner';
import { type DispatchArgs, dispatchCommand } from './ui/commands/dispatchCommand';
import { planDiagnostics } from './ui/commands/planCommands';
import { BaseContentProvider } from './ui/diff/baseContentProvider';
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
  const git = new GitService({ logger });
  const gitLanding = new GitLanding({ context: git.context });
  const terminals = new TerminalRunner(logger);
  const storage = context.storageUri ?? context.globalStorageUri;
  const managerSettings = () => ({
    branchPrefix: config.branchPrefix(),
    worktreeRoot: config.worktreeRoot(),
    logDir: path.join(storage.fsPath, 'logs'),
    agentTimeoutMs: config.agentTimeoutMinutes() * 60_000,
    setupCommand: config.setupCommand(),
    symlinkFolders: config.symlinkFolders(),
    initSubmodules: config.initSubmodules(),
  });
  const manager = new AgentManager({
    git,
    fs: new NodeFileSystem(),
    worktreeSource: new GitWorktreeSource(git.context),
    resolver: new PathExecutableResolver({
      demoAgentScript: context.asAbsolutePath(path.join('dist', 'demoAgent.js')),
      runtime: process.execPath,
    }),
    headlessRunner: new SupervisedRunner({
      supervisorScript: context.asAbsolutePath(path.join('dist', 'supervisor.js')),
      runtime: process.execPath,
      stateDir: path.join(storage.fsPath, 'agents'),
      maxLogBytes: () => config.maxLogMegabytes() * 1024 * 1024,
    }),
    terminalRunner: terminals,
    watcher: new VscodeFolderWatcher(),
    store: new MementoStateStore(context.workspaceState, stateKeys.agents),
    clock: { now: () => Date.now() },
    logger,
    settings: () => managerSettings(),
    profiles: () => config.profiles(),
    newId: () => randomUUID().slice(0, 8),
  });
  const landing = new AgentLanding(manager, git, gitLanding, logger);
  const plans = new PlanService(
    {
      manager,
      git,
      landing: gitLanding,
      fs: new NodeFileSystem(),
      clock: { now: () => Date.now() },
      logger,
      settings: () => ({
        ...managerSettings(),
        defaultProfile: config.defaultProfile(),
        maxParallel: config.maxParallel(),
      }),
    },
    new MementoStateStore(context.workspaceState, stateKeys.plans),
    () => randomUUID().slice(0, 8),
  );
  const reconciler = new Reconciler({
    manager,
    landing,
    git,
    gitLanding,
    reconcileGit: new GitReconcile(git.context),
    fs: new NodeFileSystem(),
    clock: { now: () => Date.now() },
    logger,
    settings: () => managerSettings(),
    newId: () => randomUUID().slice(0, 8),
    profile: () =>
      config.profiles().find((p) => p.name === config.defaultProfile()) ?? {
        name: config.defaultProfile(),
        mode: 'headless',
      },
    repositories: () => workspaceRepositories(git),
    inUse: () => ({
      paths: plans.list().map((r) => r.integrationPath),
      branches: plans.list().map((r) => r.integrationBranch),
    }),
  });
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
  const strategy = () =>
    vscode.workspace.getConfiguration(settings.section).get<MergeStrategy>(settings.mergeStrategy, 'merge');

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
    new FinishNotifications(manager),
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
        gitLanding,
        outputs,
        terminals,
        dispatch: dispatchDeps,
        strategy,
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
    dispatch: async (options) => (await dispatchCommand(dispatchDeps, options)) as string,
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

async function workspaceRepositories(git: GitService): Promise<string[]> {
  const roots = await Promise.all(
    (vscode.workspace.workspaceFolders ?? []).map((f) => git.repoRoot(f.uri.fsPath).catch(() => undefined)),
  );
  return roots.filter((r): r is string => r !== undefined);
}

/** Lets the diff editor's title bar offer Accept File / Revert File when the diff is an agent's. */
function trackAgentDiffContext(): vscode.Disposable {
  const update = () => {
    const active = BaseContentProvider.changeOf(vscode.window.tabGroups.activeTabGroup.activeTab) !== undefined;
    void vscode.commands.executeCommand('setContext', contextKeys.agentDiffActive, active);
  };
  return vscode.Disposable.from(
    vscode.window.tabGroups.onDidChangeTabs(update),
    vscode.window.tabGroups.onDidChangeTabGroups(update),
  );
}

export function deactivate(): void {
  // The context's disposables end watchers and stop running agents (AgentManager.dispose).
}
