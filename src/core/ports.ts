/** The interfaces core needs from the outside world; node/ and host/ implement them. */
import type { AgentRecord, ChangedFile } from './agent';
import type { Disposable, Event } from '../util/event';
import type { GitRefInfo } from './reconcile';
import type { InputState } from './agents';
import type { WorktreeEntry } from './reconcile';
import type { PlanRunRecord } from './plans';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface Clock {
  now(): number;
}

export interface WorkState {
  /** Tracked files with changes plus untracked files in the worktree. */
  readonly uncommittedFiles: number;
  /** Commits on the agent's branch that the base commit does not contain. */
  readonly commitsAhead: number;
}

/**
 * Git operations. Implementations run writes on one repository one at a time and set
 * GIT_OPTIONAL_LOCKS=0 on background reads. Failures are AgentErrors with reasons
 * notGitRepository, noCommits, gitNotFound, worktreeFailed or gitFailed.
 */
export interface GitPort {
  /** Top-level folder of the repository containing `folder`. */
  repoRoot(folder: string): Promise<string>;
  /** Full sha of HEAD. */
  headSha(repoRoot: string): Promise<string>;
  /** Full sha of the commit a ref (branch, tag, sha) names; gitFailed when it names none. */
  resolveCommit(repoRoot: string, ref: string): Promise<string>;
  /** Local branch names (short form, e.g. "agents/fix-bug"). */
  localBranches(repoRoot: string): Promise<Set<string>>;
  /** `git worktree add -b branch dir baseSha`, verified against `git worktree list`. */
  addWorktree(repoRoot: string, dir: string, branch: string, baseSha: string): Promise<void>;
  /** Removes a worktree registration and folder (force allows dirty content), then prunes. */
  removeWorktree(repoRoot: string, dir: string, force: boolean): Promise<void>;
  deleteBranch(repoRoot: string, branch: string, force: boolean): Promise<void>;
  /** What changed in `cwd` relative to `baseSha`: committed, uncommitted and untracked; renames detected. */
  changeSet(cwd: string, baseSha: string): Promise<ChangedFile[]>;
  /** Contents of `path` at `sha`, or undefined when the file does not exist there. */
  showFile(repoRoot: string, sha: string, path: string): Promise<Uint8Array | undefined>;
  workState(cwd: string, baseSha: string): Promise<WorkState>;
}

export type MergeStrategy = 'merge' | 'squash' | 'rebase';

export interface MergeForecast {
  readonly clean: boolean;
  /** Paths (relative to the repository) that would conflict. */
  readonly conflicts: readonly string[];
}

export type MergeOutcome =
  | { readonly ok: true; readonly sha: string }
  | { readonly ok: false; readonly conflicts: readonly string[] };

export interface SavedWork {
  readonly ref: string;
  readonly sha: string;
  /** Commit time of the snapshot, ms since the epoch. */
  readonly date: number;
}

/** Landing an agent's work: commits, forecasts, merges, snapshots. Same error rules as GitPort. */
export interface GitLandingPort {
  /** Stages everything in `cwd` (untracked included) and commits; undefined when nothing changed. */
  commitAll(cwd: string, message: string): Promise<string | undefined>;
  /** Branch checked out in `cwd`; undefined when HEAD is detached. */
  currentBranch(cwd: string): Promise<string | undefined>;
  /** Would merging `theirs` into `ours` conflict? Touches no worktree (merge-tree --write-tree). */
  forecastMerge(repoRoot: string, ours: string, theirs: string): Promise<MergeForecast>;
  /** Many forecasts in one git process where git allows it (merge-tree --stdin). */
  forecastMany(repoRoot: string, pairs: readonly (readonly [string, string])[]): Promise<MergeForecast[]>;
  /** Paths (relative to `cwd`) with uncommitted changes, untracked included. */
  dirtyFiles(cwd: string): Promise<string[]>;
  /** Paths changed between two commits (relative to the repository). */
  changedBetween(repoRoot: string, from: string, to: string): Promise<string[]>;
  /**
   * Lands `branch` on the branch checked out in `cwd` (the main worktree). merge: --no-ff commit;
   * squash: one commit with `message`; rebase: the agent branch is rebased onto the current branch
   * inside `agentCwd`, then fast-forwarded. On conflicts everything is aborted and left as before.
   */
  land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string): Promise<MergeOutcome>;
  /** Merges `ref` into the branch of `cwd` and leaves any conflicts in place for the merge editor. */
  mergeLeavingConflicts(cwd: string, ref: string): Promise<{ readonly conflicts: readonly string[] }>;
  /**
   * Saves the worktree exactly as it is (uncommitted and untracked files included) as a commit on
   * top of HEAD, without touching the index or the files, and points `ref` at it.
   */
  saveWork(cwd: string, ref: string, message: string): Promise<SavedWork>;
  /** Recreates a worktree at `dir` on `branch` with the files of a saved snapshot, byte for byte. */
  restoreWork(repoRoot: string, dir: string, branch: string, ref: string): Promise<void>;
  /** Whether `into` already holds `branch`'s content (so squash- and rebase-merges count). */
  isMergedByContent(repoRoot: string, branch: string, into: string): Promise<boolean>;
  /** Sets `path` in the worktree to its content at `sha`, deleting it when absent there. */
  restoreFile(cwd: string, sha: string, path: string): Promise<void>;
  /** Stashes the user's own uncommitted changes to `files` in the main worktree (untracked included). */
  stashFiles(cwd: string, files: readonly string[], message: string): Promise<void>;
  listSavedWork(repoRoot: string, prefix: string): Promise<SavedWork[]>;
  deleteRef(repoRoot: string, ref: string): Promise<void>;
}

