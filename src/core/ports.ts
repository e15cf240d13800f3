/** The interfaces core needs from the outside world; node/ and host/ implement them. Git's are in git.ts. */
import type { AgentRecord } from './agent';
import type { AgentError } from './errors';
import type { Disposable, Event } from '../util/event';
import type { PlanRunRecord, WindowId } from './plans';

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

export type {
  AgentProcess,
  AgentRunner,
  LaunchRequest,
  LiveProcess,
  LiveRuns,
  ProcessExit,
  RunLocation,
} from './processPorts';

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
