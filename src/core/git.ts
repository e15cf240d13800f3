/**
 * What core asks of git, cut by domain: worktrees, refs and branches, changes, landing, snapshots,
 * remotes. Each consumer takes the interfaces (or the methods, with Pick) it needs; src/node/git
 * implements them all in one object (createGit). Implementations run writes on one repository one
 * at a time and set GIT_OPTIONAL_LOCKS=0 on background reads. Failures are AgentErrors with reasons
 * notGitRepository, noCommits, gitNotFound, worktreeFailed, gitFailed or diskFull.
 */
import type { ChangedFile } from './agent';

/** One entry of `git worktree list --porcelain -z`. */
export interface WorktreeEntry {
  readonly path: string;
  /** Full sha of the worktree's HEAD; absent for a bare repository or an unborn branch. */
  readonly head?: string;
  /** Full ref name, e.g. "refs/heads/agents/fix-bug"; absent when detached. */
  readonly branch?: string;
  readonly bare: boolean;
  readonly detached: boolean;
  /** Set (possibly to '') when locked; the reason git gives, e.g. "initializing". */
  readonly locked?: string;
  /** Set (possibly to '') when git would prune it, e.g. because its folder is gone. */
  readonly prunable?: string;
}

export interface GitRefInfo {
  /** Full ref name, e.g. refs/heads/agents/fix-bug or refs/parallel-agents/saved/ab12cd34. */
  readonly name: string;
  readonly sha: string;
  /** First parent, for commits that have one. */
  readonly parent?: string;
}

export interface WorkState {
  /** Tracked files with changes plus untracked files in the worktree. */
  readonly uncommittedFiles: number;
  /** Commits on the agent's branch that the base commit does not contain. */
  readonly commitsAhead: number;
}

export type MergeStrategy = 'merge' | 'squash' | 'rebase';

export interface MergeForecast {
  readonly clean: boolean;
  /** Paths (relative to the repository) that would conflict. */
  readonly conflicts: readonly string[];
}

