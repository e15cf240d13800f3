/** The interfaces core needs from the outside world; node/ and host/ implement them. */
import type { AgentRecord, ChangedFile } from './agent';
import type { Disposable, Event } from '../util/event';

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

export interface FileSystemPort {
  exists(path: string): Promise<boolean>;
  mkdirp(path: string): Promise<void>;
  /** Removes a folder the extension created; used only to undo a failed dispatch. */
  removeDir(path: string): Promise<void>;
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
}

export interface ProcessExit {
  readonly exitCode?: number;
  readonly signal?: string;
  /** Set when the process could not be started at all. */
  readonly error?: string;
}

export interface AgentProcess {
  readonly pid?: number;
  readonly onDidOutput: Event<string>;
  /** Resolves once, when the process (tree) has ended; never rejects. */
  readonly exit: Promise<ProcessExit>;
  /** Ends the whole process tree: a polite signal first, then a forced kill. */
  stop(): Promise<void>;
}

export interface AgentRunner {
  start(request: LaunchRequest): AgentProcess;
}

export interface StateStore {
  load(): readonly AgentRecord[];
  save(records: readonly AgentRecord[]): Promise<void>;
}

/** Notifies about file changes under a folder (recursive); events may be coalesced. */
export interface FolderWatcher {
  watch(folder: string, onChange: () => void): Disposable;
}

export interface ManagerSettings {
  readonly branchPrefix: string;
  /** Absolute folder for worktrees; undefined = sibling "<repoName>.worktrees". */
  readonly worktreeRoot?: string;
  readonly logDir: string;
}
