/**
 * Every failure the user may meet is an AgentError carrying a code and the data of that code;
 * its text is made in one place, src/ui/errorMessages.ts (via the table in src/ui/errorText.ts).
 * `message` is a technical line for the log, never shown as the user's message.
 */
import type { AgentStatus } from './agent';
import type { TaskState } from './plans';

/** The broad kind of a failure: what callers branch on (`AgentError.is(e, 'dirtyWorkspace')`). */
export type AgentErrorReason =
  | 'notGitRepository'
  | 'noCommits'
  | 'gitNotFound'
  | 'executableNotFound'
  | 'targetExists'
  | 'unknownProfile'
  | 'emptyPrompt'
  | 'unknownAgent'
  | 'invalidTransition'
  | 'noWorkspace'
  | 'untrustedWorkspace'
  | 'worktreeFailed'
  | 'gitFailed'
  /** Unresolved conflicts (files still holding conflict markers) block the operation. */
  | 'mergeConflicts'
  /** Uncommitted changes in a worktree would be overwritten, or swallowed into a commit. */
  | 'dirtyWorkspace'
  | 'launchFailed'
  | 'invalidProfile'
  | 'invalidPlan'
  /** The disk (or the folder's file system) is full: git or the agent got ENOSPC. */
  | 'diskFull'
  /** A plan task waits for, or is blocked by, other tasks (a task's kept reason, not a failure). */
  | 'taskNotReady'
  | 'cancelled';

type Empty = Record<string, never>;
type Titled = { readonly title: string };

