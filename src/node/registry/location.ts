/**
 * Where a repository's registry lives: `<git common dir>/parallel-agents/`, shared by the main
 * worktree and every linked worktree, so every window on any of them reads the same records.
 * Found from the files git keeps (`.git` folder, or a `.git` file naming the worktree's git dir
 * and its `commondir`), synchronously and without running git: activation reads the registry
 * before the first view is drawn.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const registryFolderName = 'parallel-agents';

/** The git common dir of the repository `folder` is in, or undefined when it is in none. */
export function gitCommonDirSync(folder: string): string | undefined {
  let dir = path.resolve(folder);
  for (;;) {
    const dotGit = path.join(dir, '.git');
    const stat = statOrUndefined(dotGit);
    if (stat?.isDirectory()) {
      return dotGit;
    }
    if (stat?.isFile()) {
      return commonDirOfWorktree(dotGit);
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      return undefined;
    }
    dir = parent;
  }
}

/** The registry folder of the repository `folder` is in; undefined outside a repository. */
export function registryDirSync(folder: string): string | undefined {
  const common = gitCommonDirSync(folder);
  return common === undefined ? undefined : path.join(common, registryFolderName);
}

/** A linked worktree's `.git` file says `gitdir: <its git dir>`; that dir's `commondir` names the shared one. */
function commonDirOfWorktree(dotGitFile: string): string | undefined {
  const text = readOrUndefined(dotGitFile);
  const match = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!match) {
    return undefined;
  }
  const gitDir = path.resolve(path.dirname(dotGitFile), match[1]);
  const common = readOrUndefined(path.join(gitDir, 'commondir'))?.trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

function readOrUndefined(p: string): string | undefined {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}
