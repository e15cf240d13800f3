// Figures 1 and 2: what a dispatch costs beyond the `git worktree add` it cannot avoid, alone (and
// how many git processes it runs) and many at once (against the faster of the same number of plain
// adds one after another and all at once).
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { BenchManager } from './manager';
import type { StartCpu } from './startCpu';
import { type BenchRepo, cleanUpFailedAdd, plainWorktreeAdd, removePlainWorktree } from './repo';
import { errorText, median, now, round, sleep, timed } from './stats';

/** Lets the disk write back what the last removal dirtied before the next timed step. */
const settleMs = 300;

/**
 * Before each timed step: what the step before dirtied (10,000 files checked out or deleted) is
 * written back first, else this VM's disk charges that writeback to whichever step comes next.
 */
async function settle(): Promise<void> {
  if (process.platform !== 'win32') {
    try {
      execFileSync('sync');
    } catch {
      // No sync binary: the sleep alone.
    }
  }
  await sleep(settleMs);
}

export interface OverheadResult {
  readonly runs: number;
  readonly files: number;
  /** Git processes the GitRunner started from dispatch() until it resolved, each run; the plain add is one. */
  readonly gitProcesses: number[];
  readonly dispatchMs: number[];
  readonly firstOutputMs: number[];
  readonly plainAddMs: number[];
  readonly medianDispatchMs: number;
  readonly medianFirstOutputMs: number;
  readonly medianPlainAddMs: number;
  /** median(dispatch) / median(plain add). */
  readonly ratio: number;
  /** Median of the per-pair ratios (each dispatch over the plain add run next to it). */
  readonly pairedRatio: number;
}

async function timedDispatch(
  bench: BenchManager,
  repo: BenchRepo,
  title: string,
): Promise<{ dispatchMs: number; firstOutputMs: number; gitProcesses: number }> {
  const processesBefore = bench.git.runner.processCount;
  const started = now();
  const record = await bench.manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: repo.dir, title });
  const dispatchMs = now() - started;
  const gitProcesses = bench.git.runner.processCount - processesBefore;
  if (record.status !== 'running') {
    throw new Error(`dispatch resolved with status ${record.status}${record.error ? `: ${record.error}` : ''}`);
  }
  const deadline = Date.now() + 30_000;
  while (!bench.firstOutput.has(record.id) && Date.now() < deadline) {
    await sleep(2);
  }
  const firstOutputMs = (bench.firstOutput.get(record.id) ?? Number.NaN) - started;
  await bench.discard(record.id);
  // Its files are deleted in the background: the next timed step, a plain add or a dispatch, runs after that.
  await bench.git.whenFilesDeleted();
  return { dispatchMs, firstOutputMs, gitProcesses };
}

async function timedPlainAdd(repo: BenchRepo, name: string): Promise<number> {
  const { ms } = await timed(() => plainWorktreeAdd(repo, name));
  await removePlainWorktree(repo, name);
  return ms;
}

/** Interleaved, alternating which goes first, so both share the machine's noise; one warm-up each. */
export async function measureOverhead(bench: BenchManager, repo: BenchRepo, runs = 5): Promise<OverheadResult> {
  await timedPlainAdd(repo, 'warmup');
  await timedDispatch(bench, repo, 'warmup');
  const dispatchMs: number[] = [];
  const firstOutputMs: number[] = [];
  const plainAddMs: number[] = [];
  const gitProcesses: number[] = [];
  for (let i = 0; i < runs; i++) {
    const steps = [
      async () => {
        const r = await timedDispatch(bench, repo, `overhead ${i}`);
        dispatchMs.push(r.dispatchMs);
        firstOutputMs.push(r.firstOutputMs);
        gitProcesses.push(r.gitProcesses);
      },
      async () => {
        plainAddMs.push(await timedPlainAdd(repo, `overhead-${i}`));
      },
    ];
    for (const step of i % 2 === 0 ? steps : steps.reverse()) {
      await settle();
      await step();
    }
  }
  const medianDispatchMs = median(dispatchMs);
  const medianPlainAddMs = median(plainAddMs);
  return {
    runs,
    files: repo.fileCount,
    gitProcesses,
    dispatchMs: dispatchMs.map((v) => round(v)),
    firstOutputMs: firstOutputMs.map((v) => round(v)),
    plainAddMs: plainAddMs.map((v) => round(v)),
    medianDispatchMs: round(medianDispatchMs),
    medianFirstOutputMs: round(median(firstOutputMs)),
    medianPlainAddMs: round(medianPlainAddMs),
    ratio: round(medianDispatchMs / medianPlainAddMs, 3),
    pairedRatio: round(median(dispatchMs.map((d, i) => d / plainAddMs[i])), 3),
  };
}

