/** Parsers for the git output landing reads: merge-tree forecasts, commit checks, conflict markers. */
import { AgentError } from '../../core/errors';
import type { MergeForecast } from '../../core/git';

/** A forecast plus the tree the merge would produce (the conflicted tree when not clean). */
export interface TreeForecast extends MergeForecast {
  readonly tree?: string;
}

function unique(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/**
 * `git merge-tree --write-tree --name-only -z --no-messages A B`: `tree\0path\0path\0`.
 * Exit code 1 means conflicts, 0 a clean merge.
 */
export function parseMergeTree(output: string, exitCode: number): TreeForecast {
  const [tree, ...rest] = output.split('\0');
  const conflicts = unique(rest.filter((p) => p !== ''));
  return { clean: exitCode === 0, conflicts: exitCode === 0 ? [] : conflicts, tree: tree.trim() || undefined };
}

/**
 * `git merge-tree --stdin --write-tree --name-only -z --no-messages`: per merge
 * `status\0tree\0path\0...\0\0`, status 1 = clean, 0 = conflicts. Throws on a malformed answer.
 */
export function parseMergeTreeBatch(output: string, count: number): TreeForecast[] {
  const parts = output.split('\0');
  const forecasts: TreeForecast[] = [];
  let i = 0;
  while (forecasts.length < count) {
    const status = parts[i++];
    const tree = parts[i++];
    if ((status !== '0' && status !== '1') || !tree) {
      throw new AgentError('mergeTreeOutputUnexpected', { merge: forecasts.length + 1, count });
    }
    const paths: string[] = [];
    while (i < parts.length && parts[i] !== '') {
      paths.push(parts[i++]);
    }
    if (i >= parts.length) {
      throw new AgentError('mergeTreeOutputTruncated', { merge: forecasts.length + 1, count });
    }
    i++;
    forecasts.push({ clean: status === '1', conflicts: status === '1' ? [] : unique(paths), tree });
  }
  return forecasts;
}

/**
 * `git cat-file --batch-check` fed one `name^{commit}` a line: `sha commit size` or
 * `name^{commit} missing`. Returns the sha of each name, undefined for names that are no commit.
 */
export function parseCommitCheck(output: string, names: readonly string[]): (string | undefined)[] {
  const lines = output.split('\n');
  return names.map((_, index) => {
    const match = /^([0-9a-f]{40,64}) commit \d+$/.exec(lines[index] ?? '');
    return match ? match[1] : undefined;
  });
}

/** Whether text still holds a conflict marker line that git writes (`<<<<<<< ` or `>>>>>>> `). */
export function hasConflictMarkers(text: string): boolean {
  return /^(<{7}|>{7})( |$)/m.test(text);
}
