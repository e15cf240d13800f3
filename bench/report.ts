// The table and the details `npm run bench` prints, read back from the sections' results.
import { chattyRows, idleRows } from './chatty/rows';
import { samplerRows } from './sampler';
import { sandboxRows } from './sandbox';
import { spawnRows } from './spawn';
import type { Comparison } from './gitCosts';
import { outputTargetRatio } from './outputView';
import { registryRows } from './registry/rows';
import { poolTargetMs } from './pool';
import { reviewAllTargetMs } from './reviewAll/measure';
import { scaleRows } from './scale/rows';
import { watchRows } from './watch';
import { startCpuRows } from './startCpu';
import { ms, type Row } from './stats';

export const targets = {
  overheadRatio: 1.1,
  /** Git processes of a dispatch besides the add (worktree add --no-checkout + its checkout). */
  gitProcessesBesidesAdd: 2,
  burstRatio: 1.1,
  discardMs: 3000,
  burstFailures: 0,
  planSpeedup: 2,
  activationMs: 50,
  bundleBytes: 1_000_000,
  propagationMs: 1000,
  registryAddedMs: 50,
  outputViewRatio: outputTargetRatio,
  reviewAllMs: reviewAllTargetMs,
};

/** 50000 → "50k". */
function thousands(n: number): string {
  return n >= 1000 && n % 1000 === 0 ? `${n / 1000}k` : String(n);
}

