import { uniqueSlug } from '../naming';
import { AgentError, isDiskFull } from '../errors';
import type { RefGit, WorktreeGit } from '../git';
import type { FileSystemPort, ManagerSettings } from '../ports';
import { SerialQueue } from '../../util/async';
import { baseName, joinPath, parentDir } from '../../util/paths';
import type { WorktreePool } from './worktreePool';

export interface ReservedWorktree {
  readonly worktreePath: string;
  readonly branch: string;
  /** Frees the name once the worktree exists (or its creation failed). */
  release(): void;
}

/**
 * Picks worktree folders and branch names that are free on disk, in git and among reservations
 * not yet created, one reservation at a time, so simultaneous dispatches never pick the same name.
 */
export class WorktreeNames {
  private readonly queue = new SerialQueue();
  private readonly reserved = new Set<string>();

  constructor(
    private readonly git: Pick<RefGit, 'localBranches'>,
    private readonly fs: FileSystemPort,
  ) {}

  static rootFor(repoRoot: string, settings: ManagerSettings): string {
    return settings.worktreeRoot ?? joinPath(parentDir(repoRoot), `${baseName(repoRoot)}.worktrees`);
  }

  /**
   * `branches`: the local branch names under the prefix, when the caller has just read them
   * (RefGit.locate); else they are read here. A branch made since then by someone else makes the
   * add fail with branchExists, creating nothing.
   */
  reserve(
    repoRoot: string,
    slug: string,
    settings: ManagerSettings,
    branches?: ReadonlySet<string>,
  ): Promise<ReservedWorktree> {
    return this.queue.run(async () => {
      const root = WorktreeNames.rootFor(repoRoot, settings);
      const taken = branches ?? (await this.git.localBranches(repoRoot));
      const occupied = new Set<string>();
      for (;;) {
        const candidate = uniqueSlug(
          slug,
          (s) => occupied.has(s) || taken.has(`${settings.branchPrefix}/${s}`) || this.reserved.has(joinPath(root, s)),
        );
        const worktreePath = joinPath(root, candidate);
        if (await this.fs.exists(worktreePath)) {
          occupied.add(candidate);
          continue;
        }
        this.reserved.add(worktreePath);
        return {
          worktreePath,
          branch: `${settings.branchPrefix}/${candidate}`,
          release: () => this.reserved.delete(worktreePath),
        };
      }
    });
  }
}

/**
 * Creates a reserved worktree and its branch at `baseSha`, and the folder that holds the worktrees.
 * With a pool, a warm worktree is taken when one fits: true then (it is prepared and set up already).
 */
export async function createWorktree(
  fs: FileSystemPort,
  git: Pick<WorktreeGit, 'addWorktree'>,
  repoRoot: string,
  reserved: ReservedWorktree,
  baseSha: string,
  pool?: Pick<WorktreePool, 'take'>,
  onCheckout?: () => void,
): Promise<boolean> {
  if (pool && (await pool.take(repoRoot, reserved.worktreePath, reserved.branch, baseSha))) {
    return true;
  }
  await makeRoot(fs, reserved.worktreePath);
  await git.addWorktree(repoRoot, reserved.worktreePath, reserved.branch, baseSha, onCheckout);
  return false;
}

/** Creates a worktree at a reserved path on an existing `branch` (no new branch), and the folder that holds it. */
export async function createWorktreeOnBranch(
  fs: FileSystemPort,
  git: Pick<WorktreeGit, 'checkoutWorktree'>,
  repoRoot: string,
  worktreePath: string,
  branch: string,
): Promise<void> {
  await makeRoot(fs, worktreePath);
  await git.checkoutWorktree(repoRoot, worktreePath, branch);
}

async function makeRoot(fs: FileSystemPort, worktreePath: string): Promise<void> {
  const root = parentDir(worktreePath);
  await fs.mkdirp(root).catch((e: unknown) => {
    const why = e instanceof Error ? e.message : String(e);
    if (isDiskFull(why)) {
      throw new AgentError('worktreeRootDiskFull', { path: root }, why);
    }
    throw new AgentError('worktreeRootNotCreated', { path: root }, why);
  });
}
