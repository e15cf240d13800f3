import * as vscode from 'vscode';
import type { Isolation } from '../../core/agent';
import type { AgentManager, DispatchOptions, DispatchStart } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { titleFromPrompt } from '../../core/naming';
import type { Profile } from '../../core/clis';
import { stateKeys } from '../../constants';
import { checkedRepositoryFolder, pickRepositoryFolder } from './folderPick';
import { cancelled } from './commandRunner';
import { type BranchPickGit, pickStart } from './branchPick';
import { dispatchOfferingUnsandboxed } from './sandboxOffer';

export interface DispatchArgs {
  readonly prompt?: string;
  readonly profile?: string;
  readonly isolation?: Isolation;
  readonly title?: string;
  readonly folder?: string;
  /** An existing local branch to work on (Dispatch Agent on Branch); worktree isolation only. */
  readonly branch?: string;
  /** A pull request to work on: its head is fetched from `remote` (default origin) onto a new branch. */
  readonly pullRequest?: number;
  readonly remote?: string;
  /** Stacked: the id of the agent whose worktree, as it is, the new agent starts from (Dispatch Stacked Agent). */
  readonly stackOn?: string;
  /** A sandboxed profile's agent run unsandboxed, with its prompts (this one agent only). */
  readonly unsandboxed?: boolean;
}

export interface DispatchDeps {
  readonly manager: AgentManager;
  readonly profiles: () => readonly Profile[];
  readonly defaultProfile: () => string;
  readonly memento: vscode.Memento;
  /** Tells which folders are git repositories, and which branches Dispatch Agent on Branch offers. */
  readonly git: BranchPickGit;
}

/**
 * Asks for whatever the arguments leave open, then dispatches with a progress notification.
 * `onBranch` (Dispatch Agent on Branch): a branch or pull request is asked first, instead of the isolation.
 */
export async function dispatchCommand(
  deps: DispatchDeps,
  args: DispatchArgs = {},
  onBranch = false,
): Promise<string | undefined> {
  if (!vscode.workspace.isTrusted) {
    throw new AgentError('untrustedDispatch', {});
  }
  const interactive = args.prompt === undefined;
  const parent = args.stackOn !== undefined ? deps.manager.get(args.stackOn) : undefined;
  const folder = parent
    ? parent.repoRoot
    : args.folder !== undefined
      ? await checkedRepositoryFolder(deps.git, args.folder)
      : await pickRepositoryFolder(deps.git, {
          title: onBranch
            ? vscode.l10n.t('Dispatch Agent on Branch: repository')
            : vscode.l10n.t('Dispatch Agent: repository'),
          noFolder: 'noFolderToDispatch',
        });
  const start = startOf(args) ?? (onBranch ? await pickStart(deps.git, folder) : undefined);
  const steps = stepTitles(onBranch, parent?.title);
  const prompt = args.prompt ?? (await askPrompt(steps.task));
  const profile = args.profile ?? (interactive ? await pickProfile(deps, steps.agent) : deps.defaultProfile());
  // An existing branch or a pull request has a worktree of its own: no isolation to choose.
  const isolation = args.isolation ?? (interactive && !start && !parent ? await pickIsolation() : 'worktree');
  const title = args.title ?? (interactive ? await askTitle(prompt, steps.title) : undefined);
  await rememberProfile(deps.memento, profile);
  const options: DispatchOptions = {
    ...{ prompt, profile, isolation, title, folder, start, stackOn: args.stackOn },
    ...(args.unsandboxed ? { unsandboxed: true } : {}),
  };
  const record = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Dispatching agent "{0}"…', title || titleFromPrompt(prompt)),
    },
    () => dispatchOfferingUnsandboxed(deps.manager, options, interactive),
  );
  if (record.status === 'queued') {
    void vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Agent "{0}" is queued (position {1}): {2} agents of this repository are running (parallelAgents.maxConcurrentAgents). It starts when one ends.',
        record.title,
        deps.manager.queuePosition(record.id) ?? '?',
        record.queuedAtCap ?? '?',
      ),
    );
  }
  return record.id;
}

function startOf(args: DispatchArgs): DispatchStart | undefined {
  if (args.branch !== undefined) {
    return { branch: args.branch };
  }
  return args.pullRequest !== undefined ? { pullRequest: args.pullRequest, remote: args.remote } : undefined;
}

/**
 * The titles of the task, agent and title steps: Dispatch Agent on Branch has its branch as step 1;
 * Dispatch Stacked Agent (on `parent`) has no isolation step.
 */
