/**
 * The codes of AgentError: the broad reason callers branch on, and each specific failure with the
 * data its message needs. The class and the code-to-reason table are in errors.ts, which re-exports
 * these types (import them from there).
 */
import type { AgentStatus } from './agent';
import type { TaskState } from './plans';
import type { StartErrorData } from './errorCodesStart';
import type { ReviewErrorData } from './reviewErrorCodes';

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
  /** The registry of records on disk (<git common dir>/parallel-agents) could not be written. */
  | 'registryFailed'
  /** Another window holds a lock of the repository (its landing lock) for too long. */
  | 'repositoryBusy'
  | 'cancelled';

export type Empty = Record<string, never>;
export type Titled = { readonly title: string };

/** Each specific failure and the data its message needs. */
export interface AgentErrorData extends StartErrorData, ReviewErrorData {
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
  /** `git cat-file --batch` (the base side's files, read together) answered `answer` of `count` in a form not known. */
  catFileOutputUnexpected: { readonly answer: number; readonly count: number };
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
  // remotes and pull requests (src/node/git/remotes.ts, ui/commands/pullRequestCommand.ts)
  noRemote: { readonly branch: string; readonly repoRoot: string };
  /** Several remotes, none the branch's upstream nor `origin`. */
  remoteAmbiguous: { readonly branch: string; readonly remotes: readonly string[] };
  pushUncommitted: Titled & { readonly count: number };
  /** git's (or gh's) words, credentials hidden, are the detail. */
  pullRequestFailed: { readonly branch: string; readonly tool: string };
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
  /** Another window recorded an agent on the orphan's worktree or branch since Reconcile found it. */
  orphanNowHasRecord: { readonly branch: string; readonly title: string };
  /** A live process (an agent's, or any process whose current folder is there) works in the orphan's worktree. */
  orphanInUse: { readonly path: string; readonly pid: number };
  notMissingWorktree: Titled;
  unknownProfile: { readonly name: string };
  executableMissing: { readonly command: string; readonly profile: string };
  executableNotOnPath: { readonly command: string; readonly profile: string };
  /** A sandboxed profile where the sandbox cannot run: bubblewrap missing, or not Linux. Nothing was created. */
  sandboxUnavailable: { readonly profile: string; readonly missing: 'bwrap' | 'platform'; readonly platform: string };
  /** A sandboxed profile asked to run in the workspace itself: the sandbox needs the agent's own worktree. */
  sandboxNeedsWorktree: { readonly profile: string };
  emptyTask: Empty;
  /** Dispatch Best of N with a count outside bestOfLimits (core/agents/bestOf.ts): nothing was created. */
  bestOfCount: { readonly count: number; readonly min: number; readonly max: number };
  emptyFollowUp: Empty;
  nulInTask: Empty;
  nulInFollowUp: Empty;
  taskTooLong: { readonly kb: number; readonly maxKb: number };
  followUpTooLong: { readonly kb: number; readonly maxKb: number };
  /** The profile gives the task on standard input, which an agent in a terminal cannot have. */
  stdinPromptInTerminal: { readonly profile: string };
  invalidBranchPrefix: { readonly prefix: string };
  worktreeRootInsideRepository: { readonly worktreeRoot: string; readonly repoRoot: string };
  planTargetDetached: { readonly repoRoot: string };
  taskHasNoAgent: { readonly taskId: string };
  invalidMaxParallel: { readonly value: number };
  noSuchTask: { readonly taskId: string };
  taskNotRetryable: { readonly taskId: string; readonly state: TaskState };
  taskNotSkippable: { readonly taskId: string; readonly state: TaskState };
  taskNotPicking: { readonly taskId: string; readonly state: TaskState };
  /** Pick on a plan's Best of N: the agent is not a candidate of the task that succeeded. */
  notTaskCandidate: Titled & { readonly taskId: string };
  /** A task's reason: the check still failed after its merge into the plan's integration branch and the follow-ups. */
  planCheckFailed: { readonly taskId: string; readonly command: string; readonly exit: string; readonly fixes: number };
  noSuchPlanRun: { readonly runId: string };
  planStillRunning: Titled & { readonly tasks: readonly string[] };
  /** Another open window drives the run: only it starts or retries its tasks. */
  planDrivenElsewhere: Titled;
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
  /** Paused on its provider's limit `pauses` times in a row: it failed rather than wait again. */
  agentQuotaGaveUp: { readonly pauses: number; readonly message: string };
  // the check command (parallelAgents.checkCommand), src/core/agents/checkRuns.ts
  /** Run Check without a check command set (globally or in the agent's profile). */
  noCheckCommand: Titled;
  /** The check's executable is not on PATH (or the path does not exist); also kept in the record's check. */
  checkCommandNotFound: { readonly command: string };
  checkCommandNotStarted: { readonly command: string; readonly error: string };
  checkStillRunning: Titled;
  /** Fix Failing Check on an agent whose last check did not fail. */
  noFailingCheck: Titled;
  /** The worktree is gone (merged, discarded or missing): there is nothing to check. */
  nothingToCheck: Titled;
  // the registry of records, src/node/registry
  /** Another window has held the record's lock for longer than a write may take. */
  registryLocked: { readonly file: string; readonly seconds: number };
  invalidRecordId: { readonly id: string };
  /**
   * Another window's landing on the repository held its landing lock (`lockFile`) for all the
   * `seconds` this one waited; `since` is when it took it, as the holder's local time of day.
   */
  landingLocked: {
    readonly repoRoot: string;
    readonly lockFile: string;
    readonly pid: number;
    readonly host: string;
    readonly since: string;
    readonly seconds: number;
  };
  /** The registry folder refused a write (read-only file system, permissions); `error` is the OS's code, e.g. EROFS. */
  registryNotWritable: { readonly folder: string; readonly file: string; readonly error: string };
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
  /** Compare, Diff or Pick on an agent that no Dispatch Best of N made. */
  notBestOfCandidate: Titled;
  noLog: Titled;
  notInWorktree: Titled;
  terminalClosed: Titled;
  noFileRow: Empty;
  noAgentFile: Empty;
  changeGone: Titled & { readonly path: string };
  changeNotListed: Titled & { readonly path: string };
  worksInWorkspace: Titled;
  alreadyInWorkspace: Titled;
  unsavedEditor: { readonly path: string };
  /** The agent's side of its diff has unsaved edits: the selected lines may not be the file's. */
  unsavedAgentEditor: { readonly path: string };
  uncommittedFiles: Titled & { readonly count: number };
  mergeTouchesDirtyFiles: { readonly files: readonly string[] };
  /** Ask Agent to Resolve Conflicts: uncommitted changes in the agent's worktree would end up in the merge. */
  resolveUncommitted: Titled & { readonly count: number };
  /** Ask Agent to Resolve Conflicts while the merge of an earlier request is still in progress. */
  resolveMergeInProgress: Titled;
  /** Ask Agent to Resolve Conflicts from the palette, and the last forecast found no agent with conflicts. */
  noForecastConflicts: Empty;
  /** Ask Agent to Resolve Conflicts for an agent the last forecast found no conflict for. */
  agentHasNoConflicts: Titled;
  noMissingAgent: Empty;
  /** Send Review to Agent from the palette, and no agent has a pending comment. */
  noPendingReview: Empty;
  noPlanTask: Empty;
  noPlanRunning: Empty;
  noPlanToRemove: Empty;
  noPlanFile: Empty;
  /** `problems` lists the first problems found, one per line, as ui/planProblemText.ts words them. */
  invalidPlanFile: { readonly name: string; readonly count: number; readonly problems: string };
  invalidAgentPlan: { readonly count: number };
}

export type AgentErrorCode = keyof AgentErrorData;
