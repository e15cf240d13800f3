// Part of the composition root: everything that may run git, an agent or a setup command, built
// only in a trusted workspace (at activation, or when the user grants trust); extension.ts calls it.
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { schemes, settings } from './constants';
import type { AgentRecord } from './core/agent';
import { AgentReviewer, ReviewComments } from './core/review';
import { Config } from './host/config';
import type { ChannelLogger } from './host/logger';
import { ghCreatePullRequest } from './node/ghCli';
import { LogFollower, readLogTail } from './node/logTail';
import { NodeFileBytes } from './node/fileBytes';
import { createServices } from './services';
import { AgentsTreeProvider, type TreeNode, type ViewRow } from './ui/agentsView/agentsTreeProvider';
import type { LateTreeProvider } from './ui/agentsView/lateTreeProvider';
import type { ReadOnlyRow } from './ui/agentsView/readOnlyModel';
import { commandTable } from './ui/commands/commandTable';
import { registerCommands } from './ui/commands/commandRunner';
import { type DispatchArgs, dispatchCommand } from './ui/commands/dispatchCommand';
import { planDiagnostics } from './ui/commands/planFile';
import { AccountDocuments } from './ui/account/accountDocument';
import { CompareDocuments } from './ui/bestOf/compareDocument';
import { trackAgentDiffContext } from './ui/diff/agentDiffContext';
import { BaseContentProvider } from './ui/diff/baseContentProvider';
import { ChangeDecorationProvider } from './ui/diff/changeDecorations';
import { HunkLensProvider } from './ui/diff/hunkLenses';
import { ReviewThreads } from './ui/diff/reviewThreads';
import { FinishNotifications } from './ui/notifications';
import { autoReview } from './ui/autoReview';
import { AgentOutputViews, type LogViewSource } from './ui/outputViews';
import { OverlapModel } from './ui/overlapModel';
import { PlanNotifications } from './ui/planNotifications';
import { AgentsStatusBar, type StatusBarView } from './ui/statusBar';
import { showTimeline } from './ui/timeline/timelineSources';
import { showRegistryProblems } from './ui/registryProblems';
import { showRegistryWriteWarnings } from './ui/registryWriteWarning';
import { showPoolUsage } from './ui/poolUsage';
import { WindowAgentCosts } from './ui/agentCosts';
import { procTable } from './node/procTable';
import { nodeFolderSizes } from './node/folderSizes';

/** Settings a pool entry is made with: a change refreshes (or, at size 0, empties) the pools. */
const poolSettings = [
  settings.worktreePool,
  settings.worktreeRoot,
  settings.setupCommand,
  settings.symlinkFolders,
  settings.initSubmodules,
];

/** What the public API and the extension's lifetime need from the trusted services. */
export interface Trusted {
  dispatch(options: DispatchArgs): Promise<string | undefined>;
  agents(): AgentRecord[];
  viewSnapshot(): ViewRow[];
  statusBar(): StatusBarView | undefined;
  /** Resumes restored agents and plan runs, then reconciles in the background (failures only logged). */
  resume(): void;
}

export interface TrustedShell {
  readonly logger: ChannelLogger;
  /** The Agents view's provider, created at activation; the real tree is attached here. */
  readonly view: LateTreeProvider<TreeNode | ReadOnlyRow>;
  /** The Agents view itself: its rows are revealed and selected through it. */
  readonly treeView: vscode.TreeView<TreeNode | ReadOnlyRow>;
  readonly agentsChanged: vscode.EventEmitter<AgentRecord[]>;
}

