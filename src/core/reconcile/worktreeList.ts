/** Parser for `git worktree list --porcelain -z` (git >= 2.36): attribute records, a blank one between worktrees. */

export interface WorktreeEntry {
  readonly path: string;
  /** Full sha of the worktree's HEAD; absent for a bare repository or an unborn branch. */
  readonly head?: string;
  /** Full ref name, e.g. "refs/heads/agents/fix-bug"; absent when detached. */
  readonly branch?: string;
  readonly bare: boolean;
  readonly detached: boolean;
  /** Set (possibly to '') when locked; the reason git gives, e.g. "initializing". */
  readonly locked?: string;
  /** Set (possibly to '') when git would prune it, e.g. because its folder is gone. */
  readonly prunable?: string;
}

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
