/**
 * Create Pull Request: pushes an agent's branch to the repository's remote, then opens a pull
 * request through the GitHub Pull Requests extension, else `gh pr create`, else the host's compare
 * page (its link copied), else says where the branch was pushed.
 */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import type { ChangeGit, GitRemote, RefGit, RemoteGit } from '../../core/git';
import {
  choosePullRequestRoute,
  pushTarget,
  redact,
  type PullRequestRequest,
  type PullRequestRoute,
} from '../../core/landing';
import { pickAgentId } from './agentPick';
import { cancelled } from './commandRunner';

/** The GitHub Pull Requests extension, and its command that opens its create view. */
export const prExtensionId = 'GitHub.vscode-pull-request-github';
export const prCreateCommand = 'pr.create';

export interface PullRequestDeps {
  readonly manager: AgentManager;
  readonly git: Pick<RemoteGit, 'remotes' | 'upstreamRemote' | 'push'> &
    Pick<RefGit, 'currentBranch' | 'listRefs'> &
    Pick<ChangeGit, 'dirtyFiles'>;
  /** Path of `gh` on PATH, when there is one. */
  readonly findGh: () => Promise<string | undefined>;
  /** Runs `gh pr create`; resolves with the new pull request's URL. */
  readonly createWithGh: (
    gh: string,
    cwd: string,
    request: PullRequestRequest,
    signal?: AbortSignal,
  ) => Promise<string | undefined>;
}

interface PullRequestArgs {
  /** false: no dialogs; uncommitted work is refused instead of offered a commit. */
  readonly confirm?: boolean;
}

export interface PullRequestResult {
  readonly remote: string;
  readonly route: PullRequestRoute['kind'];
  /** The pull request's page (gh) or the compare page (copied). */
  readonly url?: string;
}

/** Finished agents with a branch that is not merged or discarded. */
function pushable(r: AgentRecord): unknown {
  return r.branch && !['queued', 'preparing', 'running', 'merged', 'discarded'].includes(r.status);
}

export function pullRequestCommand(deps: PullRequestDeps) {
  const { manager, git } = deps;

  return async (arg?: unknown): Promise<PullRequestResult> => {
    const id = await pickAgentId(manager, arg, {
      filter: pushable,
      describe: (r) => r.branch,
      none: 'noAgentApplies',
    });
    const interactive = ((arg && typeof arg === 'object' ? arg : {}) as PullRequestArgs).confirm !== false;
    const record = manager.get(id);
    if (!record.branch) {
      throw new AgentError('noWorktreeBranch', { title: record.title });
    }
    const branch = record.branch;
    await commitFirst(record, interactive);
    const remote = await pushTarget(git, record.repoRoot, branch);
    await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Pushing {0} to {1}…', branch, remote.name),
        cancellable: true,
      },
      (_progress, token) => withSignal(token, (signal) => git.push(record.repoRoot, remote.name, branch, signal)),
    );
    const base = await remoteBase(record.repoRoot, remote.name);
    const route = choosePullRequestRoute({
      remoteUrl: remote.url,
      branch,
      base,
      prExtension: await hasPrExtension(),
      gh: await deps.findGh(),
    });
    const url = await follow(route, record, remote, base);
    return { remote: remote.name, route: route.kind, url };
  };

  /** Uncommitted work would be left out of the pull request: the Commit flow first, or a refusal. */
  async function commitFirst(record: AgentRecord, interactive: boolean): Promise<void> {
    const dirty = () => (record.worktreePresent === false ? Promise.resolve([]) : git.dirtyFiles(record.cwd));
    const files = await dirty();
    if (files.length === 0) {
      return;
    }
    const refuse = (count: number) => new AgentError('pushUncommitted', { title: record.title, count });
    if (!interactive) {
      throw refuse(files.length);
    }
    const commit = vscode.l10n.t('Commit Agent Work');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Agent "{0}" has {1} uncommitted files; a pull request holds only commits. Commit them to its branch first?',
        record.title,
        files.length,
      ),
      { modal: true },
      commit,
    );
    if (choice !== commit) {
      cancelled();
    }
    await vscode.commands.executeCommand(commands.commit, { id: record.id });
    const left = await dirty();
    if (left.length > 0) {
      throw refuse(left.length);
    }
  }

  /** The workspace's branch as the pull request's base, when the remote has it; else the host's default. */
  async function remoteBase(repoRoot: string, remote: string): Promise<string | undefined> {
    const current = await git.currentBranch(repoRoot);
    if (!current) {
      return undefined;
    }
    const refs = await git.listRefs(repoRoot, [`refs/remotes/${remote}/${current}`]);
    return refs.length > 0 ? current : undefined;
  }

  async function follow(
    route: PullRequestRoute,
    record: AgentRecord,
    remote: GitRemote,
    base: string | undefined,
  ): Promise<string | undefined> {
    const branch = record.branch ?? '';
    switch (route.kind) {
      case 'extension':
        try {
          await vscode.commands.executeCommand(prCreateCommand, { repoPath: record.repoRoot, compareBranch: branch });
        } catch (e) {
          const detail = redact(e instanceof Error ? e.message : String(e));
          throw new AgentError('pullRequestFailed', { branch, tool: 'GitHub Pull Requests' }, detail);
        }
        return undefined;
      case 'gh': {
        const request = { head: branch, base, title: record.title, body: record.prompt };
        const url = await vscode.window.withProgress(
          {
            location: vscode.ProgressLocation.Notification,
            title: vscode.l10n.t('Creating the pull request with gh…'),
          },
          () => deps.createWithGh(route.gh, record.repoRoot, request),
        );
        const text = url
          ? vscode.l10n.t('Opened pull request {0} for {1}.', url, branch)
          : vscode.l10n.t('gh created the pull request for {0}.', branch);
        offerOpen(text, url);
        return url;
      }
      case 'compareUrl':
        await vscode.env.clipboard.writeText(route.url);
        offerOpen(
          vscode.l10n.t(
            'Pushed {0} to {1}. Neither the GitHub Pull Requests extension nor gh is available: the link to open the pull request is copied: {2}',
            branch,
            remote.name,
            route.url,
          ),
          route.url,
        );
        return route.url;
      case 'pushedOnly':
        void vscode.window.showInformationMessage(
          vscode.l10n.t(
            'Pushed {0} to {1} ({2}). Its host has no pull request page known here: open one there.',
            branch,
            remote.name,
            redact(remote.url),
          ),
        );
        return undefined;
    }
  }
}

function offerOpen(text: string, url: string | undefined): void {
  const open = vscode.l10n.t('Open');
  void vscode.window.showInformationMessage(text, ...(url ? [open] : [])).then((choice) => {
    if (choice === open && url) {
      void vscode.env.openExternal(vscode.Uri.parse(url));
    }
  });
}

/** Whether the GitHub Pull Requests extension is installed and its create command can run. */
async function hasPrExtension(): Promise<boolean> {
  const extension = vscode.extensions.getExtension(prExtensionId);
  if (!extension) {
    return false;
  }
  try {
    await extension.activate();
  } catch {
    return false;
  }
  return (await vscode.commands.getCommands(true)).includes(prCreateCommand);
}

async function withSignal<T>(token: vscode.CancellationToken, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const listener = token.onCancellationRequested(() => controller.abort());
  try {
    return await task(controller.signal);
  } finally {
    listener.dispose();
  }
}
