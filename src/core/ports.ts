/** The interfaces core needs from the outside world; node/ and host/ implement them. Git's are in git.ts. */
import type { AgentRecord } from './agent';
import type { AgentError } from './errors';
import type { Disposable, Event } from '../util/event';
import type { InputState } from './agents';
import type { PlanRunRecord, WindowId } from './plans';
import type { SandboxLaunch } from './sandbox';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface Clock {
  now(): number;
}

export interface FileSystemPort {
  exists(path: string): Promise<boolean>;
  mkdirp(path: string): Promise<void>;
  /** Removes a folder the extension created; used only to undo a failed dispatch. */
  removeDir(path: string): Promise<void>;
  /** Appends to a text file (an agent's log), creating it and its folder when missing. */
  appendText(path: string, text: string): Promise<void>;
  /** Replaces a text file's content (an agent's env file), creating it when missing. */
  writeText(path: string, text: string): Promise<void>;
  /**
   * Copies files (paths relative to the roots, '/'-separated) from `srcRoot` to the same paths
   * under `dstRoot`, modes kept and symlinks copied as symlinks. Never overwrites, never copies a
   * folder, and never reads or writes through a symlink that leaves either root.
   */
  copyInto(srcRoot: string, dstRoot: string, relPaths: readonly string[]): Promise<TransferReport>;
  /** Makes `dstRoot/relPath` a symlink to the folder `srcRoot/relPath`, with copyInto's guards. */
  linkInto(srcRoot: string, dstRoot: string, relPath: string): Promise<TransferReport>;
  /**
   * The last `maxBytes` (or fewer) of a run's log from position `offset` on (positions as the
   * runner's `startOffset` counts them); '' when the log is missing.
   */
  readLogTail(path: string, offset: number, maxBytes: number): Promise<string>;
}