/* eslint-disable @typescript-eslint/no-explicit-any -- reads back the sections' own results */
export function rows(results: Record<string, unknown>): Row[] {
  const r = results as Record<string, any>;
  const out: Row[] = [];
  if (r.overhead) {
    const o = r.overhead;
    out.push({
      figure: `dispatch overhead (median of ${o.runs}, ${thousands(o.files)} files, ${o.fileSystem})`,
      value: `${o.ratio.toFixed(2)}×`,
      target: `≤ ${targets.overheadRatio}×`,
      pass: o.ratio <= targets.overheadRatio,
    });
    out.push({ figure: '  dispatch() until running', value: ms(o.medianDispatchMs) });
    out.push({ figure: '  plain git worktree add', value: ms(o.medianPlainAddMs) });
    out.push({ figure: '  dispatch() until first output', value: ms(o.medianFirstOutputMs) });
    out.push({ figure: '  median of paired ratios', value: `${o.pairedRatio.toFixed(2)}×` });
    const most = Math.max(...(o.gitProcesses as number[]));
    out.push({
      figure: '  git processes per dispatch (most; the plain add is 1 + its checkout)',
      value: String(most),
      target: `≤ ${targets.gitProcessesBesidesAdd + 2}`,
      pass: most <= targets.gitProcessesBesidesAdd + 2,
    });
  }
  if (r.pool) {
    const p = r.pool;
    out.push({
      figure: `dispatch from the pool → running (median of ${p.runs}, ${thousands(p.files)} files, ${p.fileSystem})`,
      value: ms(p.medianPoolDispatchMs),
      target: `≤ ${poolTargetMs} ms`,
      pass: p.medianPoolDispatchMs <= poolTargetMs,
    });
    out.push({ figure: '  plain git worktree add (same run)', value: ms(p.medianPlainAddMs) });
    out.push({ figure: '  pool dispatch ÷ plain add', value: `${p.ratio.toFixed(2)}×` });
    out.push({ figure: '  commit, then dispatch at once (entry moved 1 commit)', value: ms(p.medianAfterCommitMs) });
    out.push({ figure: '  disk of one pool entry', value: `${(p.entryBytes / 1024 ** 2).toFixed(1)} MB` });
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
      figure: `  ${b.count} at once / faster plain way (all running; failures)`,
      value: `${b.ratio.toFixed(2)}× (${ms(b.allRunningMs)}; ${b.failures})`,
      target: `≤ ${targets.burstRatio}×`,
      pass: b.ratio <= targets.burstRatio && b.failures === 0,
    });
    out.push({
      figure: `  ${b.count} plain worktree adds one after another / at once (failed)`,
      value: `${ms(b.sequentialPlainAddMs)} / ${ms(b.parallelPlainAddMs)} (${b.parallelPlainFailures})`,
      target: 'context',
    });
    out.push({
      figure: `  git part alone: ${b.count} addWorktree at once, no agent / faster plain way`,
      value: `${b.gitOnlyRatio.toFixed(2)}× (${ms(b.gitOnlyMs)})`,
      target: `≤ ${targets.burstRatio}×`,
      pass: b.gitOnlyRatio <= targets.burstRatio,
    });
    out.push(...startCpuRows(b.startCpu));
    out.push({
      figure: `  ${w.count} at once without change-set refreshes (what-if)`,
      value: `${ms(w.allRunningMs)} / ${w.failures}`,
      target: 'context',
    });
  }
  if (r.burst) {
    const b = r.burst;
    out.push({
      figure: `${b.count} dispatches at once (${thousands(b.files)} files, median of ${b.rounds}) / faster plain way`,
      value: `${b.ratio.toFixed(2)}×`,
      target: `≤ ${targets.burstRatio}×`,
      pass: b.ratio <= targets.burstRatio,
    });
    out.push({ figure: '  all running', value: `${ms(b.allRunningMs)} (${b.allRunningEachRound.map(ms).join(', ')})` });
    out.push({
      figure: '  failures',
      value: String(b.failures),
      target: `${targets.burstFailures}`,
      pass: b.failures <= targets.burstFailures,
    });
    out.push({ figure: `  ${b.count} plain worktree adds one after another`, value: ms(b.sequentialPlainAddMs) });
    out.push({
      figure: `  ${b.count} plain worktree adds at once (failed)`,
      value: `${ms(b.parallelPlainAddMs)} (${b.parallelPlainFailures})`,
    });
    out.push({ figure: '  at once / plain one after another', value: `${b.ratioToSequential.toFixed(2)}×` });
    out.push({
      figure: `  git part alone: ${b.count} addWorktree at once, no agent / faster plain way`,
      value: `${b.gitOnlyRatio.toFixed(2)}× (${ms(b.gitOnlyMs)})`,
      target: `≤ ${targets.burstRatio}×`,
      pass: b.gitOnlyRatio <= targets.burstRatio,
    });
    out.push(...startCpuRows(b.startCpu));
  }
  if (r.discard) {
    const d = r.discard;
    out.push({
      figure: `Discard, ${thousands(d.files)} files, ${d.changedFiles} changed (median of ${d.runs}, ${d.fileSystem})`,
      value: ms(d.medianDiscardMs),
      target: `≤ ${targets.discardMs / 1000} s`,
      pass: d.medianDiscardMs <= targets.discardMs && d.everyByteSaved,
    });
    for (const step of d.steps as { step: string; medianMs: number }[]) {
      out.push({ figure: `  ${step.step}`, value: ms(step.medianMs) });
    }
    out.push({ figure: '  every changed byte in the saved ref', value: d.everyByteSaved ? 'yes' : 'NO' });
    out.push({
      figure: '  before: saving by hashing every file',
      value: ms(d.medianHashEveryFileMs),
      target: 'context',
    });
    out.push({ figure: '  before: git worktree remove --force', value: ms(d.medianPlainRemoveMs), target: 'context' });
    out.push({
      figure: '  files deleted in the background, after the discard',
      value: ms(d.medianFilesDeletedAfterMs),
      target: 'context',
    });
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
  out.push(...registryRows(r.propagation, r.registry));
  out.push(...chattyRows(r.chatty));
  out.push(...idleRows(r.idle));
  out.push(...samplerRows(r.sampler as never));
  out.push(...sandboxRows(r.sandbox as never));
  out.push(...spawnRows(r.spawn));
  if (r.output) {
    const o = r.output;
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    out.push({
      figure: `opening an agent's output view: ${mb(o.largeBytes)} log / ${(o.smallBytes / 1024).toFixed(0)} KB log (median of ${o.rounds})`,
      value: `${o.ratio.toFixed(2)}×`,
      target: `≤ ${targets.outputViewRatio}×`,
      pass: o.ratio <= targets.outputViewRatio,
    });
    out.push({
      figure: '  20 KB log / 20 MB log (tail read + first follow read)',
      value: `${ms(o.smallMs)} / ${ms(o.largeMs)}`,
    });
    out.push({ figure: '  median of paired ratios', value: `${o.pairedRatio.toFixed(2)}×` });
    out.push({
      figure: `  20 MB log: shown / said hidden (tail of ${o.tailBytes / 1024} KB)`,
      value: `${o.shownChars} chars / ${mb(o.hiddenBytes)}`,
      target: 'context',
    });
    out.push({
      figure: '  before: whole file read + decoded, 20 KB / 20 MB (channel cost not included)',
      value: `${ms(o.wholeSmallMs)} / ${ms(o.wholeLargeMs)}`,
      target: 'context',
    });
  }
  if (r.hunks) {
    const h = r.hunks;
    out.push({
      figure: `accept one hunk, ${h.lines}-line file (acceptSelectedLines; p50 of ${h.runs}, max)`,
      value: `${ms(h.p50Ms)}, ${ms(h.maxMs)}`,
      target: `≤ ${h.targetMs} ms`,
      pass: h.maxMs <= h.targetMs,
    });
    out.push({ figure: '  workspace file edited in 20 other places (p50)', value: ms(h.movedOnP50Ms) });
    out.push({ figure: '  of which the line work in memory, no git or files (p50)', value: ms(h.inMemoryP50Ms) });
  }
  if (r.forecast) {
    const f = r.forecast;
    out.push({ figure: `Forecast Conflicts, ${f.agents} agents (${f.pairs} pairs), ${f.files} files`, value: '' });
    for (const c of f.cases) {
      out.push({
        figure: `  ${c.name} (reports ${c.pairConflicts} pairs, ${c.branchConflicts} vs main): all / 1st batch`,
        value: `${ms(c.forecastMs)} / ${ms(c.firstStepMs)}`,
        target: 'context',
      });
    }
  }
  out.push(...reviewRows(r.review));
  out.push(...scaleRows(r.scale));
  out.push(...watchRows(r.watch));
  return out;
}

