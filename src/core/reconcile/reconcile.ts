/**
 * Reconcile Agents: what is on disk against what the saved state knows. Pure decisions only; the
 * git facts come in through the git interfaces (core/git.ts).
 *
 * What "the extension made" means, precisely: a branch `<prefix>/<slug>` whose slug is one that
 * slugify/uniqueSlug can produce (lowercase ASCII letters and digits in hyphen-separated words;
 * plan integration branches are `<prefix>/plan-<slug>`), and, for a worktree, such a branch checked
 * out in a folder directly inside the extension's worktree root. Anything else is the user's and
 * is never reported, pruned or changed.
 */
import { type AgentRecord, isActive } from '../agent';
import type { GitRefInfo, WorktreeEntry } from '../git';
import { parentDir, toForwardSlashes } from '../../util/paths';

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface ReconcileInput {
  readonly repoRoot: string;
  /** The extension's worktree folder for this repository (WorktreeNames.rootFor). */
  readonly worktreeRoot: string;
  readonly branchPrefix: string;
  /** Every saved agent record; those of other repositories are ignored. */
  readonly records: readonly AgentRecord[];
  readonly worktrees: readonly WorktreeEntry[];
  /** Local branches and saved-work refs. */
  readonly refs: readonly GitRefInfo[];
  /** Worktree folders of this repository's records that exist on disk. */
  readonly existingFolders: ReadonlySet<string>;
  /** Worktrees and branches in use outside the records (live plan runs' integration worktrees). */
  readonly inUse?: { readonly paths: readonly string[]; readonly branches: readonly string[] };
}

export interface Orphan {
  /** 'worktree': a worktree with its branch; 'branch': a branch checked out nowhere. */
  readonly kind: 'worktree' | 'branch';
  readonly repoRoot: string;
  /** Short branch name, e.g. agents/fix-bug. */
  readonly branch: string;
  /** The worktree folder; for a branch orphan, where Adopt would check it out. */
  readonly path: string;
  readonly head: string;
  /** A plan's integration branch (plan-<slug>). */
  readonly plan: boolean;
}

/** Which orphan a command means: its folder, or its branch. */
export interface OrphanKey {
  readonly path?: string;
  readonly branch?: string;
}

export type RestoreSource = 'saved' | 'branch' | 'none';

export interface MissingAgent {
  readonly id: string;
  readonly restoreFrom: RestoreSource;
}

export interface Findings {
  readonly orphans: readonly Orphan[];
  readonly missing: readonly MissingAgent[];
  /** Agents marked missing whose folder is back. */
  readonly reappeared: readonly string[];
  /** Stale registrations (folder gone, not locked) of the extension's own worktrees: to prune. */
  readonly prune: readonly string[];
}

/** Paths compared as git and Node print them: forward slashes, no trailing slash, drive letter case folded. */
export function samePathKey(p: string): string {
  const clean = toForwardSlashes(p).replace(/(.)\/+$/, '$1');
  return /^[A-Za-z]:/.test(clean) ? clean.toLowerCase() : clean;
}

/** The slug of a branch the extension could have made, or undefined for anyone else's branch. */
export function ownSlug(branch: string, prefix: string): string | undefined {
  const head = `${prefix}/`;
  if (!branch.startsWith(head)) {
    return undefined;
  }
  const slug = branch.slice(head.length);
  return slugPattern.test(slug) ? slug : undefined;
}

