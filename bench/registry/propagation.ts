// Issue 17, figure 1: how soon a record one window writes reaches another window on the same
// repository. Window A is this process (the real RegistryStore, writing as the AgentManager
// does); window B is a child process running the same store from out/ and reporting when its
// change event fires. Timed from A's save() call to B's event, on one wall clock (performance.
// timeOrigin + now, sub-millisecond, shared by the processes of one machine). Once idle, once
// with 8 more windows writing their own records all along, once with every core kept busy.
import { cpus } from 'node:os';
import { registryDirSync } from '../../src/node/registry/location';
import { createTempRepo } from '../../test/harness/tempRepo';
import { median, sleep, spread, type Spread } from '../stats';
import { BenchChild, spinCpus } from './children';
import { BenchWindow, sampleAgentRecord, wallNow } from './window';

export const propagationTargetMs = 1000;
const samplesPerRun = 50;
/** A sample that has not arrived by then counts as missing. */
const giveUpMs = 5000;
const writerCount = 8;
const writerPauseMs = 50;

export interface PropagationRun {
  readonly load: string;
  /** A's save() call until B's change event, per sample that arrived. */
  readonly latency: Spread;
  /** The same until A received B's report over IPC (an upper bound; adds the IPC hop). */
  readonly reportedMax: number;
  readonly medianSaveMs: number;
  /** With the writers: how much they wrote meanwhile. */
  readonly writes?: { readonly windows: number; readonly perSecond: number; readonly failures: number };
}

export interface PropagationResult {
  readonly samplesPerRun: number;
  readonly targetMs: number;
  readonly runs: readonly PropagationRun[];
}

type Load = {
  readonly name: string;
  start(registry: string, repoRoot: string): Promise<() => Promise<PropagationRun['writes']>>;
};

const loads: readonly Load[] = [
  { name: 'idle', start: async () => async () => undefined },
  {
    name: `${writerCount} windows writing every ${writerPauseMs} ms`,
    start: async (registry, repoRoot) => {
      const writers = Array.from({ length: writerCount }, (_, i) =>
        BenchChild.start(['write', registry, repoRoot, `writer${i}`, String(writerPauseMs)]),
      );
      await Promise.all(writers.map((w) => w.next('ready', 30_000)));
      return async () => {
        const reports = writers.map((w) => w.next('wrote', 30_000));
        await Promise.all(writers.map((w) => w.stop()));
        const wrote = (await Promise.all(reports)).filter((r) => r !== undefined);
        const perSecond = wrote.reduce((sum, r) => sum + r.writes / r.seconds, 0);
        return { windows: writerCount, perSecond, failures: wrote.reduce((sum, r) => sum + r.failures, 0) };
      };
    },
  },
  {
    name: `${cpus().length} processes keeping every core busy`,
    start: async () => {
      const stop = spinCpus(cpus().length);
      return async () => {
        await stop();
        return undefined;
      };
    },
  },
];

async function runOnce(load: Load, registry: string, repoRoot: string): Promise<PropagationRun> {
  const watcher = BenchChild.start(['watch', registry, 'probe-']);
  let window: BenchWindow | undefined;
  let stopLoad: (() => Promise<PropagationRun['writes']>) | undefined;
  try {
    if (!(await watcher.next('ready', 30_000))) {
      throw new Error('the watching window did not start');
    }
    stopLoad = await load.start(registry, repoRoot);
    await sleep(500); // the load gets going
    window = new BenchWindow(registry);
    const latencies: (number | undefined)[] = [];
    const reported: number[] = [];
    const saves: number[] = [];
    for (let i = 0; i < samplesPerRun; i++) {
      const title = `probe ${load.name} ${i}`;
      const record = { ...sampleAgentRecord(`probe-${i % 5}`, repoRoot, i), status: 'running' as const, title };
      const seen = watcher.next('seen', giveUpMs, (m) => m.title === title);
      const started = wallNow();
      await window.put(record);
      saves.push(wallNow() - started);
      const message = await seen;
      latencies.push(message ? message.at - started : undefined);
      if (message) {
        reported.push(message.receivedAt - started);
      }
      await sleep(20 + Math.random() * 30); // not in step with the watchers' timers
    }
    const writes = await stopLoad();
    stopLoad = undefined;
    return {
      load: load.name,
      latency: spread(latencies),
      reportedMax: reported.length > 0 ? Math.max(...reported) : Number.NaN,
      medianSaveMs: median(saves),
      ...(writes ? { writes } : {}),
    };
  } finally {
    await stopLoad?.();
    window?.dispose();
    await watcher.stop();
  }
}

export async function measurePropagation(): Promise<PropagationResult> {
  const repo = await createTempRepo();
  try {
    const registry = registryDirSync(repo.dir);
    if (registry === undefined) {
      throw new Error(`${repo.dir} has no git common dir`);
    }
    const runs: PropagationRun[] = [];
    for (const load of loads) {
      console.log(`[bench] propagation: ${load.name}...`);
      runs.push(await runOnce(load, registry, repo.dir));
    }
    return { samplesPerRun, targetMs: propagationTargetMs, runs };
  } finally {
    await repo.dispose();
  }
}