export interface FileSystemPort {
  exists(path: string): Promise<boolean>;
  mkdirp(path: string): Promise<void>;
  /** Removes a folder the extension created; used only to undo a failed dispatch. */
  removeDir(path: string): Promise<void>;
  /** Appends to a text file (an agent's log), creating it and its folder when missing. */
  appendText(path: string, text: string): Promise<void>;
  /**
   * Copies files (paths relative to the roots, '/'-separated) from `srcRoot` to the same paths
   * under `dstRoot`, modes kept and symlinks copied as symlinks. Never overwrites, never copies a
   * folder, and never reads or writes through a symlink that leaves either root.
   */
  copyInto(srcRoot: string, dstRoot: string, relPaths: readonly string[]): Promise<TransferReport>;
  /** Makes `dstRoot/relPath` a symlink to the folder `srcRoot/relPath`, with copyInto's guards. */
  linkInto(srcRoot: string, dstRoot: string, relPath: string): Promise<TransferReport>;
}

export interface TransferReport {
  /** Paths copied or linked. */
  readonly done: readonly string[];
  /** Paths left alone, each with why (already there, a folder, outside the root...). */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/** What git says about files a new worktree should get from the main one. Same error rules as GitPort. */
export interface WorktreeSourcePort {
  /**
   * Files of the worktree at `repoRoot` that match its `.worktreeinclude` (gitignore syntax) and
   * that git ignores: untracked, never part of an agent's changes. Relative, '/'-separated; []
   * when there is no such file.
   */
  worktreeIncludes(repoRoot: string): Promise<string[]>;
  /** Whether git ignores `relPath` (a file, folder or symlink) in the worktree at `cwd`. */
  isIgnored(cwd: string, relPath: string): Promise<boolean>;
  /**
   * Adds `/relPath` to the repository's info/exclude, shared by all its worktrees, unless present:
   * a symlink is not matched by a folder pattern like `node_modules/`.
   */
  excludeLocally(cwd: string, relPath: string): Promise<void>;
  /**
   * `git submodule update --init --recursive` in a new worktree, through the repository's write
   * queue, never prompting for credentials; resolves with git's output, rejects with its failure.
   */
  initSubmodules(worktree: string): Promise<string>;
}

/** What to execute for a profile's command, found before anything is created. */
export interface ResolvedExecutable {
  readonly file: string;
  /** Arguments placed before the profile's own (the demo agent's script path). */
  readonly prefixArgs: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export interface ExecutableResolver {
  /** undefined when the command is not found (not on PATH, or the path does not exist). */
  resolve(command: string): Promise<ResolvedExecutable | undefined>;
}

export interface LaunchRequest {
  readonly agentId: string;
  readonly title: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Headless runners write all output here. */
  readonly logPath: string;
  /** A line written to the log (and output) before the agent's own output, e.g. a follow-up's prompt. */
  readonly banner?: string;
}

export interface ProcessExit {
  readonly exitCode?: number;
  readonly signal?: string;
  /** Set when the process could not be started at all. */
  readonly error?: string;
  /** Stop was asked for, possibly by an earlier window (supervised runs remember it). */
  readonly stopRequested?: boolean;
  /** An adopted terminal agent whose terminal did not come back: its process may still run, unseen. */
  readonly detached?: boolean;
}

export interface AgentProcess {
  readonly pid?: number;
  /** For runners that learn the pid later (a terminal's process id): resolves with it, once. */
  readonly whenPid?: Promise<number | undefined>;
  /** Whether the runner can tell when the agent waits for input ('waiting-for-input'); fired on each change. */
  readonly onDidChangeInput?: Event<InputState>;
  readonly onDidOutput: Event<string>;
  /** Resolves once, when the process (tree) has ended; never rejects. */
  readonly exit: Promise<ProcessExit>;
  /** Ends the whole process tree: a polite signal first, then a forced kill. */
  stop(): Promise<void>;
  /** Stops watching and leaves the agent running, to be adopted by the next window. */
  detach?(): void;
  /** Log position where onDidOutput begins (what came before is in the log only). */
  readonly startOffset?: number;
  /** Reads the log between positions; an adopted run's progress is rebuilt from it. */
  readLogFrom?(
    offset: number,
    options?: { readonly end?: number },
  ): Promise<{ readonly text: string; readonly next: number; readonly end: number }>;
}

export interface AgentRunner {
  start(request: LaunchRequest): AgentProcess;
  /**
   * Re-attaches to an agent started by an earlier window, if the runner can (and it is known).
   * `terminalPid` is the record's: a terminal runner matches a revived terminal by it.
   */
  adopt?(agentId: string, terminalPid?: number): AgentProcess | undefined;
  /** Drops what the runner keeps about a finished agent. */
  forget?(agentId: string): void;
}

/** Saved records of one kind in the workspace's state. */
export interface RecordStore<T> {
  load(): readonly T[];
  save(records: readonly T[]): Promise<void>;
}

export type StateStore = RecordStore<AgentRecord>;
export type PlanStore = RecordStore<PlanRunRecord>;

/** Notifies about file changes under a folder (recursive); events may be coalesced. */
export interface FolderWatcher {
  watch(folder: string, onChange: () => void): Disposable;
}

export interface ManagerSettings {
  readonly branchPrefix: string;
  /** Absolute folder for worktrees; undefined = sibling "<repoName>.worktrees". */
  readonly worktreeRoot?: string;
  readonly logDir: string;
  /** A run longer than this is stopped with status "timed-out"; 0 or undefined: no limit. */
  readonly agentTimeoutMs?: number;
  /** argv run (no shell) in each new worktree before its agent starts; a failure fails the agent. */
  readonly setupCommand?: readonly string[];
  /** Repository-relative folders the new worktree gets as symlinks to the main worktree's (ignored ones only). */
  readonly symlinkFolders?: readonly string[];
  /** Initialise the submodules of each new worktree (they start uninitialised) before its setup command and agent. */
  readonly initSubmodules?: boolean;
}

/** What Reconcile Agents asks of git. Writes go through the repository's write queue; same error rules as GitPort. */
export interface GitReconcilePort {
  /** `git worktree list --porcelain -z`, the main worktree first. */
  listWorktrees(repoRoot: string): Promise<WorktreeEntry[]>;
  /** Refs under the given prefixes (full names, e.g. refs/heads/), with their tips and first parents. */
  listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]>;
  /**
   * Drops the registration of one worktree whose folder is gone: what `git worktree prune` does,
   * for that entry only, so a user's own stale entries are left alone. Refuses a folder that exists.
   */
  pruneWorktree(repoRoot: string, dir: string): Promise<void>;
  /** `git worktree add dir branch` for an existing branch, verified against `git worktree list`. */
  checkoutWorktree(repoRoot: string, dir: string, branch: string): Promise<void>;
  /** Merge base of two commits; undefined when they share no history. */
  mergeBase(repoRoot: string, a: string, b: string): Promise<string | undefined>;
  /** Points `ref` at a snapshot of `branch`'s tip (same tree, parent = tip): saved work for a worktree that is gone. */
  saveBranch(repoRoot: string, branch: string, ref: string, message: string): Promise<SavedWork>;
}
