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
