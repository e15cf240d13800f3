// Figure: Discard of an agent whose worktree holds the whole repository with 10 changed files, by
// the real AgentLanding (every byte saved to a ref, then the worktree and branch removed), step by
// step; next to it what the old save cost (an index read from HEAD, so every file hashed) and a
// plain `git worktree remove --force` of the same worktree.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { AgentLanding } from '../src/core/landing';
import type { NodeGit } from '../src/node/git/createGit';
import type { BenchManager } from './manager';
import { type BenchRepo, git, plainWorktreeAdd } from './repo';
import { median, now, round, sleep, timed } from './stats';

const execFileAsync = promisify(execFile);
const changedFiles = 10;

export interface DiscardResult {
  readonly runs: number;
  readonly files: number;
  readonly changedFiles: number;
  readonly discardMs: number[];
  readonly medianDiscardMs: number;
  /** Median ms of each git step of the discard. */
  readonly steps: { step: string; medianMs: number }[];
  /** The old save: `read-tree HEAD` then `add --all` into a temporary index (every file hashed). */
  readonly medianHashEveryFileMs: number;
  /** `git worktree remove --force --force` of a plain worktree with the same changes. */
  readonly medianPlainRemoveMs: number;
  /** After the discard returned: until the files of its worktree, deleted in the background, are gone. */
  readonly medianFilesDeletedAfterMs: number;
  /** Every changed byte found in the saved ref, in every run. */
  readonly everyByteSaved: boolean;
}

/** The 10 files a run changes: spread over the repository, one appended line each. */
function changeFiles(dir: string, repo: BenchRepo, run: number): Promise<Map<string, string>> {
  const folders = Math.max(1, Math.floor(repo.fileCount / 100));
  const changed = new Map<string, string>();
  return (async () => {
    for (let i = 0; i < changedFiles; i++) {
      const rel = `pkg${String((i * 37) % folders).padStart(3, '0')}/file${String(i).padStart(3, '0')}.txt`;
      const text = `${await fs.readFile(path.join(dir, rel), 'utf8')}changed by run ${run}\n`;
      await fs.writeFile(path.join(dir, rel), text);
      changed.set(rel, text);
    }
    return changed;
  })();
}

/** The old save, for comparison: nothing of the worktree is written, the temporary index is thrown away. */
async function hashEveryFile(dir: string): Promise<void> {
  const temp = await fs.mkdtemp(path.join(os.tmpdir(), 'pa-bench-save-'));
  const env = { ...process.env, GIT_INDEX_FILE: path.join(temp, 'index') };
  try {
    await execFileAsync('git', ['read-tree', 'HEAD'], { cwd: dir, env });
    await execFileAsync('git', ['add', '--all', '--', ':/'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
}

function timedGit(git: NodeGit, steps: Map<string, number>): NodeGit {
  const wrap =
    <A extends unknown[], R>(label: string, f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      const started = now();
      try {
        return await f(...a);
      } finally {
        steps.set(label, (steps.get(label) ?? 0) + now() - started);
      }
    };
  const overrides: Partial<NodeGit> = {
    saveWork: wrap('git.saveWork', git.saveWork.bind(git)),
    removeWorktree: wrap('git.removeWorktree', git.removeWorktree.bind(git)),
    currentBranch: wrap('git.currentBranch', git.currentBranch.bind(git)),
    isMergedByContent: wrap('git.isMergedByContent', git.isMergedByContent.bind(git)),
    deleteBranch: wrap('git.deleteBranch', git.deleteBranch.bind(git)),
  };
  return Object.assign(Object.create(git) as NodeGit, overrides);
}

export async function measureDiscard(bench: BenchManager, repo: BenchRepo, runs = 3): Promise<DiscardResult> {
  const runSteps: Map<string, number>[] = [];
  const discardMs: number[] = [];
  const hashMs: number[] = [];
  const removeMs: number[] = [];
  const deletedAfterMs: number[] = [];
  let everyByteSaved = true;
  for (let run = 0; run < runs; run++) {
    const record = await bench.manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: repo.dir });
    await bench.ended(record.id);
    const changed = await changeFiles(record.worktreePath!, repo, run);
    hashMs.push((await timed(() => hashEveryFile(record.worktreePath!))).ms);
    const steps = new Map<string, number>();
    const landing = new AgentLanding(bench.manager, timedGit(bench.git, steps), bench.logger);
    await sleep(300);
    discardMs.push((await timed(() => landing.discard(record.id))).ms);
    deletedAfterMs.push((await timed(() => bench.git.whenFilesDeleted())).ms);
    runSteps.push(steps);
    const saved = bench.manager.get(record.id).savedRef!;
    for (const [rel, text] of changed) {
      everyByteSaved &&= (await git(repo.dir, ['show', `${saved}:${rel}`])) === text;
    }
    bench.manager.forget(record.id);

    const name = `discard-${run}`;
    const plain = await plainWorktreeAdd(repo, name);
    await changeFiles(plain, repo, run);
    await sleep(300);
    removeMs.push((await timed(() => git(repo.dir, ['worktree', 'remove', '--force', '--force', plain]))).ms);
    await git(repo.dir, ['branch', '-D', `plain/${name}`]);
  }
  const labels = [...new Set(runSteps.flatMap((s) => [...s.keys()]))];
  return {
    runs,
    files: repo.fileCount,
    changedFiles,
    discardMs: discardMs.map((v) => round(v)),
    medianDiscardMs: round(median(discardMs)),
    steps: labels.map((step) => ({ step, medianMs: round(median(runSteps.map((s) => s.get(step) ?? 0))) })),
    medianHashEveryFileMs: round(median(hashMs)),
    medianPlainRemoveMs: round(median(removeMs)),
    medianFilesDeletedAfterMs: round(median(deletedAfterMs)),
    everyByteSaved,
  };
}
