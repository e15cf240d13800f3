// `npm run bench`: the performance figures of the issue, each with its target, as a table and as
// bench-results/bench.json. Timings are never asserted (the machine is noisy): a missed target is
// information and the exit code stays 0; only a bench that broke exits non-zero.
// Usage: node out/bench/bench.js [--only=overhead,burst,costs,plan,tmpfs,profile,activation,bundle]
// The git figures use a repository in os.tmpdir() (set TMPDIR to move it); when a memory file
// system exists (/dev/shm), the overhead is measured there too, disk excluded, and so is the
// breakdown of a dispatch's steps.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/harness/paths';
import { measureActivation } from './activation/measure';
import { measureBundle } from './bundle';
import { measureBurst, measureOverhead } from './dispatch';
import { type Comparison, compareCheckoutWorkers, measureGitCosts } from './gitCosts';
import { type BenchManager, createBenchManager, withoutChangeSets } from './manager';
import { measurePlan } from './plan';
import { profileDispatch } from './profile';
import { type BenchRepo, createBenchRepo, memoryTempDir } from './repo';
import { errorText, ms, printTable, type Row } from './stats';

const targets = { overheadRatio: 1.2, burstFailures: 0, planSpeedup: 2, activationMs: 50, bundleBytes: 1_000_000 };
const sections = ['overhead', 'burst', 'costs', 'plan', 'tmpfs', 'profile', 'activation', 'bundle'] as const;
type Section = (typeof sections)[number];

const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = new Set(onlyArg ? onlyArg.slice('--only='.length).split(',') : sections);
const results: Record<string, unknown> = {};
const errors: Record<string, string> = {};