export interface AgentsForecast {
  /** Each branch merged into `into`, in the order given. */
  readonly landing: readonly MergeForecast[];
  /** Each pair of branches, in the order (0, 1), (0, 2), …, (1, 2), …: the two merged into `into`, merged together. */
  readonly pairs: readonly MergeForecast[];
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

export interface GitRemote {
  readonly name: string;
  /** As configured; may hold credentials (`https://user:token@host/…`): redact it before showing or logging it. */
  readonly url: string;
}

/** Worktrees: creating, listing, removing them, and what a new one gets from the main one. */
export interface WorktreeGit {
  /**
   * `git worktree add -b branch dir baseSha`, verified against the registry; branchExists when the
   * branch exists (nothing is created). Its files may be checked out outside the repository's write
   * queue, in parallel with other new worktrees.
   */
  addWorktree(repoRoot: string, dir: string, branch: string, baseSha: string, onCheckout?: () => void): Promise<void>;
  /** `git worktree add dir branch` for an existing branch, verified against the registry. */
  checkoutWorktree(repoRoot: string, dir: string, branch: string): Promise<void>;
  /**
   * Removes a worktree registration and folder (force allows dirty content), then prunes. Forced,
   * the folder is renamed aside at once and its files deleted in the background.
   */
  removeWorktree(repoRoot: string, dir: string, force: boolean): Promise<void>;
  /** `git worktree list --porcelain -z`, the main worktree first. */
  listWorktrees(repoRoot: string): Promise<WorktreeEntry[]>;
  /**
   * Drops the registration of one worktree whose folder is gone: what `git worktree prune` does,
   * for that entry only, so a user's own stale entries are left alone. Refuses a folder that exists.
   */
  pruneWorktree(repoRoot: string, dir: string): Promise<void>;
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

/** Where a dispatch starts: see RefGit.locate. */
export interface RepositoryLocation {
  /** Top-level folder of the repository containing the folder. */
  readonly repoRoot: string;
  /** Full sha of the commit asked for. */
  readonly sha: string;
  /** Local branches under the prefix asked for (short names, e.g. "agents/fix-bug"). */
  readonly branches: ReadonlySet<string>;
}

/** Refs and branches. */
export interface RefGit {
  /**
   * What a dispatch needs to know, from one git process: the repository containing `folder`, the
   * commit `rev` names there (HEAD when undefined; noCommits or unknownCommit when none) and the
   * local branches under `branchPrefix`/.
   */
  locate(folder: string, rev: string | undefined, branchPrefix: string): Promise<RepositoryLocation>;
  /** Top-level folder of the repository containing `folder`. */
  repoRoot(folder: string): Promise<string>;
  /** Full sha of HEAD. */
  headSha(repoRoot: string): Promise<string>;
  /** Full sha of the commit a ref (branch, tag, sha) names; gitFailed when it names none. */
  resolveCommit(repoRoot: string, ref: string): Promise<string>;
  /** Local branch names (short form, e.g. "agents/fix-bug"). */
  localBranches(repoRoot: string): Promise<Set<string>>;
  /** Branch checked out in `cwd`; undefined when HEAD is detached. */
  currentBranch(cwd: string): Promise<string | undefined>;
  deleteBranch(repoRoot: string, branch: string, force: boolean): Promise<void>;
  /** Refs under the given prefixes (full names, e.g. refs/heads/), with their tips and first parents. */
  listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]>;
  /** Merge base of two commits; undefined when they share no history. */
  mergeBase(repoRoot: string, a: string, b: string): Promise<string | undefined>;
  deleteRef(repoRoot: string, ref: string): Promise<void>;
}

/** What changed in a worktree: change sets, file contents, status; and committing it. */
export interface ChangeGit {
  /** What changed in `cwd` relative to `baseSha`: committed, uncommitted and untracked; renames detected. */
  changeSet(cwd: string, baseSha: string): Promise<ChangedFile[]>;
  /** The change set of `paths` alone (relative to `cwd`, taken literally; a folder covers what is under it). */
  changeSetOf?(cwd: string, baseSha: string, paths: readonly string[]): Promise<ChangedFile[]>;
  /** Contents of `path` at `sha`, or undefined when the file does not exist there. */
  showFile(repoRoot: string, sha: string, path: string): Promise<Uint8Array | undefined>;
  /** The same for many paths at one commit, in one git process; in the order of `paths`. */
  showFiles(repoRoot: string, sha: string, paths: readonly string[]): Promise<(Uint8Array | undefined)[]>;
  workState(cwd: string, baseSha: string): Promise<WorkState>;
  /** Paths (relative to `cwd`) with uncommitted changes, untracked included. */
  dirtyFiles(cwd: string): Promise<string[]>;
  /** Paths changed between two commits (relative to the repository). */
  changedBetween(repoRoot: string, from: string, to: string): Promise<string[]>;
  /**
   * The git tree of `cwd`'s worktree as it is (tracked, untracked but not ignored, uncommitted
   * edits): equal trees mean equal content. Touches neither the index nor the files.
   */
  contentTree(cwd: string): Promise<string>;
  /** Stages everything in `cwd` (untracked included) and commits; undefined when nothing changed. */
  commitAll(cwd: string, message: string): Promise<string | undefined>;
  /** The git blob hash of each file (relative to `cwd`) as it is on disk; undefined for a missing one. */
  hashFiles(cwd: string, paths: readonly string[]): Promise<(string | undefined)[]>;
}

/** Landing an agent's work: forecasts, merges, accepting single files. */
export interface LandingGit {
  /** Would merging `theirs` into `ours` conflict? Touches no worktree (merge-tree --write-tree). */
  forecastMerge(repoRoot: string, ours: string, theirs: string): Promise<MergeForecast>;
  /** Many forecasts in one git process where git allows it (merge-tree --stdin). */
  forecastMany(repoRoot: string, pairs: readonly (readonly [string, string])[]): Promise<MergeForecast[]>;
  /**
   * Forecast Conflicts: each of `branches` merged into `into`, and each pair of them as they would be
   * once both are merged into `into` (so changes `into` made after a branch started are on both
   * sides). One merge-tree batch, and a second only to check pairs whose tips conflict.
   */
  forecastAgents(repoRoot: string, into: string, branches: readonly string[]): Promise<AgentsForecast>;
  /**
   * Lands `branch` on the branch checked out in `cwd` (the main worktree). merge: --no-ff commit;
   * squash: one commit with `message`; rebase: the agent branch is rebased onto the current branch
   * inside `agentCwd`, then fast-forwarded. On conflicts everything is aborted and left as before.
   */
  land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string): Promise<MergeOutcome>;
  /**
   * Merges `ref` into the branch of `cwd` and leaves any conflicts in place for the merge editor; a
   * clean merge is committed (with `message` when given, else git's own).
   */
  mergeLeavingConflicts(cwd: string, ref: string, message?: string): Promise<{ readonly conflicts: readonly string[] }>;
  /** Whether `into` already holds `branch`'s content (so squash- and rebase-merges count). */
  isMergedByContent(repoRoot: string, branch: string, into: string): Promise<boolean>;
  /** Sets `path` in the worktree to its content at `sha`, deleting it when absent there. */
  restoreFile(cwd: string, sha: string, path: string): Promise<void>;
  /** Stashes the user's own uncommitted changes to `files` in the main worktree (untracked included). */
  stashFiles(cwd: string, files: readonly string[], message: string): Promise<void>;
}

