import * as vscode from 'vscode';
import { views } from './constants';
import type { AgentRecord } from './core/agent';
import { AgentError } from './core/errors';
import { ChannelLogger } from './host/logger';
import { gitSpawnWorker } from './node/git/gitSpawnWorker';
import { activateTrusted, type Trusted } from './trustedActivation';
import type { TreeNode, ViewRow } from './ui/agentsView/agentsTreeProvider';
import { LateTreeProvider } from './ui/agentsView/lateTreeProvider';
import type { ReadOnlyRow } from './ui/agentsView/readOnlyModel';
import type { StatusBarView } from './ui/statusBar';
import { ReadOnlyTree } from './ui/agentsView/readOnlyTree';
import { WorkspaceRegistries } from './host/workspaceRegistries';
import { restrictedModeCommandTable } from './ui/commands/commandTable';
import { registerCommands } from './ui/commands/commandRunner';
import type { DispatchArgs } from './ui/commands/dispatchCommand';
import { apiError } from './ui/errorMessages';

/** The public API returned by activate(); plain data only. */
export interface ParallelAgentsApi {
  dispatch(options: DispatchArgs & { prompt: string }): Promise<string>;
  agents(): AgentRecord[];
  readonly onDidChangeAgents: vscode.Event<AgentRecord[]>;
  /** The Agents view's rows as rendered (label, description, children). */
  viewSnapshot(): ViewRow[];
  /** The labels of the rows selected in the Agents view (Next Agent to Review selects its agent's). */
  viewSelection(): Promise<string[]>;
  /** The hover of the Agents view's top-level row labelled `label`, resolved as VS Code resolves it on hover. */
  rowTooltip(label: string): Promise<string | undefined>;
  /** The status-bar item's text, tooltip and command; undefined while it is hidden. */
  statusBar(): StatusBarView | undefined;
  /** Milliseconds activate() took; reported by `npm run bench`. */
  readonly activationMs: number;
  /** Git processes the spawn worker started, and the times it stopped unasked; undefined when it is off. */
  gitSpawns(): { readonly served: number; readonly losses: number } | undefined;
}

/**
 * In an untrusted workspace (Restricted Mode, `untrustedWorkspaces.supported: "limited"`) only the
 * log, the Agents view and its welcome exist: no service is built, so no git process, agent or
 * setup command can start, and the commands that would run one are not registered; the view lists
 * the registry's records read-only (read from files, see showRegistryReadOnly). Granting trust
 * builds and registers the rest in the same window.
 */
export function activate(context: vscode.ExtensionContext): ParallelAgentsApi {
  const started = performance.now();
  const logger = new ChannelLogger();
  const view = new LateTreeProvider<TreeNode | ReadOnlyRow>();
  const agentsChanged = new vscode.EventEmitter<AgentRecord[]>();
  const treeView = vscode.window.createTreeView(views.agents, { treeDataProvider: view, showCollapseAll: true });
  context.subscriptions.push(
    logger,
    view,
    agentsChanged,
    treeView,
    ...registerCommands(restrictedModeCommandTable({ showLog: () => logger.show() }), logger),
  );
  let trusted: Trusted | undefined;
  let readOnly: { tree: ReadOnlyTree; registries: WorkspaceRegistries } | undefined;
  const start = (): Trusted => (trusted ??= activateTrusted(context, { logger, view, treeView, agentsChanged }));
  if (vscode.workspace.isTrusted) {
    const services = start();
    // Restored agents are re-scanned after activation so that startup stays fast.
    setTimeout(() => services.resume(), 0);
  } else {
    logger.info('[Trust] Restricted Mode: agents, git and plans are off until the workspace is trusted');
    readOnly = showRegistryReadOnly(view, logger);
    context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        logger.info('[Trust] the workspace is trusted: starting');
        // The trusted tree replaces the read-only one (view.attach) before it is disposed.
        start().resume();
        readOnly?.registries.dispose();
        readOnly?.tree.dispose();
        readOnly = undefined;
      }),
      { dispose: () => (readOnly?.registries.dispose(), readOnly?.tree.dispose()) },
    );
  }

  return {
    dispatch: (options) =>
      (trusted ? trusted.dispatch(options) : Promise.reject(new AgentError('untrustedDispatch', {}))).then(
        (id) => id as string,
        (e: unknown) => Promise.reject(apiError(e)),
      ),
    agents: () => trusted?.agents() ?? [],
    onDidChangeAgents: agentsChanged.event,
    viewSnapshot: () => trusted?.viewSnapshot() ?? readOnly?.tree.snapshot() ?? [],
    viewSelection: () => Promise.all(treeView.selection.map(async (row) => labelOf(await view.getTreeItem(row)))),
    rowTooltip: (label) => rowTooltip(view, label),
    statusBar: () => trusted?.statusBar(),
    activationMs: performance.now() - started,
    gitSpawns: () => {
      const worker = gitSpawnWorker();
      return worker && { served: worker.served, losses: worker.losses };
    },
  };
}

/**
 * Restricted Mode: the view lists what the repository's registry records, read from its files —
 * no git process, no write — and follows it while the window stays untrusted.
 */
function showRegistryReadOnly(
  view: LateTreeProvider<TreeNode | ReadOnlyRow>,
  logger: ChannelLogger,
): { tree: ReadOnlyTree; registries: WorkspaceRegistries } {
  const registries = new WorkspaceRegistries(logger);
  const tree = new ReadOnlyTree(registries.read());
  registries.onDidChange((contents) => tree.update(contents));
  registries.watch();
  view.attach(tree);
  return { tree, registries };
}

async function rowTooltip(view: LateTreeProvider<TreeNode | ReadOnlyRow>, label: string): Promise<string | undefined> {
  for (const row of (await view.getChildren()) ?? []) {
    const item = await view.getTreeItem(row);
    if (labelOf(item) === label) {
      const cancel = new vscode.CancellationTokenSource();
      const resolved = (await view.resolveTreeItem(item, row, cancel.token)) ?? item;
      cancel.dispose();
      return typeof resolved.tooltip === 'string' ? resolved.tooltip : resolved.tooltip?.value;
    }
  }
  return undefined;
}

function labelOf(item: vscode.TreeItem): string {
  return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

export function deactivate(): void {
  // The context's disposables end watchers and stop running agents (AgentManager.dispose).
}