/** Each specific failure and the data its message needs. */
export interface AgentErrorData {
  // git, run by src/node
  gitNotFound: { readonly binary: string };
  gitDiskFull: { readonly cwd: string };
  bareRepository: { readonly cwd: string };
  notARepository: { readonly folder: string };
  /** `command` is "git merge", "git worktree add"…; git's stderr is the detail. */
  gitCommandFailed: { readonly command: string; readonly cwd: string };
  worktreeCommandFailed: { readonly command: string; readonly cwd: string };
  worktreeDiskFull: { readonly path: string; readonly freeKb?: number };
  noCommits: { readonly repoRoot: string };
  invalidRefName: { readonly ref: string };
  unknownCommit: { readonly ref: string; readonly repoRoot: string };
  notAFullRef: { readonly ref: string };
  mergeTreeUnreadable: { readonly repoRoot: string };
  mergeTreeOutputUnexpected: { readonly merge: number; readonly count: number };
  mergeTreeOutputTruncated: { readonly merge: number; readonly count: number };
  branchExists: { readonly branch: string };
  worktreeLocked: { readonly path: string };
  worktreeStillExists: { readonly path: string };
  worktreeNotListed: { readonly path: string };
  /** `branch` is the full ref checked out there, or absent for a detached HEAD. */
  worktreeOnOtherBranch: { readonly path: string; readonly branch?: string; readonly expected: string };
  worktreeNotCreated:
    | { readonly path: string; readonly problem: 'notListed' | 'locked' | 'prunable' }
    | { readonly path: string; readonly problem: 'otherBranch'; readonly branch?: string; readonly expected: string }
    | { readonly path: string; readonly problem: 'otherHead'; readonly head?: string; readonly expected: string };
  noSavedWork: { readonly ref: string };
  notSavedWork: { readonly ref: string };
  restoreFolderNotEmpty: { readonly path: string };
  /** `now` and `saved` are full commit ids. */
  branchMovedSinceSave: { readonly branch: string; readonly now: string; readonly saved: string };
  fileOutsideFolder: { readonly path: string; readonly cwd: string };
  unresolvedConflicts: { readonly files: readonly string[] };
  mergeWouldOverwrite: { readonly cwd: string; readonly ref: string };
  changesWouldBeOverwritten: { readonly cwd: string };
  detachedHead: { readonly cwd: string };
  landOnItself: { readonly branch: string; readonly cwd: string };
  stagedChanges: { readonly cwd: string };
  landingWouldOverwrite: { readonly cwd: string; readonly files: readonly string[] };
  /** `branch` is the branch checked out there (short name), or absent for a detached HEAD. */
  rebaseWrongBranch: { readonly cwd: string; readonly branch?: string; readonly expected: string };
  rebaseUncommitted: { readonly cwd: string; readonly branch: string };
  refusingToRemove: { readonly path: string };
  invalidAgentId: { readonly id: string };
  // agents and plans, src/core
  noSuchAgent: { readonly id: string };
  duplicateAgentId: { readonly id: string };
  worktreeRootDiskFull: { readonly path: string };
  worktreeRootNotCreated: { readonly path: string };
  agentStillRunning: Titled;
  agentNotRunning: Titled & { readonly status: AgentStatus };
  notDetached: Titled & { readonly status: AgentStatus };
  worktreeMissing: Titled;
  invalidTransition: { readonly from: AgentStatus; readonly to: AgentStatus };
  noSavedWorktree: Titled;
  noWorktreeBranch: Titled;
  workspaceDetachedHead: { readonly repoRoot: string };
  nothingLeftToRestore: Titled & { readonly branch: string };
  unrelatedHistory: { readonly branch: string; readonly repoRoot: string };
  /** `key` names what was looked for: a worktree path or a branch. */
  noMatchingOrphan: { readonly key?: string };
  notMissingWorktree: Titled;
  unknownProfile: { readonly name: string };
  executableMissing: { readonly command: string; readonly profile: string };
  executableNotOnPath: { readonly command: string; readonly profile: string };
  emptyTask: Empty;
  emptyFollowUp: Empty;
  nulInTask: Empty;
  nulInFollowUp: Empty;
  taskTooLong: { readonly kb: number; readonly maxKb: number };
  followUpTooLong: { readonly kb: number; readonly maxKb: number };
  invalidBranchPrefix: { readonly prefix: string };
  worktreeRootInsideRepository: { readonly worktreeRoot: string; readonly repoRoot: string };
  planTargetDetached: { readonly repoRoot: string };
  taskHasNoAgent: { readonly taskId: string };
  invalidMaxParallel: { readonly value: number };
  noSuchTask: { readonly taskId: string };
  taskNotRetryable: { readonly taskId: string; readonly state: TaskState };
  taskNotSkippable: { readonly taskId: string; readonly state: TaskState };
  noSuchPlanRun: { readonly runId: string };
  planStillRunning: Titled & { readonly tasks: readonly string[] };
  duplicateTaskId: { readonly taskId: string };
  unknownDependency: { readonly taskId: string; readonly dependency: string };
  dependencyCycle: { readonly cycle: readonly string[] };
  // kept in a record as why an agent ended or a task waits (a line `code {json}`; more lines may follow)
  setupCommandNotStarted: { readonly command: string; readonly error: string };
  setupCommandKilled: { readonly command: string; readonly signal: string };
  setupCommandFailed: { readonly command: string; readonly exitCode?: number };
  /** git's words follow on the next lines. */
  submodulesFailed: { readonly command: string };
  /** The cause follows on the next line. */
  worktreePrepFailed: Empty;
  agentDiskFull: { readonly cwd: string };
  supervisorFailed: { readonly error: string };
  supervisorNotStarted: { readonly error: string };
  taskWaitingFor: { readonly tasks: readonly string[] };
  taskBlockedBy: { readonly tasks: readonly string[] };
  taskConflicted: Empty;
  // commands, src/ui
  cancelled: Empty;
  untrustedDispatch: Empty;
  untrustedPlan: Empty;
  noFolderToDispatch: Empty;
  noFolderForPlan: Empty;
  folderNotARepository: { readonly folder: string };
  noFolderIsARepository: { readonly folders: readonly string[] };
  noAgentApplies: Empty;
  noResult: Titled;
  notInWorktree: Titled;
  terminalClosed: Titled;
  noFileRow: Empty;
  noAgentFile: Empty;
  changeGone: Titled & { readonly path: string };
  changeNotListed: Titled & { readonly path: string };
  worksInWorkspace: Titled;
  alreadyInWorkspace: Titled;
  unsavedEditor: { readonly path: string };
  uncommittedFiles: Titled & { readonly count: number };
  mergeTouchesDirtyFiles: { readonly files: readonly string[] };
  noMissingAgent: Empty;
  noPlanTask: Empty;
  noPlanRunning: Empty;
  noPlanToRemove: Empty;
  noPlanFile: Empty;
  /** `problems` lists the first problems found, one per line, as ui/planProblemText.ts words them. */
  invalidPlanFile: { readonly name: string; readonly count: number; readonly problems: string };
  invalidAgentPlan: { readonly count: number };
}

