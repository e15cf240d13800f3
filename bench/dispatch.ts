// Figures 1 and 2: what a dispatch costs beyond the `git worktree add` it cannot avoid, alone and
// eight at once.
import type { BenchManager } from './manager';
import { type BenchRepo, plainWorktreeAdd, removePlainWorktree } from './repo';
import { errorText, median, now, round, sleep, timed } from './stats';

/** Lets the disk write back what the last removal dirtied before the next timed step. */
const settleMs = 300;

export interface OverheadResult {
  readonly runs: number;
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
): Promise<{ dispatchMs: number; firstOutputMs: number }> {
  const started = now();
  const record = await bench.manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: repo.dir, title });
  const dispatchMs = now() - started;
  if (record.status !== 'running') {
    throw new Error(`dispatch resolved with status ${record.status}${record.error ? `: ${record.error}` : ''}`);
  }
  const deadline = Date.now() + 30_000;
  while (!bench.firstOutput.has(record.id) && Date.now() < deadline) {
    await sleep(2);
  }
  const firstOutputMs = (bench.firstOutput.get(record.id) ?? Number.NaN) - started;
  await bench.discard(record.id);
  return { dispatchMs, firstOutputMs };
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
  for (let i = 0; i < runs; i++) {
    const steps = [
      async () => {
        const r = await timedDispatch(bench, repo, `overhead ${i}`);
        dispatchMs.push(r.dispatchMs);
        firstOutputMs.push(r.firstOutputMs);
      },
      async () => {
        plainAddMs.push(await timedPlainAdd(repo, `overhead-${i}`));
      },
    ];
    for (const step of i % 2 === 0 ? steps : steps.reverse()) {
      await sleep(settleMs);
      await step();
    }
  }
  const medianDispatchMs = median(dispatchMs);
  const medianPlainAddMs = median(plainAddMs);
  return {
    runs,
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
  /** From the first dispatch() call until all have resolved (every agent started or failed). */
  readonly allRunningMs: number;
  /** Each dispatch's own time from the common start until it resolved. */
  readonly eachMs: number[];
  readonly failures: number;
  readonly failureMessages: string[];
  readonly distinctWorktrees: number;
  readonly sequentialPlainAddMs: number;
  /** allRunningMs / sequentialPlainAddMs. */
  readonly ratio: number;
}

export async function measureBurst(bench: BenchManager, repo: BenchRepo, count = 8): Promise<BurstResult> {
  await sleep(settleMs);
  const started = now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: count }, async (_, i) => {
      const record = await bench.manager.dispatch({
        prompt: 'print hi',
        profile: 'demo',
        folder: repo.dir,
        title: 'burst',
      });
      return { record, ms: now() - started, index: i };
    }),
  );
  const allRunningMs = now() - started;
  const failureMessages: string[] = [];
  const started8: { id: string; worktree?: string; ms: number }[] = [];
  for (const o of outcomes) {
    if (o.status === 'rejected') {
      failureMessages.push(errorText(o.reason));
    } else if (o.value.record.status !== 'running') {
      failureMessages.push(`status ${o.value.record.status}: ${o.value.record.error ?? ''}`);
    } else {
      started8.push({ id: o.value.record.id, worktree: o.value.record.worktreePath, ms: o.value.ms });
    }
  }
  for (const s of started8) {
    await bench.discard(s.id);
  }

  await sleep(settleMs);
  const names = Array.from({ length: count }, (_, i) => `burst-${i}`);
  const sequential = await timed(async () => {
    for (const name of names) {
      await plainWorktreeAdd(repo, name);
    }
  });
  for (const name of names) {
    await removePlainWorktree(repo, name);
  }
  return {
    count,
    allRunningMs: round(allRunningMs),
    eachMs: started8.map((s) => round(s.ms)).sort((a, b) => a - b),
    failures: failureMessages.length,
    failureMessages,
    distinctWorktrees: new Set(started8.map((s) => s.worktree)).size,
    sequentialPlainAddMs: round(sequential.ms),
    ratio: round(allRunningMs / sequential.ms, 3),
  };
}
