/**
 * Every failure the user may meet is an AgentError carrying a code and the data of that code;
 * its text is made in one place, src/ui/errorMessages.ts (via the table in src/ui/errorText.ts).
 * `message` is a technical line for the log, never shown as the user's message.
 */
import type { AgentErrorCode, AgentErrorData, AgentErrorReason } from './errorCodes';

export type { AgentErrorCode, AgentErrorData, AgentErrorReason } from './errorCodes';

const reasons: { readonly [C in AgentErrorCode]: AgentErrorReason } = {
  gitNotFound: 'gitNotFound',
  gitDiskFull: 'diskFull',
  bareRepository: 'notGitRepository',
  notARepository: 'notGitRepository',
  gitCommandFailed: 'gitFailed',
  worktreeCommandFailed: 'worktreeFailed',
  worktreeDiskFull: 'diskFull',
  noCommits: 'noCommits',
  invalidRefName: 'gitFailed',
  unknownCommit: 'gitFailed',
  notAFullRef: 'gitFailed',
  mergeTreeUnreadable: 'gitFailed',
  mergeTreeOutputUnexpected: 'gitFailed',
  mergeTreeOutputTruncated: 'gitFailed',
  catFileOutputUnexpected: 'gitFailed',
  branchExists: 'worktreeFailed',
  worktreeLocked: 'worktreeFailed',
  worktreeStillExists: 'worktreeFailed',
  worktreeNotListed: 'worktreeFailed',
  worktreeOnOtherBranch: 'worktreeFailed',
  worktreeNotCreated: 'worktreeFailed',
  noRemote: 'gitFailed',
  remoteAmbiguous: 'gitFailed',
  pushUncommitted: 'dirtyWorkspace',
  pullRequestFailed: 'gitFailed',
  branchNotFound: 'gitFailed',
  branchCheckedOut: 'worktreeFailed',
  startNeedsWorktree: 'launchFailed',
  stackParentUnfit: 'launchFailed',
  notStacked: 'invalidTransition',
  stackParentGone: 'unknownAgent',
  rebaseOnParentConflict: 'mergeConflicts',
  rebaseOnParentUncommitted: 'dirtyWorkspace',
  invalidPullRequest: 'gitFailed',
  pullRequestNoRemote: 'gitFailed',
  pullRequestNotFound: 'gitFailed',
  noSavedWork: 'worktreeFailed',
  notSavedWork: 'worktreeFailed',
  restoreFolderNotEmpty: 'targetExists',
  branchMovedSinceSave: 'worktreeFailed',
  fileOutsideFolder: 'gitFailed',
  unresolvedConflicts: 'mergeConflicts',
  mergeWouldOverwrite: 'dirtyWorkspace',
  changesWouldBeOverwritten: 'dirtyWorkspace',
  detachedHead: 'gitFailed',
  landOnItself: 'gitFailed',
  stagedChanges: 'dirtyWorkspace',
  landingWouldOverwrite: 'dirtyWorkspace',
  rebaseWrongBranch: 'gitFailed',
  rebaseUncommitted: 'dirtyWorkspace',
  refusingToRemove: 'worktreeFailed',
  invalidAgentId: 'unknownAgent',
  noSuchAgent: 'unknownAgent',
  duplicateAgentId: 'invalidTransition',
  worktreeRootDiskFull: 'diskFull',
  worktreeRootNotCreated: 'worktreeFailed',
  agentStillRunning: 'invalidTransition',
  agentNotRunning: 'invalidTransition',
  notDetached: 'invalidTransition',
  worktreeMissing: 'invalidTransition',
  invalidTransition: 'invalidTransition',
  noSavedWorktree: 'invalidTransition',
  noWorktreeBranch: 'invalidTransition',
  workspaceDetachedHead: 'gitFailed',
  nothingLeftToRestore: 'invalidTransition',
  unrelatedHistory: 'gitFailed',
  noMatchingOrphan: 'unknownAgent',
  orphanNowHasRecord: 'invalidTransition',
  orphanInUse: 'invalidTransition',
  notMissingWorktree: 'invalidTransition',
  unknownProfile: 'unknownProfile',
  executableMissing: 'executableNotFound',
  executableNotOnPath: 'executableNotFound',
  sandboxUnavailable: 'executableNotFound',
  sandboxNeedsWorktree: 'invalidProfile',
  emptyTask: 'emptyPrompt',
  bestOfCount: 'launchFailed',
  emptyFollowUp: 'emptyPrompt',
  nulInTask: 'launchFailed',
  nulInFollowUp: 'launchFailed',
  taskTooLong: 'launchFailed',
  followUpTooLong: 'launchFailed',
  stdinPromptInTerminal: 'invalidProfile',
  invalidBranchPrefix: 'invalidProfile',
  worktreeRootInsideRepository: 'invalidProfile',
  planTargetDetached: 'gitFailed',
  taskHasNoAgent: 'unknownAgent',
  invalidMaxParallel: 'invalidPlan',
  noSuchTask: 'invalidTransition',
  taskNotRetryable: 'invalidTransition',
  taskNotSkippable: 'invalidTransition',
  taskNotPicking: 'invalidTransition',
  notTaskCandidate: 'invalidTransition',
  planCheckFailed: 'launchFailed',
  noSuchPlanRun: 'unknownAgent',
  planStillRunning: 'invalidTransition',
  planDrivenElsewhere: 'invalidTransition',
  duplicateTaskId: 'invalidPlan',
  unknownDependency: 'invalidPlan',
  dependencyCycle: 'invalidPlan',
  worktreeEnvNotObject: 'invalidProfile',
  worktreeEnvBadName: 'invalidProfile',
  worktreeEnvBadValue: 'invalidProfile',
  worktreeEnvBadPlaceholder: 'invalidProfile',
  invalidPortRange: 'invalidProfile',
  portRangeExhausted: 'launchFailed',
  agentHasNoPorts: 'unknownAgent',
  invalidBudget: 'invalidProfile',
  agentOverBudget: 'launchFailed',
  planOverBudget: 'launchFailed',
  setupCommandNotStarted: 'launchFailed',
  setupCommandKilled: 'launchFailed',
  setupCommandFailed: 'launchFailed',
  submodulesFailed: 'worktreeFailed',
  worktreePrepFailed: 'worktreeFailed',
  agentDiskFull: 'diskFull',
  agentQuotaGaveUp: 'launchFailed',
  noCheckCommand: 'invalidProfile',
  checkCommandNotFound: 'executableNotFound',
  checkCommandNotStarted: 'launchFailed',
  checkStillRunning: 'invalidTransition',
  noFailingCheck: 'invalidTransition',
  nothingToCheck: 'invalidTransition',
  registryLocked: 'registryFailed',
  invalidRecordId: 'registryFailed',
  landingLocked: 'repositoryBusy',
  registryNotWritable: 'registryFailed',
  supervisorFailed: 'launchFailed',
  supervisorNotStarted: 'launchFailed',
  taskWaitingFor: 'taskNotReady',
  taskBlockedBy: 'taskNotReady',
  taskConflicted: 'mergeConflicts',
  binaryHunks: 'invalidTransition',
  noChangeSelected: 'invalidTransition',
  hunkNoLongerApplies: 'dirtyWorkspace',
  emptyReview: 'emptyPrompt',
  emptyComment: 'emptyPrompt',
  reviewFileDeleted: 'unknownAgent',
  nothingToReview: 'invalidTransition',
  reviewStillRunning: 'invalidTransition',
  reviewerNotStarted: 'launchFailed',
  reviewFileNotChanged: 'unknownAgent',
  cancelled: 'cancelled',
  untrustedDispatch: 'untrustedWorkspace',
  untrustedPlan: 'untrustedWorkspace',
  noFolderToDispatch: 'noWorkspace',
  noFolderForPlan: 'noWorkspace',
  folderNotARepository: 'notGitRepository',
  noFolderIsARepository: 'notGitRepository',
  noAgentApplies: 'unknownAgent',
  noResult: 'unknownAgent',
  notBestOfCandidate: 'unknownAgent',
  noLog: 'unknownAgent',
  notInWorktree: 'unknownAgent',
  terminalClosed: 'unknownAgent',
  noFileRow: 'unknownAgent',
  noAgentFile: 'unknownAgent',
  changeGone: 'gitFailed',
  changeNotListed: 'unknownAgent',
  worksInWorkspace: 'invalidTransition',
  alreadyInWorkspace: 'invalidTransition',
  unsavedEditor: 'invalidTransition',
  unsavedAgentEditor: 'invalidTransition',
  uncommittedFiles: 'invalidTransition',
  mergeTouchesDirtyFiles: 'invalidTransition',
  resolveUncommitted: 'dirtyWorkspace',
  resolveMergeInProgress: 'mergeConflicts',
  noForecastConflicts: 'unknownAgent',
  agentHasNoConflicts: 'invalidTransition',
  noMissingAgent: 'unknownAgent',
  noPendingReview: 'emptyPrompt',
  noPlanTask: 'unknownAgent',
  noPlanRunning: 'unknownAgent',
  noPlanToRemove: 'unknownAgent',
  noPlanFile: 'invalidPlan',
  invalidPlanFile: 'invalidPlan',
  invalidAgentPlan: 'invalidPlan',
};

