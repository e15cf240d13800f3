// Agent records for plain unit tests of core logic (overlaps, merge order): what a running agent's
// record holds, with the fields a test sets.
import type { AgentRecord, ChangedFile } from '../../src/core/agent';

export function agentRecord(id: string, extra: Partial<AgentRecord> = {}): AgentRecord {
  return {
    id,
    title: id,
    prompt: id,
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status: 'running',
    repoRoot: '/r/repo',
    cwd: `/r/repo.worktrees/${id}`,
    branch: `agents/${id}`,
    baseSha: 'b',
    createdAt: 0,
    changedFiles: [],
    ...extra,
  };
}

/** `paths` as modified text files of a change set. */
export function modified(paths: readonly string[]): ChangedFile[] {
  return paths.map((path) => ({ path, kind: 'modified', binary: false }));
}
