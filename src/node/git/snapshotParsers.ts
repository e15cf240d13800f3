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
