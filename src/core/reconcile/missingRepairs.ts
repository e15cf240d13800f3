/**
 * The two repairs of an agent whose worktree folder is gone (found missing by a Reconcile pass):
 * restore the folder, from its saved work when that is newest, else on its branch; or forget the
 * agent, its branch's commits first kept under refs/parallel-agents/saved/<id>.
 */
import { type AgentRecord, isActive } from '../agent';
import type { AgentManager } from '../agents';
import { AgentError } from '../errors';
import type { RefGit, SnapshotGit, WorktreeGit } from '../git';
import { savedRefPrefix } from '../landing';
import type { FileSystemPort, Logger } from '../ports';
import { restoreSource, samePathKey } from './reconcile';
import { parentDir } from '../../util/paths';

export interface MissingRepairDeps {
  readonly manager: AgentManager;
  readonly git: WorktreeGit & RefGit & SnapshotGit;
  readonly fs: FileSystemPort;
  readonly logger: Logger;
}

type MissingRecord = AgentRecord & { worktreePath: string; branch: string };

/** Brings a missing agent's worktree back: from its saved work when that is newest, else on its branch. */
export async function restoreMissing(deps: MissingRepairDeps, id: string): Promise<void> {
  const record = missingRecord(deps, id);
  const refs = new Map(
    // Stryker disable next-line ArrayDeclaration: equivalent, no prefix lists every ref: only unread entries more
    (await deps.git.listRefs(record.repoRoot, ['refs/heads/', savedRefPrefix])).map((r) => [r.name, r]),
  );
  const source = restoreSource(record, refs);
  if (source === 'none') {
    throw new AgentError('nothingLeftToRestore', { title: record.title, branch: record.branch });
  }
  await pruneStale(deps, record);
  await deps.fs.mkdirp(parentDir(record.worktreePath));
  if (source === 'saved') {
    await deps.git.restoreWork(record.repoRoot, record.worktreePath, record.branch, record.savedRef!);
  } else {
    await deps.git.checkoutWorktree(record.repoRoot, record.worktreePath, record.branch);
  }
  deps.manager.annotate(id, { worktreeMissing: false });
  deps.manager.setTracked(id, true);
  deps.logger.info(
    `[Reconcile] restored the worktree of ${id} from its ${source === 'saved' ? 'saved work' : 'branch'}`,
  );
}

/**
 * Drops a missing agent: its registration and branch go (unless the branch existed before the
 * agent); commits the branch had are kept under refs/parallel-agents/saved/<id>.
 */
export async function forgetMissing(deps: MissingRepairDeps, id: string): Promise<void> {
  const record = missingRecord(deps, id);
  await pruneStale(deps, record);
  // Listing more refs (none named: all; one that names no ref: none more) only adds entries never read.
  // Stryker disable ArrayDeclaration: equivalent, see above
  const refs = new Map(
    (
      await deps.git.listRefs(record.repoRoot, [
        `refs/heads/${record.branch}`,
        ...(record.savedRef ? [record.savedRef] : []),
      ])
    ).map((r) => [r.name, r]),
  );
  // Stryker restore ArrayDeclaration
  const tip = refs.get(`refs/heads/${record.branch}`);
  // A branch that existed before the agent is the user's: it stays, commits and all.
  if (tip && !record.branchExisted) {
    // Saved work taken on the branch tip holds its commits and more: it is kept, not written over.
    if (tip.sha !== record.baseSha && restoreSource(record, refs) !== 'saved') {
      await deps.git.saveBranch(
        record.repoRoot,
        record.branch,
        `${savedRefPrefix}${id}`,
        `Parallel Agents: branch of "${record.title}" saved before forgetting it`,
      );
    }
    await deps.git.deleteBranch(record.repoRoot, record.branch, true);
  }
  deps.manager.forget(id);
}

function missingRecord(deps: MissingRepairDeps, id: string): MissingRecord {
  const record = deps.manager.get(id);
  if (!record.worktreeMissing || !record.worktreePath || !record.branch || isActive(record.status)) {
    throw new AgentError('notMissingWorktree', { title: record.title });
  }
  return record as MissingRecord;
}

/** A registration left behind by the deleted folder would stop `worktree add` at the same path. */
async function pruneStale(deps: MissingRepairDeps, record: MissingRecord): Promise<void> {
  const entry = (await deps.git.listWorktrees(record.repoRoot)).find(
    (w) => samePathKey(w.path) === samePathKey(record.worktreePath),
  );
  if (entry && !(await deps.fs.exists(record.worktreePath))) {
    await deps.git.pruneWorktree(record.repoRoot, record.worktreePath);
  }
}
