/** What the warm worktree pool (worktreePool.ts) needs from git and the disk; node/ implements both. */
import type { Disposable } from '../../util/event';

/** What a pool entry's side file (`<entry>.json`) says. */
export interface PoolMeta {
  /** 'filling': being checked out, copied into and set up; only 'ready' entries are taken. */
  readonly state: 'filling' | 'ready';
  /** The commit the entry's detached HEAD is at. */
  readonly head: string;
  /** Settings and include files the entry was prepared with (see WorktreePool.fingerprint). */
  readonly fingerprint: string;
  /** The `.worktreeinclude` files copied into it, relative to the repository. */
  readonly includes: readonly string[];
  /** Bytes its files take on disk, once ready. */
  readonly bytes?: number;
}

export interface PoolEntryInfo {
  /** Absolute folder of the entry's worktree. */
  readonly dir: string;
  /** Undefined when the side file is missing or unreadable (a leftover), or the entry is claimed. */
  readonly meta?: PoolMeta;
  /** Another process (window) took the entry for a dispatch and has not finished with it. */
  readonly claimed: boolean;
  /** The process that wrote a 'filling' side file still lives (another window fills it). */
  readonly fillerAlive: boolean;
}

export interface PoolGit {
  /** The commit HEAD of the repository's main worktree is at. */
  head(repoRoot: string): Promise<string>;
  /** A detached worktree at `sha` in `dir`, registered on the write queue, its files written at low priority. */
  addDetached(repoRoot: string, dir: string, sha: string): Promise<void>;
  /** Moves the detached worktree in `dir` to `sha`, touching only the files that differ (low priority). */
  moveDetached(dir: string, sha: string): Promise<void>;
  /**
   * Makes the pool entry in `dir` the agent's worktree: moved to `target`, branch `branch` created at
   * `sha` and checked out there, verified against the registry. On failure nothing is left: no
   * folder at `target`, no branch, no registration.
   */
  takeInto(repoRoot: string, dir: string, target: string, branch: string, sha: string): Promise<void>;
  /** Removes a pool worktree, its registration and its files (forced: nothing in it is anyone's work). */
  removeEntry(repoRoot: string, dir: string): Promise<void>;
  /** Resolves once the files of the entries removed so far are deleted (they go in the background). */
  whenRemoved(): Promise<void>;
}

export interface PoolDisk {
  /** The entries in a pool folder ([] when it does not exist). */
  list(poolDir: string): Promise<PoolEntryInfo[]>;
  writeMeta(dir: string, meta: PoolMeta): Promise<void>;
  /** Atomically claims a ready entry for one dispatch; false when another dispatch (window) was first. */
  claim(dir: string): Promise<boolean>;
  /** Removes the entry's side files. */
  dropMeta(dir: string): Promise<void>;
  /** Sizes and modification times of files under `root` ('' for missing ones), as one string. */
  stamp(root: string, relPaths: readonly string[]): Promise<string>;
  /** The end of the setup command's output in the entry `dir` ('' when none). */
  readSetupLog(dir: string): Promise<string>;
  /** Bytes the files under `dir` take. */
  bytes(dir: string): Promise<number>;
  /** Runs the setup command (argv, no shell) in `cwd` at low priority, output to `logPath`; true on success. */
  runSetup(argv: readonly string[], cwd: string, logPath: string): Promise<boolean>;
  /**
   * Keeps the per-user list of pool folders that the extension's uninstall script removes:
   * `present` adds the folder, else it is dropped.
   */
  remember(repoRoot: string, poolDir: string, present: boolean): Promise<void>;
  /** Calls `onMove` when the repository's HEAD moves (a commit, checkout or reset); undefined when it cannot watch. */
  watchHead(repoRoot: string, onMove: () => void): Disposable | undefined;
}