function stepTitles(
  onBranch: boolean,
  parent?: string,
): { readonly task: string; readonly agent: string; readonly title: string } {
  if (parent !== undefined) {
    return {
      task: vscode.l10n.t('Dispatch Stacked Agent on "{0}" (1/3): task', parent),
      agent: vscode.l10n.t('Dispatch Stacked Agent on "{0}" (2/3): agent', parent),
      title: vscode.l10n.t('Dispatch Stacked Agent on "{0}" (3/3): title', parent),
    };
  }
  return onBranch
    ? {
        task: vscode.l10n.t('Dispatch Agent on Branch (2/4): task'),
        agent: vscode.l10n.t('Dispatch Agent on Branch (3/4): agent'),
        title: vscode.l10n.t('Dispatch Agent on Branch (4/4): title'),
      }
    : {
        task: vscode.l10n.t('Dispatch Agent (1/4): task'),
        agent: vscode.l10n.t('Dispatch Agent (2/4): agent'),
        title: vscode.l10n.t('Dispatch Agent (4/4): title'),
      };
}

export async function askPrompt(stepTitle: string): Promise<string> {
  const editor = vscode.window.activeTextEditor;
  const selection = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
  // The input box is one line: a longer task is written in any editor and dispatched as a selection.
  if (selection && /\r?\n/.test(selection.trim())) {
    const lines = selection.trim().split(/\r?\n/).length;
    const use = {
      label: `$(selection) ${vscode.l10n.t('Use the selected text ({0} lines)', lines)}`,
      detail: selection.trim().split(/\r?\n/)[0],
    };
    const type = { label: `$(edit) ${vscode.l10n.t('Type a new task')}` };
    const picked = await vscode.window.showQuickPick([use, type], {
      title: stepTitle,
      ignoreFocusOut: true,
    });
    if (picked === use) {
      return selection;
    }
    if (!picked) {
      cancelled();
    }
  }
  const value = await vscode.window.showInputBox({
    title: stepTitle,
    prompt: selection
      ? vscode.l10n.t('The selected text is offered as the task; edit it or press Enter.')
      : vscode.l10n.t('What should the agent do? For a task of several lines, select it in an editor first.'),
    placeHolder: vscode.l10n.t('e.g. Add input validation to the signup form'),
    value: selection && !/\r?\n/.test(selection.trim()) ? selection : undefined,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Describe the task.') : undefined),
  });
  return value ?? cancelled();
}

export async function pickProfile(deps: DispatchDeps, stepTitle: string): Promise<string> {
  const recent = deps.memento.get<string[]>(stateKeys.lastProfiles, []);
  const rank = (p: Profile) => {
    const i = recent.indexOf(p.name);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  const items = [...deps.profiles()]
    .sort((a, b) => rank(a) - rank(b))
    .map((p) => ({
      label: p.name,
      description: `${p.mode}${p.description ? ` · ${p.description}` : ''}`,
      detail: [p.command, ...p.args].join(' ').replace(/\s*\n\s*/g, ' ⏎ '),
    }));
  const picked = await vscode.window.showQuickPick(items, {
    title: stepTitle,
    placeHolder: vscode.l10n.t('Which agent should do it?'),
    ignoreFocusOut: true,
  });
  return picked?.label ?? cancelled();
}

async function pickIsolation(): Promise<Isolation> {
  const items: (vscode.QuickPickItem & { value: Isolation })[] = [
    {
      label: `$(git-branch) ${vscode.l10n.t('Worktree')}`,
      description: vscode.l10n.t('own branch and folder (default)'),
      value: 'worktree',
    },
    {
      label: `$(terminal) ${vscode.l10n.t('Workspace terminal')}`,
      description: vscode.l10n.t('in a terminal, editing this workspace'),
      value: 'terminal',
    },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Dispatch Agent (3/4): isolation'),
    ignoreFocusOut: true,
  });
  return picked?.value ?? cancelled();
}

export async function askTitle(prompt: string, stepTitle: string): Promise<string> {
  const value = await vscode.window.showInputBox({
    title: stepTitle,
    prompt: vscode.l10n.t('A short title for the Agents view (optional)'),
    value: titleFromPrompt(prompt),
    ignoreFocusOut: true,
  });
  return value ?? cancelled();
}

export async function rememberProfile(memento: vscode.Memento, profile: string): Promise<void> {
  const recent = memento.get<string[]>(stateKeys.lastProfiles, []).filter((p) => p !== profile);
  await memento.update(stateKeys.lastProfiles, [profile, ...recent].slice(0, 10));
}
