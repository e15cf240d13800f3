/**
 * Dispatch Agent on Branch: where an agent on an existing branch or a pull request starts. An
 * existing branch must exist and be checked out in no worktree (git allows a branch in one only);
 * the worktree then checks it out and its head is the agent's base. A pull request's head is
 * fetched from its remote (refs/pull/<n>/head) and is the base of a new branch, as for any agent.
 * Everything here is read or fetched before the dispatch creates anything.
 */
import { AgentError } from '../errors';
import type { RefGit, RemoteGit, RepositoryLocation, WorktreeGit } from '../git';
import { slugify } from '../naming';
import type { FileSystemPort } from '../ports';
import { type ReservedWorktree, type WorktreePool, createWorktree, createWorktreeOnBranch } from '../worktrees';
import { toForwardSlashes } from '../../util/paths';
import type { DispatchOptions, DispatchStart } from './managerDeps';

type StartGit = Pick<RefGit, 'locate'> &
  Pick<WorktreeGit, 'listWorktrees'> &
  Pick<RemoteGit, 'remotes' | 'fetchPullRequest'>;

export interface StartPoint {
  /** The repository; `sha` is the agent's base: HEAD or `base`, the branch's head, or the pull request's head. */
  readonly located: RepositoryLocation;
  /** The existing branch the worktree checks out; undefined: a new branch is made at the base. */
  readonly existingBranch?: string;
  /** What the worktree folder (and a new branch) is named after, before it is made unique; default: the title. */
  readonly slug?: string;
}

/** Where the dispatch starts; without `options.start`, at `options.base` (HEAD by default) on a new branch. */
export async function locateStart(
  git: StartGit,
  options: Pick<DispatchOptions, 'folder' | 'base' | 'start'>,
  isolation: 'worktree' | 'terminal',
  branchPrefix: string,
): Promise<StartPoint> {
  const start = options.start;
  if (!start) {
    return { located: await git.locate(options.folder, options.base || undefined, branchPrefix) };
  }
  if (isolation !== 'worktree') {
    throw new AgentError('startNeedsWorktree', {});
  }
  return 'branch' in start
    ? onBranch(git, options.folder, start.branch, branchPrefix)
    : onPullRequest(git, options.folder, start, branchPrefix);
}

async function onBranch(git: StartGit, folder: string, name: string, branchPrefix: string): Promise<StartPoint> {
  const branch = name.trim().replace(/^refs\/heads\//, '');
  if (!isBranchName(branch)) {
    // `main~1` or `v1^{tree}` would name a commit, not a branch: no branch can be called so.
    throw new AgentError('branchNotFound', { branch, repoRoot: folder });
  }
  const located = await git.locate(folder, `refs/heads/${branch}`, branchPrefix).catch((e: unknown) => {
    if (AgentError.isCode(e, 'unknownCommit')) {
      throw new AgentError('branchNotFound', { branch, repoRoot: e.data.repoRoot }, e.detail);
    }
    throw e;
  });
  const worktrees = await git.listWorktrees(located.repoRoot);
  const at = worktrees.findIndex((w) => w.branch === `refs/heads/${branch}`);
  if (at >= 0) {
    const path = worktrees[at].path;
    const where = samePath(path, located.repoRoot) ? 'current' : at === 0 ? 'main' : 'other';
    throw new AgentError('branchCheckedOut', { branch, path, where });
  }
  return { located, existingBranch: branch, slug: slugify(branch) };
}

async function onPullRequest(
  git: StartGit,
  folder: string,
  start: Extract<DispatchStart, { pullRequest: number }>,
  branchPrefix: string,
): Promise<StartPoint> {
  const number = start.pullRequest;
  if (!Number.isSafeInteger(number) || number <= 0) {
    throw new AgentError('invalidPullRequest', { value: String(number) });
  }
  const located = await git.locate(folder, undefined, branchPrefix);
  const remotes = await git.remotes(located.repoRoot);
  const wanted = start.remote ?? 'origin';
  // Without a remote asked for, a repository's only remote is as good as origin.
  const remote =
    remotes.find((r) => r.name === wanted) ??
    (start.remote === undefined && remotes.length === 1 ? remotes[0] : undefined);
  if (!remote) {
    const names = remotes.map((r) => r.name);
    throw new AgentError('pullRequestNoRemote', { number, repoRoot: located.repoRoot, remote: wanted, remotes: names });
  }
  const sha = await git.fetchPullRequest(located.repoRoot, remote.name, number);
  return { located: { ...located, sha }, slug: `pr-${number}` };
}

/**
 * Makes the reserved worktree: on the existing branch when there is one (never warm: a pool's
 * worktrees are made on new branches), else a new branch at `baseSha` (createWorktree). True when warm.
 * `start.onCheckout` runs once a new worktree's files are being checked out (not for a warm one).
 */
export async function makeWorktree(
  fs: FileSystemPort,
  git: Pick<WorktreeGit, 'addWorktree' | 'checkoutWorktree'>,
  repoRoot: string,
  reserved: ReservedWorktree,
  start: { readonly baseSha: string; readonly existingBranch?: string; readonly onCheckout?: () => void },
  pool?: Pick<WorktreePool, 'take'>,
): Promise<boolean> {
  if (start.existingBranch) {
    await createWorktreeOnBranch(fs, git, repoRoot, reserved.worktreePath, start.existingBranch);
    return false;
  }
  return createWorktree(fs, git, repoRoot, reserved, start.baseSha, pool, start.onCheckout);
}

/** What git check-ref-format allows a branch to be called (roughly; git refuses the rest when asked). */
function isBranchName(name: string): boolean {
  return name !== '' && !/[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|^[-/.]|\/\.|\/$|\.lock$|\.$|\/\//.test(name) && name !== '@';
}

function samePath(a: string, b: string): boolean {
  const key = (p: string) => toForwardSlashes(p).replace(/(.)\/+$/, '$1');
  return /^[A-Za-z]:/.test(a) ? key(a).toLowerCase() === key(b).toLowerCase() : key(a) === key(b);
}