async function section(name: Section, body: () => Promise<unknown>): Promise<void> {
  if (!only.has(name)) {
    return;
  }
  console.log(`[bench] ${name}...`);
  const started = Date.now();
  try {
    results[name] = await body();
  } catch (e) {
    errors[name] = e instanceof Error ? (e.stack ?? e.message) : String(e);
    console.error(`[bench] ${name} broke: ${errorText(e)}`);
  }
  console.log(`[bench] ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const demoScript = join(repoRoot, 'dist', 'demoAgent.js');

async function withRepo(base: string, body: (repo: BenchRepo, bench: BenchManager) => Promise<void>): Promise<void> {
  if (!existsSync(demoScript)) {
    throw new Error(`${demoScript} is missing: run node scripts/build.mjs first`);
  }
  const started = Date.now();
  const repo = await createBenchRepo(base);
  console.log(
    `[bench] generated ${repo.fileCount} files in ${repo.dir} (${repo.fsType}, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const bench = createBenchManager(repo, demoScript);
  try {
    await body(repo, bench);
  } finally {
    bench.dispose();
    await repo.dispose();
  }
}

const where = (repo: BenchRepo) => ({ fileSystem: repo.fsType, tempDir: repo.base });

async function gitSections(): Promise<void> {
  const memory = memoryTempDir();
  if (['overhead', 'burst', 'costs', 'plan'].some((s) => only.has(s)) || (!memory && only.has('profile'))) {
    await withRepo(os.tmpdir(), async (repo, bench) => {
      await section('overhead', async () => ({ ...where(repo), ...(await measureOverhead(bench, repo)) }));
      await section('burst', async () => ({ ...where(repo), ...(await measureBurst(bench, repo)) }));
      await section('costs', async () => ({ ...where(repo), comparisons: await measureGitCosts(repo) }));
      await section('plan', async () => ({ ...where(repo), ...(await measurePlan(bench, repo)) }));
      if (!memory) {
        await section('profile', async () => ({ ...where(repo), ...(await profileDispatch(repo, demoScript)) }));
      }
    });
  }
  if (memory && (only.has('tmpfs') || only.has('profile'))) {
    await withRepo(memory, async (repo, bench) => {
      await section('tmpfs', async () => {
        const overhead = await measureOverhead(bench, repo, 9);
        const burst = await measureBurst(bench, repo);
        const noRefresh = createBenchManager(repo, demoScript, withoutChangeSets);
        try {
          const burstWithoutChangeSets = await measureBurst(noRefresh, repo);
          return {
            ...where(repo),
            overhead,
            burst,
            burstWithoutChangeSets,
            checkoutWorkers: await compareCheckoutWorkers(repo),
          };
        } finally {
          noRefresh.dispose();
        }
      });
      await section('profile', async () => ({ ...where(repo), ...(await profileDispatch(repo, demoScript)) }));
    });
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any -- reads back the sections' own results */
function rows(): Row[] {
  const r = results as Record<Section, any>;
  const out: Row[] = [];
  if (r.overhead) {
    const o = r.overhead;
    out.push({
      figure: `dispatch overhead (median of ${o.runs}, 10k files, ${o.fileSystem})`,
      value: `${o.ratio.toFixed(2)}×`,
      target: `≤ ${targets.overheadRatio}×`,
      pass: o.ratio <= targets.overheadRatio,
    });
    out.push({ figure: '  dispatch() until running', value: ms(o.medianDispatchMs) });
    out.push({ figure: '  plain git worktree add', value: ms(o.medianPlainAddMs) });
    out.push({ figure: '  dispatch() until first output', value: ms(o.medianFirstOutputMs) });
    out.push({ figure: '  median of paired ratios', value: `${o.pairedRatio.toFixed(2)}×` });
  }
  if (r.tmpfs) {
    const { fileSystem, tempDir, overhead: t, burst: b, burstWithoutChangeSets: w } = r.tmpfs;
    out.push({
      figure: `same on ${fileSystem} (${tempDir}, no disk; median of ${t.runs})`,
      value: `${t.ratio.toFixed(2)}×`,
      target: `≤ ${targets.overheadRatio}×`,
      pass: t.ratio <= targets.overheadRatio,
    });
    out.push({ figure: '  dispatch() until running', value: ms(t.medianDispatchMs) });
    out.push({ figure: '  plain git worktree add', value: ms(t.medianPlainAddMs) });
    out.push({ figure: '  dispatch() until first output', value: ms(t.medianFirstOutputMs) });
    out.push({
      figure: `  ${b.count} at once, all running / failures`,
      value: `${ms(b.allRunningMs)} / ${b.failures}`,
      target: 'context',
    });
    out.push({
      figure: `  ${b.count} sequential plain worktree adds`,
      value: ms(b.sequentialPlainAddMs),
      target: 'context',
    });
    out.push({
      figure: `  ${w.count} at once without change-set refreshes (what-if)`,
      value: `${ms(w.allRunningMs)} / ${w.failures}`,
      target: 'context',
    });
  }
  if (r.burst) {
    const b = r.burst;
    out.push({ figure: `${b.count} dispatches at once: all running`, value: ms(b.allRunningMs) });
    out.push({
      figure: '  failures',
      value: String(b.failures),
      target: `${targets.burstFailures}`,
      pass: b.failures <= targets.burstFailures,
    });
    out.push({
      figure: `  ${b.count} sequential plain worktree adds`,
      value: ms(b.sequentialPlainAddMs),
      target: 'context',
    });
    out.push({ figure: '  at once / sequential plain', value: `${b.ratio.toFixed(2)}×` });
  }
  if (r.plan) {
    const p = r.plan;
    out.push({
      figure: `plan speedup (${p.width} tasks of ${p.taskMs / 1000} s + 1 joining them, maxParallel ${p.maxParallel})`,
      value: `${p.speedup.toFixed(2)}×`,
      target: `≥ ${targets.planSpeedup}×`,
      pass: p.speedup >= targets.planSpeedup && p.notMerged === 0,
    });
    out.push({
      figure: '  wall time (timeline) / sum of agent running times',
      value: `${ms(p.wallMs)} / ${ms(p.sumMs)}`,
    });
    out.push({ figure: '  critical path / peak concurrency', value: `${ms(p.criticalPathMs)} / ${p.peakConcurrency}` });
    out.push({
      figure: '  start() until every task merged; tasks not merged',
      value: `${ms(p.elapsedMs)}; ${p.notMerged}`,
    });
  }
  if (r.activation) {
    const a = r.activation;
    if (a.available) {
      out.push({
        figure: 'activation (api.activationMs)',
        value: ms(a.activationMs),
        target: `≤ ${targets.activationMs} ms`,
        pass: a.activationMs <= targets.activationMs,
      });
      out.push({
        figure: `  extension.activate() from the host${a.wasActive ? ' (was active)' : ''}`,
        value: ms(a.activateCallMs),
      });
      out.push({ figure: '  loading dist/extension.js, dev build (not in the figure)', value: ms(a.moduleLoadMs) });
      out.push({ figure: '  loading the production bundle (not in the figure)', value: ms(a.productionLoadMs) });
    } else {
      out.push({
        figure: 'activation (api.activationMs)',
        value: 'unavailable',
        target: `≤ ${targets.activationMs} ms`,
      });
    }
  }
  if (r.bundle) {
    const b = r.bundle;
    out.push({
      figure: 'bundle dist/extension.js (production)',
      value: `${(b.bytes / 1000).toFixed(1)} kB`,
      target: '≤ 1 MB',
      pass: b.bytes <= targets.bundleBytes,
    });
    out.push({ figure: '  gzipped', value: `${(b.gzipBytes / 1000).toFixed(1)} kB` });
  }
  return out;
}

function printDetails(): void {
  const r = results as Record<Section, any>;
  if (r.profile) {
    console.log(
      `\nWhere a dispatch's time goes (${r.profile.fileSystem}, median of ${r.profile.runs}; total ${ms(r.profile.medianTotalMs)}):`,
    );
    for (const s of r.profile.steps as { step: string; medianMs: number }[]) {
      console.log(`  ${s.step.padEnd(44)} ${ms(s.medianMs).padStart(10)}`);
    }
    console.log(
      `  after it resolves, in the background: change-set refresh of the new worktree ${ms(r.profile.medianRefreshMs)}`,
    );
  }
  const comparisons: [string, Comparison][] = [
    ...((r.costs?.comparisons ?? []) as Comparison[]).map((c): [string, Comparison] => [r.costs.fileSystem, c]),
    ...(r.tmpfs ? [[r.tmpfs.fileSystem, r.tmpfs.checkoutWorkers] as [string, Comparison]] : []),
  ];
  if (comparisons.length > 0) {
    console.log('\nGit costs behind the suggestions (medians, interleaved):');
    for (const [fileSystem, c] of comparisons) {
      const delta = `${c.deltaMs >= 0 ? '+' : ''}${c.deltaMs.toFixed(1)} ms`;
      console.log(
        `  ${`${c.what} (${fileSystem})`.padEnd(72)} ${ms(c.baselineMs).padStart(9)} → ${ms(c.candidateMs).padStart(9)}  (${delta}, ${c.ratio.toFixed(2)}×, n=${c.runs})`,
      );
    }
  }
  if (r.bundle) {
    console.log(
      `\nLargest parts of the production bundle: ${(r.bundle.largest as { source: string; bytes: number }[]).map((l) => `${l.source} ${(l.bytes / 1000).toFixed(1)} kB`).join(', ')}`,
    );
  }
  if (r.activation && !r.activation.available) {
    console.log(`\nActivation unavailable: ${r.activation.reason}`);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */

function gitVersion(): string {
  try {
    return execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  try {
    await gitSections();
  } catch (e) {
    errors.setup = errorText(e);
    console.error(`[bench] the git repository could not be set up: ${errorText(e)}`);
  }
  await section('activation', measureActivation);
  await section('bundle', measureBundle);

  console.log('');
  printTable(rows());
  printDetails();
  const dir = join(repoRoot, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const machine = {
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    node: process.version,
    git: gitVersion(),
  };
  const file = join(dir, 'bench.json');
  writeFileSync(
    file,
    `${JSON.stringify({ generatedAt: new Date().toISOString(), machine, targets, ...results, errors }, null, 2)}\n`,
  );
  console.log(`\n[bench] figures written to ${file}`);
  if (Object.keys(errors).length > 0) {
    console.error(`[bench] broken sections: ${Object.keys(errors).join(', ')}`);
    process.exitCode = 1;
  }
}

void main();
