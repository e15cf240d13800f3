// `--only=sampler`: what the Agents view's CPU/memory sampler (core/usage UsageSampler over
// node/procTable) costs the extension host with 16 live agents: 16 real process trees (a sleeping
// node parent with a sleeping child each), sampled every 3 s for 20 s, against the same host doing
// nothing for 20 s; the sampling measured after its first sample and 15 s of warming up. The figure is the host process's own CPU time (process.cpuUsage).
import { type ChildProcess, spawn } from 'node:child_process';
import { UsageSampler } from '../src/core/usage';
import { procTable } from '../src/node/procTable';
import { usageIntervalMs } from '../src/ui/agentCosts';
import type { Row } from './stats';

export interface SamplerResult {
  readonly agents: number;
  readonly seconds: number;
  readonly intervalMs: number;
  /** Processes on the machine (what one sample reads), at the end. */
  readonly processes: number;
  readonly samples: number;
  /** The host's CPU time for the first sample (code loaded and compiled), ms. */
  readonly firstSampleMs: number;
  /** The host's CPU over the 15 s of sampling after the first sample (fraction of a core). */
  readonly warmupCpu: number;
  /** Fractions of one core. */
  readonly idleCpu: number;
  readonly samplingCpu: number;
  readonly addedCpu: number;
  /** The host's CPU time per sample, ms. */
  readonly cpuMsPerSample: number;
  /** Every agent's figures were there at the end: CPU, memory and its two processes. */
  readonly allSeen: boolean;
  readonly target: number;
}

const child = "require('child_process').spawn('sleep', ['600'], { stdio: 'ignore' }); setTimeout(() => {}, 600000)";

export async function measureSampler(agents = 16, seconds = 20): Promise<SamplerResult> {
  const table = procTable();
  if (!table) {
    throw new Error('no /proc here: the sampler is Linux only');
  }
  const trees: ChildProcess[] = [];
  try {
    for (let i = 0; i < agents; i++) {
      trees.push(spawn(process.execPath, ['-e', child], { stdio: 'ignore' }));
    }
    await sleep(3000); // started, children spawned
    const idleCpu = await hostCpu(seconds, async () => undefined);
    let samples = 0;
    const roots = new Map(trees.map((t, i) => [`agent-${i}`, t.pid!]));
    const sampler = new UsageSampler({
      table: { ...table, read: (pids) => (samples++, table.read(pids)) },
      roots: () => roots,
      timers: { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout },
      intervalMs: usageIntervalMs,
    });
    // The window's first sample loads and compiles the code: measured apart, then the steady state.
    const cold = process.cpuUsage();
    sampler.setWanted(true);
    while (sampler.usage('agent-0') === undefined) {
      await sleep(5);
    }
    const coldUsage = process.cpuUsage(cold);
    const firstSampleMs = (coldUsage.user + coldUsage.system) / 1000;
    // Then 15 s of sampling before measuring: V8 compiles the code it runs often on its own threads,
    // counted in the host's CPU, once in a window's life.
    const warmStart = performance.now();
    const warm = process.cpuUsage();
    await sleep(15000);
    const warmUsage = process.cpuUsage(warm);
    const warmupCpu = (warmUsage.user + warmUsage.system) / 1000 / (performance.now() - warmStart);
    const coldSamples = samples;
    const samplingCpu = await hostCpu(seconds, async () => undefined);
    const allSeen = [...roots.keys()].every((id) => {
      const usage = sampler.usage(id);
      return usage?.cpuPercent !== undefined && usage.rssBytes > 0 && usage.processes === 2;
    });
    sampler.dispose();
    const processes = (await table.read()).length;
    return {
      agents,
      seconds,
      intervalMs: usageIntervalMs,
      processes,
      samples: samples - coldSamples,
      firstSampleMs,
      warmupCpu,
      idleCpu,
      samplingCpu,
      addedCpu: Math.max(0, samplingCpu - idleCpu),
      cpuMsPerSample: samples > coldSamples ? (samplingCpu * seconds * 1000) / (samples - coldSamples) : 0,
      allSeen,
      target: 0.01,
    };
  } finally {
    trees.forEach((t) => t.kill('SIGKILL'));
  }
}

/** The host's CPU time over `seconds` after `start`, as a fraction of one core. */
async function hostCpu(seconds: number, start: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  const t0 = performance.now();
  await start();
  await sleep(seconds * 1000);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - t0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const pct = (fraction: number) => `${(fraction * 100).toFixed(2)}%`;

export function samplerRows(r: SamplerResult | undefined): Row[] {
  if (!r) {
    return [];
  }
  return [
    {
      figure: `CPU/memory sampler, ${r.agents} live agents, every ${r.intervalMs / 1000} s (${r.seconds} s each way): host CPU added`,
      value: `${pct(r.addedCpu)} of a core`,
      target: `≤ ${pct(r.target)}`,
      pass: r.addedCpu <= r.target && r.allSeen,
    },
    { figure: '  host sampling / the same host idle', value: `${pct(r.samplingCpu)} / ${pct(r.idleCpu)}` },
    {
      figure: '  samples; host CPU per sample (the first, cold); processes read per sample',
      value: `${r.samples}; ${r.cpuMsPerSample.toFixed(1)} ms (${r.firstSampleMs.toFixed(1)} ms); ${r.processes}`,
      target: 'context',
    },
    {
      figure: '  the 15 s of sampling before (code compiled)',
      value: `${pct(r.warmupCpu)} of a core`,
      target: 'context',
    },
    { figure: "  every agent's CPU, memory and 2 processes shown", value: String(r.allSeen), target: 'context' },
  ];
}