/** Every code, for the test that each has an English and a Spanish message. */
export const agentErrorCodes = Object.keys(reasons) as readonly AgentErrorCode[];

/** The reason a code falls under. */
export function reasonOf(code: AgentErrorCode): AgentErrorReason {
  return reasons[code];
}

export class AgentError<C extends AgentErrorCode = AgentErrorCode> extends Error {
  readonly reason: AgentErrorReason;

  /** `detail` is for the log and a "details" view: git's stderr, an OS error. */
  constructor(
    readonly code: C,
    readonly data: AgentErrorData[C],
    readonly detail?: string,
  ) {
    super(`${code} ${JSON.stringify(data)}`);
    this.name = 'AgentError';
    this.reason = reasons[code];
  }

  static is(e: unknown, reason?: AgentErrorReason): e is AgentError {
    return e instanceof AgentError && (reason === undefined || e.reason === reason);
  }

  /** Whether `e` is the AgentError of this very code; its data is then typed. */
  static isCode<K extends AgentErrorCode>(e: unknown, code: K): e is AgentError<K> {
    return e instanceof AgentError && e.code === code;
  }
}

/** The line kept in a record for `code` with `data`: rendered in the user's language when shown. */
export function storedLine<C extends AgentErrorCode>(code: C, data: AgentErrorData[C]): string {
  return new AgentError(code, data).message;
}

/** Whether a message from git or the OS says the disk is full. */
export function isDiskFull(text: string): boolean {
  return /No space left on device|\bENOSPC\b|Disk quota exceeded|\bEDQUOT\b/i.test(text);
}
