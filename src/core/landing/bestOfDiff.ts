/**
 * Diff Two Candidates, for a Best of N (core/agents/bestOf.ts): which candidates one can be diffed
 * against, and each side's version of every file either candidate changed.
 */
import type { AgentRecord } from '../agent';
import type { AgentManager } from '../agents';
import { joinPath } from '../../util/paths';
import { groupOf } from './bestOfPick';
import { repoRelativePath } from './overlaps';

/** A candidate can be diffed while its folder is on disk (not discarded, not removed after a merge). */
export const candidateHasFolder = (r: AgentRecord): boolean =>
  r.worktreePresent !== false && r.worktreePath !== undefined;

/** The other candidates of `id`'s group that it can be diffed against, in the group's order. */
export function diffPartners(manager: Pick<AgentManager, 'get' | 'list'>, id: string): AgentRecord[] {
  return groupOf(manager, id).filter((r) => r.id !== id && candidateHasFolder(r));
}

/**
 * A candidate's version of a file: the file in its folder when it changed it; else the file at its
 * base commit (`path` is where it is there; none for a file it deleted: the empty side).
 */
export type CandidateSide =
  | { readonly kind: 'folder'; readonly file: string }
  | {
      readonly kind: 'base';
      readonly file: string;
      readonly query: { repo: string; sha: string; agent: string; file: string; path?: string };
    };

export interface CandidatePair {
  /** Relative to the candidates' folders. */
  readonly path: string;
  readonly a: CandidateSide;
  readonly b: CandidateSide;
}

/** Every file `a` or `b` changed, by path, with each candidate's version of it. */
export function candidatePairs(a: AgentRecord, b: AgentRecord): CandidatePair[] {
  const paths = [...new Set([...a.changedFiles, ...b.changedFiles].map((f) => f.path))].sort();
  return paths.map((path) => ({ path, a: sideOf(a, path), b: sideOf(b, path) }));
}

function sideOf(record: AgentRecord, path: string): CandidateSide {
  const file = joinPath(record.cwd, path);
  const change = record.changedFiles.find((f) => f.path === path);
  if (change && change.kind !== 'deleted') {
    return { kind: 'folder', file };
  }
  const at = change ? undefined : repoRelativePath(record, path);
  return {
    kind: 'base',
    file,
    query: { repo: record.repoRoot, sha: record.baseSha, agent: record.id, file: path, path: at },
  };
}
