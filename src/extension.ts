import * as vscode from 'vscode';
import { views } from './constants';
import type { AgentRecord } from './core/agent';
import { AgentError } from './core/errors';
import { ChannelLogger } from './host/logger';
import { activateTrusted, type Trusted } from './trustedActivation';
import type { TreeNode, ViewRow } from './ui/agentsView/agentsTreeProvider';
import { LateTreeProvider } from './ui/agentsView/lateTreeProvider';
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
  /** Milliseconds activate() took; reported by `npm run bench`. */
  readonly activationMs: number;
}

/**
 * In an untrusted workspace (Restricted Mode, `untrustedWorkspaces.supported: "limited"`) only the
 * log, the Agents view and its welcome exist: no service is built, so no git process, agent or
 * setup command can start, and the commands that would run one are not registered. Granting trust
 * builds and registers the rest in the same window.
 */
export function activate(context: vscode.ExtensionContext): ParallelAgentsApi {
  const started = performance.now();
  const logger = new ChannelLogger();
  const view = new LateTreeProvider<TreeNode>();
  const agentsChanged = new vscode.EventEmitter<AgentRecord[]>();
  context.subscriptions.push(
    logger,
    view,
    agentsChanged,
    vscode.window.createTreeView(views.agents, { treeDataProvider: view, showCollapseAll: true }),
    ...registerCommands(restrictedModeCommandTable({ showLog: () => logger.show() }), logger),
  );
  let trusted: Trusted | undefined;
  const start = (): Trusted => (trusted ??= activateTrusted(context, { logger, view, agentsChanged }));
  if (vscode.workspace.isTrusted) {
    const services = start();
    // Restored agents are re-scanned after activation so that startup stays fast.
    setTimeout(() => services.resume(), 0);
  } else {
    logger.info('[Trust] Restricted Mode: agents, git and plans are off until the workspace is trusted');
    context.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        logger.info('[Trust] the workspace is trusted: starting');
        start().resume();
      }),
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
    viewSnapshot: () => trusted?.viewSnapshot() ?? [],
    activationMs: performance.now() - started,
  };
}

export function deactivate(): void {
  // The context's disposables end watchers and stop running agents (AgentManager.dispose).
}