export interface TransferReport {
  /** Paths copied or linked. */
  readonly done: readonly string[];
  /** Paths left alone, each with why (already there, a folder, outside the root...). */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
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
  /**
   * Written to the agent's standard input, which is then closed (a profile with `promptVia: "stdin"`);
   * without it the input is empty. Headless runners only.
   */
  readonly stdin?: string;
  /** A sandboxed command's outside part (its private folder, the filtering proxy): headless runners only. */
  readonly sandbox?: SandboxLaunch;
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
  /**
   * Its output as it comes. A runner may read output only while someone listens, so listen only
   * when the text is needed (a parser, a view), not to learn that output came or how it ended.
   */
  readonly onDidOutput: Event<string>;
  /**
   * Runners that keep a log: the end of the output, set before `exit` resolves, so that nobody has
   * to listen to all of it for a failure message. Defined (empty) from the start when supported.
   */
  readonly tail?: string;
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

/** Where a run was started: its folder (whose repository keeps its state) and a terminal's pid. */
export interface RunLocation {
  readonly cwd?: string;
  readonly terminalPid?: number;
}

export interface AgentRunner {
  start(request: LaunchRequest): AgentProcess;
  /** Re-attaches to an agent an earlier window started, if it can; a terminal is matched by `where.terminalPid`. */
  adopt?(agentId: string, where?: RunLocation): AgentProcess | undefined;
  /** Drops what the runner keeps about a finished agent. */
  forget?(agentId: string, where?: RunLocation): void;
  /** Readies the process of a run about to start in `cwd` (while its folder is made); start() takes it. */
  prepare?(agentId: string, cwd: string): void;
  /** Lets go of what prepare() readied when start() will not come. */
  release?(agentId: string): void;
}

/** A live process working in a folder: an agent's (its supervisor says) or any whose current folder is there. */
export interface LiveProcess {
  readonly pid: number;
  /** Its working folder: one of the folders asked about, or a folder inside one. */
  readonly cwd: string;
}

/** Finds live processes working in folders; a source it cannot read (permissions, another OS) is skipped. */
export interface LiveRuns {
  /** Live processes working in one of `folders` or inside one: the repository's runs and, where the OS tells, any. */
  inFolders(repoRoot: string, folders: readonly string[]): Promise<readonly LiveProcess[]>;
}

/** What another window changed in a shared store: records written (new or changed) and ids removed. */
export interface ChangedElsewhere<T> {
  /** Each record as written there, with what this window knew of it before (to merge its own unsaved changes). */
  readonly changed: readonly { readonly record: T; readonly base?: T }[];
  readonly removed: readonly string[];
}

/** Saved records of one kind, kept where every window on the repository reads them. */
export interface RecordStore<T> {
  load(): readonly T[];
  save(records: readonly T[]): Promise<void>;
  /** Fires when another window wrote or removed records (a store shared between windows). */
  readonly onDidChangeElsewhere?: Event<ChangedElsewhere<T>>;
  /**
   * Changes one record from what is stored now, holding a lock no other window can hold meanwhile:
   * `change` gets the stored record and returns the next one, or undefined to leave it. Resolves
   * with the record as stored afterwards (what this window now knows of it) and whether it was
   * written; undefined when the record is not stored (or cannot be read).
   */
  update?(id: string, change: (stored: T) => T | undefined): Promise<RecordUpdate<T> | undefined>;
}

export interface RecordUpdate<T> {
  readonly record: T;
  readonly written: boolean;
}

/** Which window processes are still open (a plan run is driven by one window at a time). */
export interface WindowPresence {
  /** This window. */
  readonly self: WindowId;
  /** False once that window is gone (its process ended); a window it cannot check counts as open. */
  isAlive(window: WindowId): boolean;
}

/** A record that could not be written because its registry folder refuses writes. */
export interface RecordWriteFailure {
  /** The registry folder (`<git common dir>/parallel-agents`). */
  readonly folder: string;
  readonly file: string;
  /** Code registryNotWritable, with the OS's code. */
  readonly error: AgentError;
}

/** Fires the first time in a window a registry folder refuses a write; never again for that folder. */
export interface RecordWriteWarnings {
  readonly onDidFailToWrite: Event<RecordWriteFailure>;
}

export type StateStore = RecordStore<AgentRecord>;
export type PlanStore = RecordStore<PlanRunRecord>;

/** Notifies about file changes under a folder (recursive); events may be coalesced. */
/** One folder's watch. */
export interface FolderWatch extends Disposable {
  /**
   * False while some folders under the root go unwatched (a watch budget, or the system's watches
   * ran out): changes there are only seen by polling. Undefined: everything is watched.
   */
  readonly complete?: boolean;
  /** Asks for the folders holding these paths (relative to the root, '/'-separated) to be watched first. */
  focus?(paths: readonly string[]): void;
}

export interface FolderWatcher {
  /** `paths`: what changed, relative to `folder` and '/'-separated; undefined when unknown. */
  watch(folder: string, onChange: (paths?: readonly string[]) => void): FolderWatch;
}

export interface ManagerSettings {
  readonly branchPrefix: string;
  /** Absolute folder for worktrees; undefined = sibling "<repoName>.worktrees". */
  readonly worktreeRoot?: string;
  readonly logDir: string;
  /** The log folder of a repository's agents, when it has one of its own (its registry); `logDir` otherwise. */
  readonly logDirOf?: (repoRoot: string) => string | undefined;
  /** A run longer than this is stopped with status "timed-out"; 0 or undefined: no limit. */
  readonly agentTimeoutMs?: number;
  /**
   * Most agents of a repository whose run is live at once (parallelAgents.maxConcurrentAgents);
   * dispatches beyond it wait as `queued`. 0 or undefined: no limit.
   */
  readonly maxConcurrentAgents?: number;
  /** parallelAgents.providerLimits as set: provider → most live agents of it at once (core/clis/providers.ts). */
  readonly providerLimits?: unknown;
  /** parallelAgents.defaultBudgetUsd as set: the cost cap of agents whose profile has none (core/agents/budgets). */
  readonly defaultBudgetUsd?: unknown;
  /** argv run (no shell) in each new worktree before its agent starts; a failure fails the agent. */
  readonly setupCommand?: readonly string[];
  /** Repository-relative folders the new worktree gets as symlinks to the main worktree's (ignored ones only). */
  readonly symlinkFolders?: readonly string[];
  /** Initialise the submodules of each new worktree (they start uninitialised) before its setup command and agent. */
  readonly initSubmodules?: boolean;
  /**
   * argv (no shell) run in an agent's folder when the agent succeeds and on Run Check; a profile's
   * own `checkCommand` takes its place. Undefined or empty: no check.
   */
  readonly checkCommand?: readonly string[];
  /** Warm worktrees kept per repository for dispatches to take (core/worktrees/worktreePool.ts); 0/undefined: none. */
  readonly worktreePool?: number;
  /** `parallelAgents.worktreeEnv` as set (user/machine): NAME → template; checked at each dispatch. */
  readonly worktreeEnv?: unknown;
  /** `parallelAgents.portRange`, e.g. "3100-3999"; undefined: that default. */
  readonly portRange?: unknown;
}

/** Whether a TCP port can be listened on right now (node/portProbe.ts tries it on 127.0.0.1). */
export interface PortProbe {
  isFree(port: number): Promise<boolean>;
}

/** Who holds a repository's landing lock, as its lock file says. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When it took the lock (ms since the epoch). */
  readonly since: number;
}

/** A landing waiting for another window's landing on the same repository to finish. */
export interface LandingWait {
  readonly repoRoot: string;
  readonly holder: LockHolder;
  /** Settles when the wait ends: the lock was taken, waiting gave up, or was cancelled. */
  readonly ended: Promise<void>;
  /** Gives up waiting: the landing rejects with the code `cancelled` and touches nothing. */
  cancel(): void;
}

/**
 * Locks shared by every window (every process) on a repository. A landing (merge, squash or
 * rebase into the branch checked out in the workspace) runs holding its repository's landing
 * lock, so two windows never forecast and merge into the same branch at the same time.
 */
export interface RepositoryLocks {
  /**
   * Runs `body` holding the landing lock of `repoRoot`'s repository. While another holder keeps
   * it, `onWait` (or the implementation's own reporter) is told once; gives up with the code
   * `landingLocked` after the implementation's limit.
   */
  withLandingLock<T>(repoRoot: string, body: () => Promise<T>, onWait?: (wait: LandingWait) => void): Promise<T>;
}