export type AgentErrorCode = keyof AgentErrorData;

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
  branchExists: 'worktreeFailed',
  worktreeLocked: 'worktreeFailed',
  worktreeStillExists: 'worktreeFailed',
  worktreeNotListed: 'worktreeFailed',
  worktreeOnOtherBranch: 'worktreeFailed',
  worktreeNotCreated: 'worktreeFailed',
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
  notMissingWorktree: 'invalidTransition',
  unknownProfile: 'unknownProfile',
  executableMissing: 'executableNotFound',
  executableNotOnPath: 'executableNotFound',
  emptyTask: 'emptyPrompt',
  emptyFollowUp: 'emptyPrompt',
  nulInTask: 'launchFailed',
  nulInFollowUp: 'launchFailed',
  taskTooLong: 'launchFailed',
  followUpTooLong: 'launchFailed',
  invalidBranchPrefix: 'invalidProfile',
  worktreeRootInsideRepository: 'invalidProfile',
  planTargetDetached: 'gitFailed',
  taskHasNoAgent: 'unknownAgent',
  invalidMaxParallel: 'invalidPlan',
  noSuchTask: 'invalidTransition',
  taskNotRetryable: 'invalidTransition',
  taskNotSkippable: 'invalidTransition',
  noSuchPlanRun: 'unknownAgent',
  planStillRunning: 'invalidTransition',
  duplicateTaskId: 'invalidPlan',
  unknownDependency: 'invalidPlan',
  dependencyCycle: 'invalidPlan',
  setupCommandNotStarted: 'launchFailed',
  setupCommandKilled: 'launchFailed',
  setupCommandFailed: 'launchFailed',
  submodulesFailed: 'worktreeFailed',
  worktreePrepFailed: 'worktreeFailed',
  agentDiskFull: 'diskFull',
  supervisorFailed: 'launchFailed',
  supervisorNotStarted: 'launchFailed',
  taskWaitingFor: 'taskNotReady',
  taskBlockedBy: 'taskNotReady',
  taskConflicted: 'mergeConflicts',
  cancelled: 'cancelled',
  untrustedDispatch: 'untrustedWorkspace',
  untrustedPlan: 'untrustedWorkspace',
  noFolderToDispatch: 'noWorkspace',
  noFolderForPlan: 'noWorkspace',
  folderNotARepository: 'notGitRepository',
  noFolderIsARepository: 'notGitRepository',
  noAgentApplies: 'unknownAgent',
  noResult: 'unknownAgent',
  notInWorktree: 'unknownAgent',
  terminalClosed: 'unknownAgent',
  noFileRow: 'unknownAgent',
  noAgentFile: 'unknownAgent',
  changeGone: 'gitFailed',
  changeNotListed: 'unknownAgent',
  worksInWorkspace: 'invalidTransition',
  alreadyInWorkspace: 'invalidTransition',
  unsavedEditor: 'invalidTransition',
  uncommittedFiles: 'invalidTransition',
  mergeTouchesDirtyFiles: 'invalidTransition',
  noMissingAgent: 'unknownAgent',
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