export interface BurstResult {
  readonly count: number;
  readonly files: number;
  /** How many times each step ran (the figures are medians). */
  readonly rounds: number;
  /** From the first dispatch() call until all have resolved (every agent started or failed). */
  readonly allRunningMs: number;
  readonly allRunningEachRound: number[];
  /** Each dispatch's own time from the common start until it resolved (first round). */
  readonly eachMs: number[];
  readonly failures: number;
  readonly failureMessages: string[];
  readonly distinctWorktrees: number;
  readonly sequentialPlainAddMs: number;
  /** The same number of plain `git worktree add` started at once; git's own races may fail some. */
  readonly parallelPlainAddMs: number;
  readonly parallelPlainFailures: number;
  /** allRunningMs / the faster of sequentialPlainAddMs and parallelPlainAddMs. */
  readonly ratio: number;
  /** allRunningMs / sequentialPlainAddMs. */
  readonly ratioToSequential: number;
  /** The same number of worktrees added at once by the git object dispatch uses, no agent launched. */
  readonly gitOnlyMs: number;
  /** gitOnlyMs / the faster plain way. */
  readonly gitOnlyRatio: number;
  /** The CPU of each part of a dispatch (Linux; added by bench.ts). */
  readonly startCpu?: StartCpu;
}

async function plainAdds(repo: BenchRepo, names: readonly string[], atOnce: boolean): Promise<[number, number]> {
  await settle();
  let failures = 0;
  const add = (name: string) =>
    plainWorktreeAdd(repo, name).then(
      () => true,
      () => {
        failures++;
        return false;
      },
    );
  const { ms, value: added } = await timed(async () => {
    if (atOnce) {
      return Promise.all(names.map(add));
    }
    const done: boolean[] = [];
    for (const name of names) {
      done.push(await add(name));
    }
    return done;
  });
  for (const [i, name] of names.entries()) {
    if (added[i]) {
      await removePlainWorktree(repo, name);
    } else {
      await cleanUpFailedAdd(repo, name);
    }
  }
  return [ms, failures];
}

/** Agents that outlive the burst, as real ones do: no end-of-run work of an early one is timed with the rest. */
const burstPrompt = 'print hi\nsleep 120';

/** The git part of the burst alone: `count` NodeGit.addWorktree at once, as dispatch makes them. */
async function gitOnlyBurst(bench: BenchManager, repo: BenchRepo, count: number): Promise<number> {
  await settle();
  const targets = Array.from({ length: count }, (_, i) => path.join(repo.worktreeRoot, `git-only-${i}`));
  const { ms } = await timed(() =>
    Promise.all(targets.map((dir, i) => bench.git.addWorktree(repo.dir, dir, `plain/git-only-${i}`, repo.sha))),
  );
  for (const [i, dir] of targets.entries()) {
    await bench.git.removeWorktree(repo.dir, dir, true);
    await bench.git.deleteBranch(repo.dir, `plain/git-only-${i}`, true);
  }
  await bench.git.whenFilesDeleted();
  return ms;
}

interface OneBurst {
  readonly allRunningMs: number;
  readonly eachMs: number[];
  readonly failureMessages: string[];
  readonly distinctWorktrees: number;
}

