import * as vscode from 'vscode';
import type { DispatchStart } from '../../core/agents';
import type { RefGit, WorktreeGit } from '../../core/git';
import { cancelled } from './commandRunner';

export type BranchPickGit = Pick<RefGit, 'repoRoot' | 'listRefs'> & Pick<WorktreeGit, 'listWorktrees'>;

type StartItem = vscode.QuickPickItem & { readonly start?: DispatchStart; readonly askNumber?: true };

/**
 * Dispatch Agent on Branch, its first step: a local branch that no worktree has checked out (git
 * allows a branch in one worktree only), or a pull request by its number.
 */
export async function pickStart(git: BranchPickGit, folder: string): Promise<DispatchStart> {
  const repoRoot = await git.repoRoot(folder);
  const [refs, worktrees] = await Promise.all([git.listRefs(repoRoot, ['refs/heads/']), git.listWorktrees(repoRoot)]);
  const checkedOut = new Set(worktrees.map((w) => w.branch));
  const branches: StartItem[] = refs
    .filter((r) => !checkedOut.has(r.name))
    .map((r) => ({
      label: `$(git-branch) ${r.name.slice('refs/heads/'.length)}`,
      description: r.sha.slice(0, 8),
      start: { branch: r.name.slice('refs/heads/'.length) },
    }))
    .sort((a, b) => a.label.localeCompare(b.label));
  const pullRequest: StartItem = {
    label: `$(git-pull-request) ${vscode.l10n.t('Pull Request…')}`,
    description: vscode.l10n.t('its head, fetched from origin onto a new branch'),
    askNumber: true,
  };
  const separator: StartItem = {
    label: vscode.l10n.t('branches not checked out'),
    kind: vscode.QuickPickItemKind.Separator,
  };
  const picked = await vscode.window.showQuickPick<StartItem>(
    [pullRequest, ...(branches.length > 0 ? [separator, ...branches] : [])],
    {
      title: vscode.l10n.t('Dispatch Agent on Branch (1/4): branch'),
      placeHolder: vscode.l10n.t('Which branch should the agent work on? Its commits go onto that branch.'),
      matchOnDescription: true,
      ignoreFocusOut: true,
    },
  );
  if (!picked) {
    cancelled();
  }
  return picked.start ?? { pullRequest: await askPullRequest() };
}

async function askPullRequest(): Promise<number> {
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Dispatch Agent on Branch (1/4): pull request'),
    prompt: vscode.l10n.t('The number of the pull request: its head (refs/pull/<number>/head) is fetched from origin.'),
    placeHolder: vscode.l10n.t('e.g. 42'),
    ignoreFocusOut: true,
    validateInput: (v) =>
      pullRequestNumber(v) === undefined ? vscode.l10n.t('A whole number, such as 42.') : undefined,
  });
  return pullRequestNumber(value ?? cancelled()) ?? cancelled();
}

/** "42" or "#42"; undefined for anything else. */
function pullRequestNumber(text: string): number | undefined {
  const digits = /^\s*#?(\d{1,9})\s*$/.exec(text)?.[1];
  const number = digits === undefined ? undefined : Number(digits);
  return number !== undefined && number > 0 ? number : undefined;
}
