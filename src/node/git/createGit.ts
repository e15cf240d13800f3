/** Builds the one git object of the extension: every domain on one GitRunner. */
import type { ChangedFile } from '../../core/agent';
import type {
  AgentsForecast,
  Git,
  GitRefInfo,
  GitRemote,
  MergeForecast,
  MergeOutcome,
  MergeStrategy,
  RepositoryLocation,
  SavedWork,
  WorkState,
  WorktreeEntry,
} from '../../core/git';
import { ChangeFreshness } from './changeFreshness';
import { Changes } from './changes';
import type { MergeTreeSupport } from './forecast';
import { Landing } from './landing';
import { Refs } from './refs';
import { Remotes } from './remotes';
import { GitRunner, type GitRunnerOptions } from './runner';
import { Snapshots } from './snapshots';
import { commitSnapshotOnto, rebaseOnto, settleOnto } from './stack';
import { WorktreeMerge } from './worktreeMerge';
import { Worktrees, type WorktreeCheckout } from './worktrees';

export interface CreateGitOptions extends GitRunnerOptions {
  /** Shares the process cap and write queues of another git object; the runner options are then ignored. */
  readonly runner?: GitRunner;
  /** How merges are forecast; detected from `git version` when absent. Tests force the fallbacks with it. */
  readonly mergeTree?: MergeTreeSupport;
  /** How new worktrees are checked out; detected from `git version` when absent. Tests force 'inline' with it. */
  readonly worktreeCheckout?: WorktreeCheckout;
}

type Pair = readonly (readonly [string, string])[];

/** Git, by domain; a class so a test can count the calls of one method by overriding it. */
export class NodeGit implements Git {
  readonly runner: GitRunner;
  /** Which worktrees' change sets may still be current (see changeFreshness.ts). */
  readonly freshness = new ChangeFreshness();
  private readonly worktrees: Worktrees;
  private readonly refs: Refs;
  private readonly changes: Changes;
  private readonly landing: Landing;
  private readonly snapshots: Snapshots;
  private readonly remoteGit: Remotes;
  private readonly worktreeMerge: WorktreeMerge;

  constructor(options: CreateGitOptions = {}) {
    this.runner = options.runner ?? new GitRunner(options);
    this.worktrees = new Worktrees(this.runner, options.worktreeCheckout);
    this.refs = new Refs(this.runner);
    this.changes = new Changes(this.runner, this.freshness);
    this.landing = new Landing(this.runner, options.mergeTree);
    this.snapshots = new Snapshots(this.runner);
    this.remoteGit = new Remotes(this.runner);
    this.worktreeMerge = new WorktreeMerge(this.runner);
  }

  // WorktreeGit
  addWorktree(repoRoot: string, dir: string, branch: string, baseSha: string, onCheckout?: () => void): Promise<void> {
    return this.worktrees.addWorktree(repoRoot, dir, branch, baseSha, onCheckout);
  }
  checkoutWorktree(repoRoot: string, dir: string, branch: string): Promise<void> {
    return this.worktrees.checkoutWorktree(repoRoot, dir, branch);
  }
  removeWorktree(repoRoot: string, dir: string, force: boolean): Promise<void> {
    return this.worktrees.removeWorktree(repoRoot, dir, force);
  }
  /** Resolves once the files of every worktree force-removed so far are deleted (they go in the background). */
  whenFilesDeleted(): Promise<void> {
    return this.worktrees.whenFilesDeleted();
  }
  listWorktrees(repoRoot: string): Promise<WorktreeEntry[]> {
    return this.worktrees.listWorktrees(repoRoot);
  }
  pruneWorktree(repoRoot: string, dir: string): Promise<void> {
    return this.worktrees.pruneWorktree(repoRoot, dir);
  }
  worktreeIncludes(repoRoot: string): Promise<string[]> {
    return this.worktrees.worktreeIncludes(repoRoot);
  }
  isIgnored(cwd: string, relPath: string): Promise<boolean> {
    return this.worktrees.isIgnored(cwd, relPath);
  }
  excludeLocally(cwd: string, relPath: string): Promise<void> {
    return this.worktrees.excludeLocally(cwd, relPath);
  }
  initSubmodules(worktree: string): Promise<string> {
    return this.worktrees.initSubmodules(worktree);
  }

  // RefGit
  locate(folder: string, rev: string | undefined, branchPrefix: string): Promise<RepositoryLocation> {
    return this.refs.locate(folder, rev, branchPrefix);
  }
  repoRoot(folder: string): Promise<string> {
    return this.refs.repoRoot(folder);
  }
  headSha(repoRoot: string): Promise<string> {
    return this.refs.headSha(repoRoot);
  }
  resolveCommit(repoRoot: string, ref: string): Promise<string> {
    return this.refs.resolveCommit(repoRoot, ref);
  }
  localBranches(repoRoot: string): Promise<Set<string>> {
    return this.refs.localBranches(repoRoot);
  }
  currentBranch(cwd: string): Promise<string | undefined> {
    return this.refs.currentBranch(cwd);
  }
  deleteBranch(repoRoot: string, branch: string, force: boolean): Promise<void> {
    return this.refs.deleteBranch(repoRoot, branch, force);
  }
  listRefs(repoRoot: string, prefixes: readonly string[]): Promise<GitRefInfo[]> {
    return this.refs.listRefs(repoRoot, prefixes);
  }
  mergeBase(repoRoot: string, a: string, b: string): Promise<string | undefined> {
    return this.refs.mergeBase(repoRoot, a, b);
  }
  deleteRef(repoRoot: string, ref: string): Promise<void> {
    return this.refs.deleteRef(repoRoot, ref);
  }

