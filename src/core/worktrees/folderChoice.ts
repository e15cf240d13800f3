/**
 * Which workspace folder an agent works on: only git repositories qualify. The UI words the
 * outcome (in the user's language) and asks when there is a real choice.
 */
import { AgentError } from '../errors';
import type { RefGit } from '../git';

export interface WorkspaceFolderInfo {
  readonly name: string;
  /** Absolute file-system path. */
  readonly path: string;
}

export type FolderChoice =
  | { readonly kind: 'noFolder' }
  /** None of the folders is (inside) a git repository with a work tree. */
  | { readonly kind: 'noRepository'; readonly folders: readonly WorkspaceFolderInfo[] }
  /** The only repository among the folders: no need to ask. */
  | { readonly kind: 'chosen'; readonly folder: WorkspaceFolderInfo }
  /** Several repositories: the user picks one of these, in workspace order. */
  | { readonly kind: 'ask'; readonly folders: readonly WorkspaceFolderInfo[] };

/** Whether `folder` is inside a git repository with a work tree; other failures (git missing) are thrown. */
export async function isRepository(git: Pick<RefGit, 'repoRoot'>, folder: string): Promise<boolean> {
  try {
    await git.repoRoot(folder);
    return true;
  } catch (e) {
    if (AgentError.is(e, 'notGitRepository')) {
      return false;
    }
    throw e;
  }
}

/** Folders are checked at once; the order of the workspace is kept. */
export async function chooseFolder(
  git: Pick<RefGit, 'repoRoot'>,
  folders: readonly WorkspaceFolderInfo[],
): Promise<FolderChoice> {
  if (folders.length === 0) {
    return { kind: 'noFolder' };
  }
  const repositories = await Promise.all(folders.map((f) => isRepository(git, f.path)));
  const candidates = folders.filter((_, i) => repositories[i]);
  if (candidates.length === 0) {
    return { kind: 'noRepository', folders };
  }
  return candidates.length === 1 ? { kind: 'chosen', folder: candidates[0] } : { kind: 'ask', folders: candidates };
}