export function activateTrusted(context: vscode.ExtensionContext, shell: TrustedShell): Trusted {
  const { logger, view, treeView, agentsChanged } = shell;
  const config = new Config(logger);
  const services = createServices(context, config, logger);
  const { git, terminals, manager, landing, plans, reconciler, registryProblems, writeWarnings, resolver } = services;
  const overlaps = new OverlapModel(manager);
  const costs = new WindowAgentCosts(manager, procTable(), nodeFolderSizes, treeView);
  const tree = new AgentsTreeProvider(manager, overlaps, plans, reconciler, treeView, costs);
  const outputs = new AgentOutputViews(manager, logViewSource);
  const files = new NodeFileBytes();
  const review = new ReviewComments({ manager, files, clock: { now: () => Date.now() }, newId: () => randomUUID() });
  const reviewThreads = new ReviewThreads(manager, review);
  const reviewer = new AgentReviewer({
    ...services.reviewerRun,
    manager,
    comments: review,
    git,
    files,
    resolver,
    profiles: () => config.profiles(),
    logger,
  });
  const reviewSettings = { autoReview: () => config.autoReview(), reviewerProfile: () => config.reviewerProfile() };
  const accounts = new AccountDocuments(manager);
  const comparisons = new CompareDocuments(manager);
  const statusBar = new AgentsStatusBar(manager);
  const dispatchDeps = {
    manager,
    git,
    profiles: () => config.profiles(),
    defaultProfile: () => config.defaultProfile(),
    memento: context.globalState,
  };

  context.subscriptions.push(
    terminals,
    manager,
    plans,
    reconciler,
    overlaps,
    costs,
    tree,
    outputs,
    review,
    reviewThreads,
    reviewer,
    vscode.workspace.registerTextDocumentContentProvider(schemes.base, new BaseContentProvider(git)),
    accounts,
    vscode.workspace.registerTextDocumentContentProvider(schemes.account, accounts),
    comparisons,
    vscode.workspace.registerTextDocumentContentProvider(schemes.bestOf, comparisons),
    vscode.window.registerFileDecorationProvider(new ChangeDecorationProvider(overlaps)),
    statusBar,
    new FinishNotifications(manager, () => config.notifyOnFinish()),
    autoReview(manager, reviewer, reviewSettings, logger),
    new PlanNotifications(plans, manager),
    manager.onDidChangeAgent(() => agentsChanged.fire(manager.list())),
    trackAgentDiffContext(),
    new HunkLensProvider({ manager, git, files }),
    showRegistryWriteWarnings(writeWarnings, (line) => logger.warn(line)),
    planDiagnostics,
    showPoolUsage(services.pool, treeView),
    // A raised cap starts queued agents at once; a lowered one lets live agents finish.
    config.onDidChangeSetting(settings.maxConcurrentAgents, () => manager.continueQueue()),
    config.onDidChangeSetting(settings.providerLimits, () => manager.continueQueue()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (poolSettings.some((key) => e.affectsConfiguration(`${settings.section}.${key}`))) {
        void services.pool.refreshAll();
      }
    }),
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
        reconciler,
        pullRequests: {
          findGh: async () => (await resolver.resolve('gh'))?.file,
          createWithGh: ghCreatePullRequest,
        },
        files,
        review,
        reviewThreads,
        agentReview: { reviewer, profiles: () => config.profiles(), reviewerProfile: reviewSettings.reviewerProfile },
        freshness: git.freshness,
        logger,
        worktreeSizes: costs.sizes,
        revealAgent: (id) =>
          shell.treeView.reveal(tree.rowOf(manager.get(id)), { select: true, focus: false, expand: false }),
      }),
      logger,
    ),
  );
  view.attach(tree);

  return {
    dispatch: (options) => dispatchCommand(dispatchDeps, options),
    agents: () => manager.list(),
    viewSnapshot: () => tree.snapshot(),
    statusBar: () => statusBar.view(),
    resume: () => {
      manager.resume();
      plans.resume();
      review.resume();
      showRegistryProblems(registryProblems());
      void reconciler.run().catch(() => undefined);
      void services.repositories().then((roots) => services.pool.watch(roots));
    },
  };
}

/** Output views read logs from their tail and follow them (node/logTail.ts). */
const logViewSource: LogViewSource = {
  readTail: (logPath) => readLogTail(logPath),
  follow: (logPath, position, emit) => new LogFollower(logPath, position, emit),
};