  // ChangeGit
  changeSet(cwd: string, baseSha: string): Promise<ChangedFile[]> {
    return this.changes.changeSet(cwd, baseSha);
  }
  changeSetOf(cwd: string, baseSha: string, paths: readonly string[]): Promise<ChangedFile[]> {
    return this.changes.changeSetOf(cwd, baseSha, paths);
  }
  showFile(repoRoot: string, sha: string, path: string): Promise<Uint8Array | undefined> {
    return this.changes.showFile(repoRoot, sha, path);
  }

  showFiles(repoRoot: string, sha: string, paths: readonly string[]): Promise<(Uint8Array | undefined)[]> {
    return this.changes.showFiles(repoRoot, sha, paths);
  }
  workState(cwd: string, baseSha: string): Promise<WorkState> {
    return this.changes.workState(cwd, baseSha);
  }
  contentTree(cwd: string): Promise<string> {
    return this.changes.contentTree(cwd);
  }

  dirtyFiles(cwd: string): Promise<string[]> {
    return this.changes.dirtyFiles(cwd);
  }
  changedBetween(repoRoot: string, from: string, to: string): Promise<string[]> {
    return this.changes.changedBetween(repoRoot, from, to);
  }
  commitAll(cwd: string, message: string): Promise<string | undefined> {
    return this.changes.commitAll(cwd, message);
  }
  hashFiles(cwd: string, paths: readonly string[]): Promise<(string | undefined)[]> {
    return this.changes.hashFiles(cwd, paths);
  }

  // LandingGit
  forecastMerge(repoRoot: string, ours: string, theirs: string): Promise<MergeForecast> {
    return this.landing.forecastMerge(repoRoot, ours, theirs);
  }
  forecastMany(repoRoot: string, pairs: Pair): Promise<MergeForecast[]> {
    return this.landing.forecastMany(repoRoot, pairs);
  }
  forecastAgents(repoRoot: string, into: string, branches: readonly string[]): Promise<AgentsForecast> {
    return this.landing.forecastAgents(repoRoot, into, branches);
  }
  land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string): Promise<MergeOutcome> {
    return this.landing.land(cwd, agentCwd, branch, strategy, message);
  }
  mergeLeavingConflicts(
    cwd: string,
    ref: string,
    message?: string,
  ): Promise<{ readonly conflicts: readonly string[] }> {
    return this.landing.mergeLeavingConflicts(cwd, ref, message);
  }
  isMergedByContent(repoRoot: string, branch: string, into: string): Promise<boolean> {
    return this.landing.isMergedByContent(repoRoot, branch, into);
  }
  restoreFile(cwd: string, sha: string, path: string): Promise<void> {
    return this.landing.restoreFile(cwd, sha, path);
  }
  stashFiles(cwd: string, files: readonly string[], message: string): Promise<void> {
    return this.landing.stashFiles(cwd, files, message);
  }

  // ConflictGit
  mergeInProgress(cwd: string): Promise<boolean> {
    return this.worktreeMerge.mergeInProgress(cwd);
  }
  abortMerge(cwd: string): Promise<void> {
    return this.worktreeMerge.abortMerge(cwd);
  }
  worktreeTexts(cwd: string, paths: readonly string[], maxBytes: number): Promise<(string | undefined)[]> {
    return this.worktreeMerge.worktreeTexts(cwd, paths, maxBytes);
  }

  // StackGit
  rebaseOnto(cwd: string, oldBase: string, newBase: string): Promise<void> {
    return rebaseOnto(this.runner, cwd, oldBase, newBase);
  }
  commitSnapshotOnto(cwd: string, snapshot: string, onto: string, message: string): Promise<string> {
    return commitSnapshotOnto(this.runner, cwd, snapshot, onto, message);
  }
  settleOnto(cwd: string, base: string, message?: string): Promise<void> {
    return settleOnto(this.runner, cwd, base, message);
  }

  // SnapshotGit
  saveWork(cwd: string, ref: string, message: string): Promise<SavedWork> {
    return this.snapshots.saveWork(cwd, ref, message);
  }
  saveBranch(repoRoot: string, branch: string, ref: string, message: string): Promise<SavedWork> {
    return this.snapshots.saveBranch(repoRoot, branch, ref, message);
  }
  restoreWork(repoRoot: string, dir: string, branch: string, ref: string): Promise<void> {
    return this.snapshots.restoreWork(repoRoot, dir, branch, ref);
  }
  listSavedWork(repoRoot: string, prefix: string): Promise<SavedWork[]> {
    return this.snapshots.listSavedWork(repoRoot, prefix);
  }

  // RemoteGit
  remotes(repoRoot: string): Promise<GitRemote[]> {
    return this.remoteGit.remotes(repoRoot);
  }
  upstreamRemote(repoRoot: string, branch: string): Promise<string | undefined> {
    return this.remoteGit.upstreamRemote(repoRoot, branch);
  }
  push(repoRoot: string, remote: string, branch: string, signal?: AbortSignal): Promise<void> {
    return this.remoteGit.push(repoRoot, remote, branch, signal);
  }
  fetchPullRequest(repoRoot: string, remote: string, number: number): Promise<string> {
    return this.remoteGit.fetchPullRequest(repoRoot, remote, number);
  }
}

export function createGit(options: CreateGitOptions = {}): NodeGit {
  return new NodeGit(options);
}
