// Review All Changes of an agent with 20 changed files, in a real VS Code (code-server's extension
// host and its workbench in Chromium), through the test harness, with bench/reviewAll/entry.ts as
// the extension-tests entry: a real demo agent changes the files, the command opens the diff.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExtensionTests } from '../../test/harness/codeServer';
import { repoRoot } from '../../test/harness/paths';
import { provision, type ProvisionedPaths } from '../../test/harness/provision';
import { createTempRepo } from '../../test/harness/tempRepo';
import { NodeGit } from '../../src/node/git/createGit';
import { errorText, median } from '../stats';
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
  let paths: ProvisionedPaths;
  try {
    paths = await provision();
  } catch (e) {
    return {
      available: false,
      reason: `code-server could not be provisioned: ${errorText(e)}`,
      targetMs: reviewAllTargetMs,
    };
  }
  for (const file of [entry, join(repoRoot, 'dist', 'extension.js')]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run node scripts/build.mjs first`);
    }
  }
  const files: Record<string, string> = { 'README.md': '# Twenty files\n' };
  for (let i = 0; i < benchFiles; i++) {
    files[fileName(i)] = fileText(i);
  }
  const repo = await createTempRepo(files);
  const scratch = await mkdtemp(join(tmpdir(), 'pa-bench-review-'));
  const outFile = join(scratch, 'review.json');
  try {
    const run = await runExtensionTests({
      paths,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: entry,
      workspaceFolder: repo.dir,
      extensionEnvironment: { PA_BENCH_REVIEW_OUT: outFile, PA_BENCH_REVIEW_ROUNDS: String(rounds) },
      viewport: { width: 1600, height: 1000 },
      timeoutMs: 300_000,
    });
    let sample: ReviewAllSample;
    try {
      sample = JSON.parse(await readFile(outFile, 'utf8')) as ReviewAllSample;
    } catch {
      const tail = [...run.log.slice(-15), ...run.serverOutput.slice(-15)].join('\n');
      throw new Error(
        `the extension host wrote no figures (exit code ${run.exitCode}${run.timedOut ? ', timed out' : ''}):\n${tail}`,
      );
    }
    return { available: true, targetMs: reviewAllTargetMs, ...sample, baseReads: await compareBaseReads(repo.dir) };
  } finally {
    await repo.dispose();
    await rm(scratch, { recursive: true, force: true });
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
