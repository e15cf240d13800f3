// `npm run bench`: the performance figures of the issue, each with its target, as a table and as
// bench-results/bench.json. Timings are never asserted (the machine is noisy): a missed target is
// information and the exit code stays 0; only a bench that broke exits non-zero.
// Usage: node out/bench/bench.js [--only=overhead,burst,discard,costs,plan,tmpfs,profile,activation,
//   bundle,propagation,registry,output,chatty,idle,hunks,forecast,review,pool,scale,watch,
//   sampler,sandbox,spawn] [--files=10000[,50000]]
//   [--agents=16] [--direct-spawns]; through npm: npm run bench -- --only=overhead,burst,discard --files=10000,50000
// --files: files of the generated repository (folders of 100), one size after another (in
// bench.json under byFiles when several); --agents: dispatches at once (burst); --direct-spawns: git
// started from the bench's thread, not from the git spawn worker the extension host uses.
// The git figures use a repository in os.tmpdir() (set TMPDIR to move it); when a memory file
// system exists (/dev/shm), the overhead is measured there too, disk excluded, and so is the
// breakdown of a dispatch's steps.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { useGitSpawnWorker } from '../src/node/git/gitSpawnWorker';
import { repoRoot } from '../test/harness/paths';
import { measureActivation } from './activation/measure';
import { measureIdle } from './chatty/idle';
import { measureChatty } from './chatty/measure';
import { measureBundle } from './bundle';
import { measureDiscard } from './discard';
import { measureBurst, measureOverhead } from './dispatch';
import { measureStartCpu } from './startCpu';
import { measureForecast } from './forecast';
import { compareCheckoutWorkers, measureGitCosts } from './gitCosts';
import { measureHunks } from './hunks';
import { type BenchManager, createBenchManager, withoutChangeSets } from './manager';
import { measureOutputView } from './outputView';
import { measurePlan } from './plan';
import { profileDispatch } from './profile';
import { type BenchRepo, createBenchRepo, memoryTempDir } from './repo';
import { measurePropagation } from './registry/propagation';
import { measureRegistry } from './registry/section';
import { printDetails, rows, targets } from './report';
import { measurePool } from './pool';
import { measureReviewAll } from './reviewAll/measure';
import { measureRefresh } from './scale/refresh';
import { measureWatch } from './watch';
import { measureSampler } from './sampler';
import { measureSandboxStart } from './sandbox';
import { measureSpawn } from './spawn';
import { errorText, printTable } from './stats';

const sections = [
  'overhead',
  'pool',
  'burst',
  'costs',
  'plan',
  'tmpfs',
  'profile',
  'activation',
  'bundle',
  'propagation',
  'registry',
  'output',
  'chatty',
  'idle',
  'hunks',
  'forecast',
  'discard',
  'review',
  'scale',
  'watch',
  'sampler',
  'sandbox',
  'spawn',
] as const;
type Section = (typeof sections)[number];

const onlyArg = process.argv.find((a) => a.startsWith('--only='));
/** --direct-spawns: git processes spawned from the bench's own thread, as before the spawn worker. */
const directSpawns = process.argv.includes('--direct-spawns');
if (!directSpawns) {
  // As in the extension host (services.ts): the in-process figures (burst, chatty) start git from it.
  useGitSpawnWorker(join(repoRoot, 'dist', 'gitSpawnWorker.js'));
}
/** `--name=N[,M…]`: whole numbers of at least `least`, else `fallback`. */
function numbersArg(name: string, fallback: readonly number[], least: number): number[] {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const values = arg
    ? arg
        .slice(name.length + 3)
        .split(',')
        .map((v) => Number.parseInt(v, 10))
    : [...fallback];
  if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v < least)) {
    throw new Error(`--${name} wants whole numbers of at least ${least}, got ${arg}`);
  }
  return values;
}
/** Files of the generated repository, in folders of 100 (rounded up); several sizes run one after another. */
const fileCounts = numbersArg('files', [10_000], 100);
/** Dispatches at once in the burst figure. */
const [agents] = numbersArg('agents', [16], 1);
const only = new Set(onlyArg ? onlyArg.slice('--only='.length).split(',') : sections);
const results: Record<string, unknown> = {};
const loadAtStart = os.loadavg();
const errors: Record<string, string> = {};

