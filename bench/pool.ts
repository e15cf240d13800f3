// `npm run bench -- --only=pool`: dispatch from the warm worktree pool → running, against a plain
// `git worktree add` of the same repository in the same run (interleaved), and the same dispatch
// right after a commit (the entry is one commit behind and is moved by its checkout). Every
// agent's worktree is checked to be at exactly the commit dispatched from.
import * as path from 'node:path';
import { WorktreePool, WorktreePrep } from '../src/core/worktrees';
import type { NodeGit } from '../src/node/git/createGit';
import { NodePoolGit } from '../src/node/git/worktreePool';
import { NodePoolDisk } from '../src/node/poolDisk';
import { createBenchManager, type BenchManager } from './manager';
import { type BenchRepo, git, plainWorktreeAdd, removePlainWorktree } from './repo';
import { median, now, round, sleep, timed } from './stats';

export const poolTargetMs = 100;

export interface PoolResult {
  readonly runs: number;
  readonly files: number;
  readonly poolDispatchMs: number[];
  readonly afterCommitMs: number[];
  readonly plainAddMs: number[];
  readonly medianPoolDispatchMs: number;
  readonly medianAfterCommitMs: number;
  readonly medianPlainAddMs: number;
  /** median(dispatch from the pool) / median(plain add). */
  readonly ratio: number;
  /** Disk the pool's one entry takes. */
  readonly entryBytes: number;
}

async function timedPoolDispatch(
  bench: BenchManager,
  pool: WorktreePool,
  repo: BenchRepo,
  title: string,
  commitFirst: boolean,
): Promise<number> {
  if (commitFirst) {
    await git(repo.dir, ['commit', '-q', '--allow-empty', '-m', title]);
  }
  const sha = (await git(repo.dir, ['rev-parse', 'HEAD'])).trim();
  const started = now();
  const record = await bench.manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: repo.dir, title });
  const ms = now() - started;
  if (record.status !== 'running') {
    throw new Error(`dispatch resolved with status ${record.status}${record.error ? `: ${record.error}` : ''}`);
  }
  const at = (await git(record.cwd, ['rev-parse', 'HEAD'])).trim();
  if (at !== sha || record.baseSha !== sha) {
    throw new Error(`the agent started at ${at}, not at ${sha}`);
  }
  await bench.discard(record.id);
  await pool.settled();
  return ms;
}

export async function measurePool(repo: BenchRepo, demoScript: string, runs = 5): Promise<PoolResult> {
  let pool: WorktreePool | undefined;
  let taken = 0;
  const bench = createBenchManager(repo, demoScript, (deps) => {
    const settings = () => ({ ...deps.settings(), worktreePool: 1 });
    const logger = {
      ...deps.logger,
      info: (line: string) => (line.includes('taken from the pool') ? taken++ : undefined),
    };
    // createBenchManager hands the manager a NodeGit: the pool shares its runner and write queues.
    const nodeGit = deps.git as NodeGit;
    pool = new WorktreePool({
      git: new NodePoolGit(
        nodeGit.runner,
        (r, d, f) => nodeGit.removeWorktree(r, d, f),
        () => nodeGit.whenFilesDeleted(),
      ),
      disk: new NodePoolDisk(path.join(repo.parent, 'pools.json')),
      source: deps.git,
      prep: new WorktreePrep(deps.fs, deps.git, logger),
      logger,
      settings,
      newSlot: () => `e${Date.now().toString(36)}`,
    });
    return { ...deps, settings, pool };
  });
  const p = pool!;
  try {
    p.watch([repo.dir]);
    await p.settled();
    const entryBytes = p.usage().bytes;
    await timedPoolDispatch(bench, p, repo, 'pool warmup', false);
    const poolDispatchMs: number[] = [];
    const afterCommitMs: number[] = [];
    const plainAddMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      await sleep(300);
      poolDispatchMs.push(await timedPoolDispatch(bench, p, repo, `pool ${i}`, false));
      await sleep(300);
      afterCommitMs.push(await timedPoolDispatch(bench, p, repo, `pool commit ${i}`, true));
      await sleep(300);
      const { ms } = await timed(() => plainWorktreeAdd(repo, `pool-plain-${i}`));
      plainAddMs.push(ms);
      await removePlainWorktree(repo, `pool-plain-${i}`);
    }
    if (taken < 2 * runs + 1) {
      throw new Error(`only ${taken} of ${2 * runs + 1} dispatches took a pool entry`);
    }
    const medianPoolDispatchMs = median(poolDispatchMs);
    const medianPlainAddMs = median(plainAddMs);
    return {
      runs,
      files: repo.fileCount,
      poolDispatchMs: poolDispatchMs.map((v) => round(v)),
      afterCommitMs: afterCommitMs.map((v) => round(v)),
      plainAddMs: plainAddMs.map((v) => round(v)),
      medianPoolDispatchMs: round(medianPoolDispatchMs),
      medianAfterCommitMs: round(median(afterCommitMs)),
      medianPlainAddMs: round(medianPlainAddMs),
      ratio: round(medianPoolDispatchMs / medianPlainAddMs, 3),
      entryBytes,
    };
  } finally {
    bench.dispose();
    p.dispose();
    await p.settled();
    for (const e of await new NodePoolDisk().list(path.join(repo.worktreeRoot, '.pool'))) {
      await bench.git.removeWorktree(repo.dir, e.dir, true).catch(() => undefined);
    }
    await bench.git.whenFilesDeleted();
  }
}