/** Review All Changes: the median of all rounds against the goal (every side resolved too); each round as context. */
function reviewRows(review: any): Row[] {
  if (!review) {
    return [];
  }
  const figure = `Review All Changes, agent with ${review.files ?? 20} changed files: diff tab open / files resolved`;
  const target = `≤ ${review.targetMs} ms`;
  if (!review.available) {
    return [{ figure, value: 'unavailable', target }];
  }
  const rounds = review.rounds as { tabMs: number; resolvedMs: number; resolved: number }[];
  const all = 2 * review.files;
  return [
    {
      figure: `${figure} (median of ${rounds.length})`,
      value: `${ms(review.tabMedianMs)} / ${ms(review.resolvedMedianMs)}`,
      target,
      pass: review.resolvedMedianMs <= review.targetMs && rounds.every((x) => x.resolved === all),
    },
    ...rounds.map((x, i) => ({
      figure: `  round ${i + 1}${i === 0 ? ' (first multi-file diff of the window)' : ''}: ${x.resolved}/${all} sides`,
      value: `${ms(x.tabMs)} / ${ms(x.resolvedMs)}`,
      target: 'context',
    })),
    {
      figure: `  base sides outside VS Code: ${review.files} git show / one cat-file --batch (median of ${review.baseReads.runs})`,
      value: `${ms(review.baseReads.showEachMedianMs)} / ${ms(review.baseReads.batchMedianMs)}`,
      target: 'context',
    },
  ];
}

export function printDetails(results: Record<string, unknown>): void {
  const r = results as Record<string, any>;
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
  if (r.review && !r.review.available) {
    console.log(`\nReview All Changes unavailable: ${r.review.reason}`);
  }
  if (r.activation && !r.activation.available) {
    console.log(`\nActivation unavailable: ${r.activation.reason}`);
  }
}
/* eslint-enable @typescript-eslint/no-explicit-any */