export function shortBranch(ref: string | undefined): string | undefined {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

export function reconcile(input: ReconcileInput): Findings {
  const root = samePathKey(input.repoRoot);
  const records = input.records.filter((r) => samePathKey(r.repoRoot) === root);
  const knownPaths = new Set([
    // Stryker disable next-line ArrayDeclaration: equivalent, no path git lists is "Stryker was here"
    ...records.flatMap((r) => r.worktreePath ?? []).map(samePathKey),
    // Stryker disable next-line ArrayDeclaration: equivalent, no path git lists is "Stryker was here"
    ...(input.inUse?.paths ?? []).map(samePathKey),
  ]);
  const knownBranches = new Set([
    // Stryker disable next-line ArrayDeclaration: equivalent, no ref name has spaces ("Stryker was here")
    ...records.flatMap((r) => r.branch ?? []),
    // Stryker disable next-line ArrayDeclaration: equivalent, no ref name has spaces ("Stryker was here")
    ...(input.inUse?.branches ?? []),
  ]);
  const worktreeRoot = samePathKey(input.worktreeRoot);
  const underRoot = (p: string) => samePathKey(parentDir(p)) === worktreeRoot;
  const ours = (entry: WorktreeEntry) => {
    const branch = shortBranch(entry.branch);
    return (
      knownPaths.has(samePathKey(entry.path)) ||
      (underRoot(entry.path) && branch !== undefined && ownSlug(branch, input.branchPrefix) !== undefined)
    );
  };
  const linked = input.worktrees.filter((w) => !w.bare && samePathKey(w.path) !== root);
  const prune = linked.filter((w) => w.prunable !== undefined && w.locked === undefined && ours(w)).map((w) => w.path);
  const pruned = new Set(prune.map(samePathKey));
  const checkedOut = new Set(
    // Stryker disable next-line ArrayDeclaration: equivalent, no ref name has spaces ("Stryker was here")
    input.worktrees.filter((w) => !pruned.has(samePathKey(w.path))).flatMap((w) => shortBranch(w.branch) ?? []),
  );
  const orphans: Orphan[] = [];
  // A worktree to prune is prunable: it is never a worktree orphan.
  for (const entry of linked) {
    const branch = shortBranch(entry.branch);
    const slug = branch && ownSlug(branch, input.branchPrefix);
    if (
      branch &&
      slug &&
      entry.prunable === undefined &&
      underRoot(entry.path) &&
      !knownPaths.has(samePathKey(entry.path)) &&
      !knownBranches.has(branch)
    ) {
      orphans.push({
        kind: 'worktree',
        repoRoot: input.repoRoot,
        branch,
        path: entry.path,
        head: entry.head ?? '',
        plan: isPlanSlug(slug),
      });
    }
  }
  const tips = new Map<string, GitRefInfo>(input.refs.map((r) => [r.name, r]));
  for (const ref of input.refs) {
    const branch = shortBranch(ref.name);
    const slug = branch && ownSlug(branch, input.branchPrefix);
    if (branch && slug && !checkedOut.has(branch) && !knownBranches.has(branch)) {
      orphans.push({
        kind: 'branch',
        repoRoot: input.repoRoot,
        branch,
        path: `${toForwardSlashes(input.worktreeRoot).replace(/\/+$/, '')}/${slug}`,
        head: ref.sha,
        plan: isPlanSlug(slug),
      });
    }
  }
  const { missing, reappeared } = missingAgents(records, input.existingFolders, tips);
  return { orphans, missing, reappeared, prune };
}

function isPlanSlug(slug: string): boolean {
  return slug.startsWith('plan-');
}

function missingAgents(
  records: readonly AgentRecord[],
  existing: ReadonlySet<string>,
  refs: ReadonlyMap<string, GitRefInfo>,
) {
  const present = new Set([...existing].map(samePathKey));
  const missing: MissingAgent[] = [];
  const reappeared: string[] = [];
  for (const r of records) {
    if (r.isolation !== 'worktree' || !r.worktreePath || r.worktreePresent === false || isActive(r.status)) {
      continue;
    }
    const there = present.has(samePathKey(r.worktreePath));
    if (!there) {
      missing.push({ id: r.id, restoreFrom: restoreSource(r, refs) });
    } else if (r.worktreeMissing) {
      reappeared.push(r.id);
    }
  }
  return { missing, reappeared };
}

/**
 * Saved work wins when it was taken on top of the branch's current tip (it also holds the
 * uncommitted files of that time) or when the branch is gone; otherwise the branch's commits are
 * the newest thing left.
 */
export function restoreSource(record: AgentRecord, refs: ReadonlyMap<string, GitRefInfo>): RestoreSource {
  const saved = record.savedRef ? refs.get(record.savedRef) : undefined;
  const tip = record.branch ? refs.get(`refs/heads/${record.branch}`) : undefined;
  if (saved && (!tip || saved.parent === tip.sha)) {
    return 'saved';
  }
  return tip ? 'branch' : 'none';
}
