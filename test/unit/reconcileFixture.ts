// Records, worktree entries and refs for the pure reconcile() tests, on a made-up repository.
import type { AgentRecord } from '../../src/core/agent';
import type { GitRefInfo } from '../../src/core/git';
import type { ReconcileInput } from '../../src/core/reconcile/reconcile';
import type { WorktreeEntry } from '../../src/core/git';

export const repoRoot = '/home/u/repo';
export const root = '/home/u/repo.worktrees';
export const sha = (c: string) => c.repeat(40);

export function record(id: string, slug: string, patch: Partial<AgentRecord> = {}): AgentRecord {
  return {
    id,
    title: slug,
    prompt: slug,
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status: 'succeeded',
    repoRoot,
    cwd: `${root}/${slug}`,
    worktreePath: `${root}/${slug}`,
    branch: `agents/${slug}`,
    baseSha: sha('a'),
    createdAt: 1,
    changedFiles: [],
    ...patch,
  };
}

export function wt(path: string, branch?: string, extra: Partial<WorktreeEntry> = {}): WorktreeEntry {
  return { path, branch: branch && `refs/heads/${branch}`, head: sha('b'), bare: false, detached: !branch, ...extra };
}

export const heads = (...names: string[]): GitRefInfo[] =>
  names.map((n) => ({ name: `refs/heads/${n}`, sha: sha('b') }));

export function input(patch: Partial<ReconcileInput>): ReconcileInput {
  const records = patch.records ?? [];
  return {
    repoRoot,
    worktreeRoot: root,
    branchPrefix: 'agents',
    records,
    worktrees: [wt(repoRoot, 'main')],
    refs: heads('main'),
    existingFolders: new Set(records.flatMap((r) => (r.worktreePath ? [r.worktreePath] : []))),
    ...patch,
  };
}
