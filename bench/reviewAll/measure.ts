// Review All Changes of an agent with 20 changed files, in a real VS Code (code-server's extension
// host and its workbench in Chromium), through the test harness, with bench/reviewAll/entry.ts as
// the extension-tests entry: a real demo agent changes the files, the command opens the diff.
import { join } from 'node:path';
import { repoRoot } from '../../test/harness/paths';
import { createTempRepo } from '../../test/harness/tempRepo';
import { NodeGit } from '../../src/node/git/createGit';
import { provisionHost, runInHost } from '../hostRun';
import { median } from '../stats';
import type { ReviewAllSample } from './entry';
import { benchFiles, fileName, fileText } from './files';

/** The base side's reads of the 20 files, outside VS Code: one `git show` each against one batch. */
export interface BaseReads {
  readonly runs: number;
  readonly showEachMedianMs: number;
  readonly batchMedianMs: number;
}

export type ReviewAllResult =
  | ({ readonly available: true; readonly targetMs: number; readonly baseReads: BaseReads } & ReviewAllSample)
  | { readonly available: false; readonly reason: string; readonly targetMs: number };

/** The goal: the all-changes diff of an agent with 20 changed files opens within a second. */
export const reviewAllTargetMs = 1000;

const entry = join(repoRoot, 'out', 'bench', 'reviewAll', 'entry.js');

export async function measureReviewAll(rounds = 5): Promise<ReviewAllResult> {
  const paths = await provisionHost(entry);
  if ('reason' in paths) {
    return { available: false, reason: paths.reason, targetMs: reviewAllTargetMs };
  }
  const files: Record<string, string> = { 'README.md': '# Twenty files\n' };
  for (let i = 0; i < benchFiles; i++) {
    files[fileName(i)] = fileText(i);
  }
  const repo = await createTempRepo(files);
  try {
    const sample = await runInHost<ReviewAllSample>(paths, {
      entry,
      workspaceFolder: repo.dir,
      outVariable: 'PA_BENCH_REVIEW_OUT',
      environment: { PA_BENCH_REVIEW_ROUNDS: String(rounds) },
      viewport: { width: 1600, height: 1000 },
      timeoutMs: 300_000,
    });
    return { available: true, targetMs: reviewAllTargetMs, ...sample, baseReads: await compareBaseReads(repo.dir) };
  } finally {
    await repo.dispose();
  }
}

/** 20 `git show` processes (at most 8 at once, as the runner allows) against one `git cat-file --batch`, interleaved. */
async function compareBaseReads(repoDir: string, runs = 7): Promise<BaseReads> {
  const git = new NodeGit();
  const sha = await git.resolveCommit(repoDir, 'HEAD');
  const paths = Array.from({ length: benchFiles }, (_, i) => fileName(i));
  const each: number[] = [];
  const batch: number[] = [];
  for (let i = 0; i < runs; i++) {
    let started = performance.now();
    await Promise.all(paths.map((p) => git.showFile(repoDir, sha, p)));
    each.push(performance.now() - started);
    started = performance.now();
    await git.showFiles(repoDir, sha, paths);
    batch.push(performance.now() - started);
  }
  return { runs, showEachMedianMs: median(each), batchMedianMs: median(batch) };
}