/** `count` dispatches at once, until each resolved; then every agent stopped and discarded, its files deleted. */
async function dispatchBurst(bench: BenchManager, repo: BenchRepo, count: number): Promise<OneBurst> {
  await settle();
  const started = now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, async (_, i) => {
      const record = await bench.manager.dispatch({
        prompt: burstPrompt,
        profile: 'demo',
        folder: repo.dir,
        title: 'burst',
      });
      return { record, ms: now() - started, index: i };
    }),
  );
  const allRunningMs = now() - started;
  const failureMessages: string[] = [];
  const startedAll: { id: string; worktree?: string; ms: number }[] = [];
  for (const o of outcomes) {
    if (o.status === 'rejected') {
      failureMessages.push(errorText(o.reason));
    } else if (o.value.record.status !== 'running') {
      failureMessages.push(`status ${o.value.record.status}: ${o.value.record.error ?? ''}`);
    } else {
      startedAll.push({ id: o.value.record.id, worktree: o.value.record.worktreePath, ms: o.value.ms });
    }
  }
  for (const s of startedAll) {
    await bench.manager.stop(s.id);
    await bench.discard(s.id);
  }
  // The discarded worktrees' files are deleted in the background: the next step is measured after
  // that, as this one was, not against 16 deletions on the same disk.
  await bench.git.whenFilesDeleted();
  return {
    allRunningMs,
    eachMs: startedAll.map((s) => round(s.ms)).sort((a, b) => a - b),
    failureMessages,
    distinctWorktrees: new Set(startedAll.map((s) => s.worktree)).size,
  };
}

/**
 * The burst, 16 plain adds one after another and at once, and the git part alone, each `rounds`
 * times in an order reversed every round (this VM's disk speed drifts within minutes); medians.
 */
export async function measureBurst(bench: BenchManager, repo: BenchRepo, count = 16, rounds = 2): Promise<BurstResult> {
  const names = Array.from({ length: count }, (_, i) => `burst-${i}`);
  const bursts: OneBurst[] = [];
  const sequential: number[] = [];
  const parallel: number[] = [];
  const gitOnly: number[] = [];
  let parallelFailures = 0;
  const steps = [
    async () => {
      bursts.push(await dispatchBurst(bench, repo, count));
    },
    async () => {
      sequential.push((await plainAdds(repo, names, false))[0]);
    },
    async () => {
      const [ms, failures] = await plainAdds(repo, names, true);
      parallel.push(ms);
      parallelFailures += failures;
    },
    async () => {
      gitOnly.push(await gitOnlyBurst(bench, repo, count));
    },
  ];
  for (let r = 0; r < rounds; r++) {
    for (const step of r % 2 === 0 ? steps : [...steps].reverse()) {
      await step();
    }
  }
  const allRunningMs = median(bursts.map((b) => b.allRunningMs));
  const sequentialMs = median(sequential);
  const parallelMs = median(parallel);
  const gitOnlyMs = median(gitOnly);
  const failureMessages = bursts.flatMap((b) => b.failureMessages);
  const faster = Math.min(sequentialMs, parallelMs);
  return {
    count,
    files: repo.fileCount,
    rounds,
    allRunningMs: round(allRunningMs),
    allRunningEachRound: bursts.map((b) => round(b.allRunningMs)),
    eachMs: bursts[0]?.eachMs ?? [],
    failures: failureMessages.length,
    failureMessages,
    distinctWorktrees: Math.min(...bursts.map((b) => b.distinctWorktrees)),
    sequentialPlainAddMs: round(sequentialMs),
    parallelPlainAddMs: round(parallelMs),
    parallelPlainFailures: parallelFailures,
    ratio: round(allRunningMs / faster, 3),
    gitOnlyMs: round(gitOnlyMs),
    gitOnlyRatio: round(gitOnlyMs / faster, 3),
    ratioToSequential: round(allRunningMs / sequentialMs, 3),
  };
}
