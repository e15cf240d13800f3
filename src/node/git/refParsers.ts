/** Parsers for the ref listings refs.ts reads. */
import type { GitRefInfo } from '../../core/git';

const headsPrefix = 'refs/heads/';

/** for-each-ref lines: name NUL sha NUL parents (space-separated). */
export function parseRefs(output: string): GitRefInfo[] {
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [name, sha, parents = ''] = line.split('\0');
      const parent = parents.split(' ')[0];
      return parent ? { name, sha, parent } : { name, sha };
    });
}

/** `git for-each-ref --format=%(refname) refs/heads/`: the short names of the local branches. */
export function parseBranchNames(output: string): Set<string> {
  return new Set(
    output
      .split('\n')
      .filter((ref) => ref.startsWith(headsPrefix))
      .map((ref) => ref.slice(headsPrefix.length)),
  );
}

/** `git symbolic-ref --quiet HEAD`: the short branch name, or undefined when HEAD names no branch. */
export function parseSymbolicHead(output: string): string | undefined {
  const ref = output.trim();
  return ref.startsWith(headsPrefix) ? ref.slice(headsPrefix.length) : undefined;
}

/** Whether `sha` is a full object name (sha-1 or sha-256), not an abbreviation or a ref. */
export function isFullSha(sha: string): boolean {
  return /^([0-9a-f]{40}|[0-9a-f]{64})$/i.test(sha);
}

/**
 * `git rev-parse --show-toplevel --path-format=absolute --git-common-dir --git-path hooks/post-checkout
 * <rev> --symbolic-full-name --branches=<prefix> --`: three paths, the sha, the branches, then `--`.
 * Undefined without the three paths (not a repository); no sha when the rest is not one full sha
 * then branches (the rev named nothing, or more than one commit, like a range).
 */
export function parseLocation(
  output: string,
): { repoRoot: string; commonDir: string; hookPath: string; sha?: string; branches: Set<string> } | undefined {
  const lines = output.split('\n');
  if (lines.at(-1) === '') {
    lines.pop();
  }
  const [repoRoot, commonDir, hookPath, sha = '', ...refs] = lines;
  if (!repoRoot || !commonDir || !hookPath) {
    return undefined;
  }
  const names = refs.slice(0, -1);
  if (!isFullSha(sha) || refs.at(-1) !== '--' || !names.every((ref) => ref.startsWith(headsPrefix))) {
    return { repoRoot, commonDir, hookPath, branches: new Set() };
  }
  return { repoRoot, commonDir, hookPath, sha, branches: parseBranchNames(names.join('\n')) };
}