/** Work parked as commits on private refs, and brought back. */
export interface SnapshotGit {
  /**
   * Saves the worktree exactly as it is (uncommitted and untracked files included) as a commit on
   * top of HEAD, without touching the index or the files, and points `ref` at it.
   */
  saveWork(cwd: string, ref: string, message: string): Promise<SavedWork>;
  /** Points `ref` at a snapshot of `branch`'s tip (same tree, parent = tip): saved work for a worktree that is gone. */
  saveBranch(repoRoot: string, branch: string, ref: string, message: string): Promise<SavedWork>;
  /** Recreates a worktree at `dir` on `branch` with the files of a saved snapshot, byte for byte. */
  restoreWork(repoRoot: string, dir: string, branch: string, ref: string): Promise<void>;
  listSavedWork(repoRoot: string, prefix: string): Promise<SavedWork[]>;
}

/** Remotes, and publishing a branch to one. */
export interface RemoteGit {
  /** The configured remotes with their (fetch) URLs, in the order git lists them. */
  remotes(repoRoot: string): Promise<GitRemote[]>;
  /** The remote of `branch`'s upstream (`branch.<name>.remote`); undefined when it has none. */
  upstreamRemote(repoRoot: string, branch: string): Promise<string | undefined>;
  /**
   * `git push --set-upstream <remote> <branch>`, never prompting on a terminal; its failures carry
   * git's stderr with the credentials of URLs hidden. `signal` ends the push (AgentError cancelled).
   */
  push(repoRoot: string, remote: string, branch: string, signal?: AbortSignal): Promise<void>;
  /**
   * Fetches `refs/pull/<number>/head` from `remote`, never prompting on a terminal; the full sha of
   * its commit, whose objects are then in the repository. No ref is left behind; pullRequestNotFound
   * when the remote has no such ref.
   */
  fetchPullRequest(repoRoot: string, remote: string, number: number): Promise<string>;
}

/** A merge left in progress in an agent's worktree (Ask Agent to Resolve Conflicts). */
export interface ConflictGit {
  /** Whether a merge is in progress in `cwd` (MERGE_HEAD exists). */
  mergeInProgress(cwd: string): Promise<boolean>;
  /** `git merge --abort` in `cwd` when a merge is in progress; nothing otherwise. */
  abortMerge(cwd: string): Promise<void>;
  /**
   * The text of each file (relative to the top of `cwd`'s worktree) as it is on disk, conflict
   * markers included; undefined for a missing or binary file. Longer files are cut at `maxBytes`.
   */
  worktreeTexts(cwd: string, paths: readonly string[], maxBytes: number): Promise<(string | undefined)[]>;
}

/** Stacked agents: an agent's work moved onto a newer snapshot of its parent's worktree. */
export interface StackGit {
  /**
   * Moves the worktree at `cwd` from `oldBase` to `newBase`: its commits since `oldBase` replayed on
   * `newBase`, its uncommitted changes carried. Refused, nothing changed, on a conflict
   * (rebaseOnParentConflict) or with both commits and uncommitted changes (rebaseOnParentUncommitted).
   */
  rebaseOnto(cwd: string, oldBase: string, newBase: string): Promise<void>;
  /** A commit with the files of `snapshot` and the parent `onto` (a parent's newer work after a child's base). */
  commitSnapshotOnto(cwd: string, snapshot: string, onto: string, message: string): Promise<string>;
  /**
   * Moves the branch of `cwd` to `base` keeping every file: the difference left uncommitted
   * (`message` undefined) or made one commit on `base`.
   */
  settleOnto(cwd: string, base: string, message?: string): Promise<void>;
}

export type Git = WorktreeGit & RefGit & ChangeGit & LandingGit & SnapshotGit & RemoteGit & StackGit & ConflictGit;

/** What preparing a new worktree asks: which ignored files it gets, local excludes, submodules. */
export type WorktreeSetupGit = Pick<
  WorktreeGit,
  'worktreeIncludes' | 'isIgnored' | 'excludeLocally' | 'initSubmodules'
>;
