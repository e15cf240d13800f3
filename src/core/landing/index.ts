/**
 * Landing: what an agent changed (its change set), where agents overlap, the order to merge them in
 * from the conflict forecasts, and landing one agent (forecast, merge, squash or rebase, saved work
 * before a discard) with the promise that a refused landing leaves the workspace untouched; and an
 * agent asked to resolve its own conflicts in its worktree (ConflictRepair).
 */
export { AgentLanding, inProcessOnly, savedRefPrefix } from './agentLanding';
export type { MergeResult } from './agentLanding';
export { changeStats, sameChangeSet } from './changeSet';
export type { ChangeStats } from './changeSet';
export { ConflictRepair, mergeMessage, recordForecast, repairable, sendConflicts, settleRun } from './conflictRepair';
export type { RepairEnd, RepairGit, RepairManager, RepairStart, RepairTarget } from './conflictRepair';
export { conflictPrompt, conflictPromptBytes, markerExcerpt } from './conflictPrompt';
export type { ConflictedFile, ConflictPromptInput } from './conflictPrompt';
export { forecastRepo } from './conflictForecast';
export type { ForecastGit, RepoForecast } from './conflictForecast';
export { forecastPairs, liveBranchAgents, readForecasts, suggestMergeOrder } from './mergeOrder';
export type { ForecastConflict, MergeSuggestion } from './mergeOrder';
export { findOverlaps, repoRelativePath, sameOverlaps } from './overlaps';
export type { OverlapIndex } from './overlaps';
export {
  chooseRemote,
  choosePullRequestRoute,
  compareUrl,
  ghCreateArgs,
  pullRequestUrlOf,
  pushTarget,
  redact,
  webRepository,
} from './pullRequests';
export type { PullRequestRequest, PullRequestRoute, RouteInputs, WebRepository } from './pullRequests';
export { discardOtherCandidates, groupOf, pickCandidate } from './bestOfPick';
export type { PickResult } from './bestOfPick';
export { candidateHasFolder, candidatePairs, diffPartners } from './bestOfDiff';
export type { CandidatePair, CandidateSide } from './bestOfDiff';
