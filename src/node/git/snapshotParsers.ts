/** Parsers for the listings of saved work snapshots.ts reads. */
import type { SavedWork } from '../../core/git';

/** `git for-each-ref --format=%(refname)%00%(objectname)%00%(committerdate:unix)`, one ref a line. */
export function parseSavedWork(output: string): SavedWork[] {
  const saved: SavedWork[] = [];
  for (const line of output.split('\n')) {
    const [ref, sha, seconds] = line.split('\0');
    if (ref && sha) {
      saved.push({ ref, sha, date: (Number.parseInt(seconds ?? '', 10) || 0) * 1000 });
    }
  }
  return saved;
}

/** `git log -1 --format=%ct`: the commit time in ms since the epoch. */
export function parseCommitTime(output: string): number {
  return Number.parseInt(output.trim(), 10) * 1000;
}

/**
 * `git ls-files -v -z`: the paths whose entry hides changes from `git add`: assume-unchanged
 * (a lower-case tag) and skip-worktree (tag S or s).
 */
export function parseHiddenEntries(output: string): { assumed: string[]; skipped: string[] } {
  const assumed: string[] = [];
  const skipped: string[] = [];
  for (const record of output.split('\0')) {
    const tag = record[0];
    if (record.length < 3 || record[1] !== ' ' || tag === undefined) {
      continue;
    }
    const file = record.slice(2);
    if (tag !== tag.toUpperCase()) {
      assumed.push(file);
    }
    if (tag === 'S' || tag === 's') {
      skipped.push(file);
    }
  }
  return { assumed, skipped };
}