async function section(
  name: Section,
  body: () => Promise<unknown>,
  into: Record<string, unknown> = results,
  label: string = name,
): Promise<void> {
  if (!only.has(name)) {
    return;
  }
  console.log(`[bench] ${label}...`);
  const started = Date.now();
  try {
    into[name] = await body();
  } catch (e) {
    errors[label] = e instanceof Error ? (e.stack ?? e.message) : String(e);
    console.error(`[bench] ${label} broke: ${errorText(e)}`);
  }
  console.log(`[bench] ${label} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const demoScript = join(repoRoot, 'dist', 'demoAgent.js');

async function withRepo(
  base: string,
  files: number,
  body: (repo: BenchRepo, bench: BenchManager) => Promise<void>,
): Promise<void> {
  if (!existsSync(demoScript)) {
    throw new Error(`${demoScript} is missing: run node scripts/build.mjs first`);
  }
  const started = Date.now();
  const repo = await createBenchRepo(base, Math.ceil(files / 100), 100);
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

/** The git figures on a repository of `files` files, into `into`. */
async function gitSections(files: number, into: Record<string, unknown>): Promise<void> {
  const run = (name: Section, body: () => Promise<unknown>) =>
    section(name, body, into, fileCounts.length > 1 ? `${name} (${files} files)` : name);
  const memory = memoryTempDir();
  if (
    ['overhead', 'burst', 'costs', 'plan', 'discard', 'pool'].some((s) => only.has(s)) ||
    (!memory && only.has('profile'))
  ) {
    await withRepo(os.tmpdir(), files, async (repo, bench) => {
      await run('overhead', async () => ({ ...where(repo), ...(await measureOverhead(bench, repo)) }));
      await run('burst', async () => ({
        ...where(repo),
        ...(await measureBurst(bench, repo, agents)),
        startCpu: await measureStartCpu(repo, demoScript),
      }));
      await run('discard', async () => ({ ...where(repo), ...(await measureDiscard(bench, repo)) }));
      await run('costs', async () => ({ ...where(repo), comparisons: await measureGitCosts(repo) }));
      await run('plan', async () => ({ ...where(repo), ...(await measurePlan(bench, repo)) }));
      await run('pool', async () => ({ ...where(repo), ...(await measurePool(repo, demoScript)) }));
      if (!memory) {
        await run('profile', async () => ({ ...where(repo), ...(await profileDispatch(repo, demoScript)) }));
      }
    });
  }
  if (memory && (only.has('tmpfs') || only.has('profile'))) {
    await withRepo(memory, files, async (repo, bench) => {
      await run('tmpfs', async () => {
        const overhead = await measureOverhead(bench, repo, 9);
        const burst = {
          ...(await measureBurst(bench, repo, agents)),
          startCpu: await measureStartCpu(repo, demoScript),
        };
        const noRefresh = createBenchManager(repo, demoScript, withoutChangeSets);
        try {
          const burstWithoutChangeSets = await measureBurst(noRefresh, repo, agents);
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
      await run('profile', async () => ({ ...where(repo), ...(await profileDispatch(repo, demoScript)) }));
    });
  }
}

function gitVersion(): string {
  try {
    return execFileSync('git', ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  // One size: its figures at the top level of bench.json; several: under byFiles, by size.
  const bySize: Record<string, Record<string, unknown>> = {};
  for (const files of fileCounts) {
    const into = fileCounts.length > 1 ? (bySize[files] = {}) : results;
    try {
      await gitSections(files, into);
    } catch (e) {
      errors[`setup (${files} files)`] = errorText(e);
      console.error(`[bench] the git repository could not be set up: ${errorText(e)}`);
    }
  }
  await section('activation', measureActivation);
  await section('bundle', measureBundle);
  await section('propagation', measurePropagation);
  await section('registry', measureRegistry);
  await section('output', measureOutputView);
  await section('chatty', () => measureChatty(demoScript));
  await section('idle', () => measureIdle(demoScript));
  await section('sampler', () => measureSampler());
  await section('sandbox', () => measureSandboxStart());
  await section('spawn', () => measureSpawn());
  await section('hunks', () => measureHunks());
  await section('forecast', measureForecast);
  await section('review', () => measureReviewAll());
  await section('scale', () => measureRefresh(demoScript));
  await section('watch', () => measureWatch(demoScript, Math.max(...fileCounts), agents));

  if (fileCounts.length > 1) {
    results.byFiles = bySize;
  }
  for (const [files, sized] of Object.entries(bySize)) {
    console.log(`\n${files} files:`);
    printTable(rows(sized));
    printDetails(sized);
  }
  console.log('');
  printTable(rows(results));
  printDetails(results);
  const dir = join(repoRoot, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const machine = {
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    /** 1, 5 and 15-minute load averages when the bench started and ended: other work on the machine. */
    loadAverage: { start: loadAtStart, end: os.loadavg() },
    node: process.version,
    git: gitVersion(),
    gitSpawns: directSpawns ? 'direct' : 'worker',
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
