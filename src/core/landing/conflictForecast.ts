/**
 * Forecast Conflicts for one repository: which agents conflict with the current branch, which pairs
 * of agents conflict with each other, and the merge order that follows (suggestMergeOrder).
 *
 * Agents are merged one after another into the current branch, so a pair (A, B) conflicts when A's
 * work and B's work, each merged into the current branch, conflict: a three-way merge of
 * current+A and current+B. A merge-tree of the two branch tips is that merge only when both started
 * from the same point. When A is stale (started before the branch moved on) and B fresh, the tips'
 * merge base is A's old start, B's side carries every change the branch made since, and A's own
 * conflict with the branch comes out as an A↔B conflict, on files B never touched, for every fresh B.
 * So LandingGit.forecastAgents forecasts each pair between the two agents merged into the current
 * branch (merge commits with parents current and agent, so history they share still counts), and
 * each agent against the current branch (the merge the user would make). To keep the usual case at
 * one merge-tree batch, it asks the tips first and merges into the branch only the agents of pairs
 * whose tips conflict: for agents that started from the current branch both merges are the same.
 * An agent that conflicts with the branch merges with git's conflict markers in place: a pair with
 * it is still reported when the other agent changed the lines in conflict, since resolving one
 * means resolving it against the other too; a pair whose tips merge cleanly stays clean.
 */
import type { AgentRecord } from '../agent';
import type { LandingGit } from '../git';
import {
  forecastPairs,
  readForecasts,
  suggestMergeOrder,
  type ForecastConflict,
  type MergeSuggestion,
} from './mergeOrder';

/** One repository's forecast: plain data, returned to tests and the API. */
export interface RepoForecast {
  readonly repoRoot: string;
  /** undefined: HEAD was detached, and the agents were forecast against HEAD. */
  readonly currentBranch?: string;
  /** The agents forecast, in creation order. */
  readonly agentIds: readonly string[];
  /** Pair conflicts first (in the order of forecastPairs), then conflicts with the current branch. */
  readonly conflicts: readonly ForecastConflict[];
  readonly suggestion: MergeSuggestion;
}

export type ForecastGit = Pick<LandingGit, 'forecastAgents'>;

/** `agents` have branches (liveBranchAgents); `currentBranch` undefined forecasts against HEAD. */
export async function forecastRepo(
  git: ForecastGit,
  repoRoot: string,
  agents: readonly AgentRecord[],
  currentBranch?: string,
): Promise<RepoForecast> {
  const current = currentBranch ?? 'HEAD';
  const answer = await git.forecastAgents(
    repoRoot,
    current,
    agents.map((a) => a.branch as string),
  );
  // forecastPairs lists the pairs in forecastAgents' order, then each agent against the branch.
  const conflicts = readForecasts(forecastPairs(agents, current), [...answer.pairs, ...answer.landing]);
  // Stryker disable next-line ConditionalExpression,ArrayDeclaration: equivalent, suggestMergeOrder ignores unknown ids
  const pairConflicts = conflicts.flatMap((c) => (c.otherId === undefined ? [] : [[c.agentId, c.otherId] as const]));
  // Stryker disable next-line ArrayDeclaration: equivalent, suggestMergeOrder ignores an id it was not given
  const branchConflicts = conflicts.flatMap((c) => (c.otherId === undefined ? [c.agentId] : []));
  const agentIds = agents.map((a) => a.id);
  return {
    repoRoot,
    currentBranch,
    agentIds,
    conflicts,
    suggestion: suggestMergeOrder(agentIds, pairConflicts, branchConflicts),
  };
}
