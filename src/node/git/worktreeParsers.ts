/** Parser for `git worktree list --porcelain -z` (git >= 2.36): attribute records, a blank one between worktrees. */
import type { WorktreeEntry } from '../../core/git';

function attribute(record: string): [string, string] {
  const space = record.indexOf(' ');
  return space < 0 ? [record, ''] : [record.slice(0, space), record.slice(space + 1)];
}

export function parseWorktreeList(output: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = [];
  let current: { -readonly [K in keyof WorktreeEntry]: WorktreeEntry[K] } | undefined;
  for (const record of output.split('\0')) {
    if (record === '') {
      if (current) {
        entries.push(current);
      }
      current = undefined;
      continue;
    }
    const [key, value] = attribute(record);
    if (key === 'worktree') {
      if (current) {
        entries.push(current);
      }
      current = { path: value, bare: false, detached: false };
    } else if (current) {
      switch (key) {
        case 'HEAD':
          current.head = value;
          break;
        case 'branch':
          current.branch = value;
          break;
        case 'bare':
          current.bare = true;
          break;
        case 'detached':
          current.detached = true;
          break;
        case 'locked':
          current.locked = value;
          break;
        case 'prunable':
          current.prunable = value;
          break;
      }
    }
  }
  if (current) {
    entries.push(current);
  }
  return entries;
}
