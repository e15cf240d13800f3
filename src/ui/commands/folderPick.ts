import * as vscode from 'vscode';
import { AgentError } from '../../core/errors';
import { chooseFolder, isRepository, type WorkspaceFolderInfo } from '../../core/worktrees';
import type { RefGit } from '../../core/git';
import { cancelled } from './commandRunner';

type RepoRoot = Pick<RefGit, 'repoRoot'>;

function notRepository(folder: string): AgentError {
  return new AgentError('folderNotARepository', { folder });
}

/** A folder named by the caller (a command argument): refused unless it is a git repository. */
export async function checkedRepositoryFolder(git: RepoRoot, folder: string): Promise<string> {
  if (!(await isRepository(git, folder))) {
    throw notRepository(folder);
  }
  return folder;
}

/**
 * The only repository among the workspace folders silently; a pick among several; a refusal naming
 * the folders when none is.
 */
export async function pickRepositoryFolder(
  git: RepoRoot,
  words: { readonly title: string; readonly noFolder: 'noFolderToDispatch' | 'noFolderForPlan' },
): Promise<string> {
  const folders: WorkspaceFolderInfo[] = (vscode.workspace.workspaceFolders ?? []).map((f) => ({
    name: f.name,
    path: f.uri.fsPath,
  }));
  const choice = await chooseFolder(git, folders);
  switch (choice.kind) {
    case 'noFolder':
      throw new AgentError(words.noFolder, {});
    case 'noRepository':
      throw choice.folders.length === 1
        ? notRepository(choice.folders[0].path)
        : new AgentError('noFolderIsARepository', { folders: choice.folders.map((f) => f.name) });
    case 'chosen':
      return choice.folder.path;
    case 'ask': {
      const items = choice.folders.map((f) => ({ label: `$(repo) ${f.name}`, description: f.path, path: f.path }));
      const picked = await vscode.window.showQuickPick(items, {
        title: words.title,
        placeHolder: vscode.l10n.t('Which folder should the agent work on?'),
        ignoreFocusOut: true,
      });
      if (!picked) {
        cancelled();
      }
      return picked.path;
    }
  }
}
