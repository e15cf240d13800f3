// `--only=sandbox`: what running an agent sandboxed (bubblewrap, node/sandbox) costs at its start.
// The demo agent with a one-line task (`print hi`) dispatched into a worktree of a small repository (100 files)
// and followed to its end, unsandboxed, sandboxed with no network (`sandbox: true`) and sandboxed
// with an allowed host (the supervisor's filtering proxy and the bridge start too: socat from outside,
// or the Node bridge inside when socat or nsenter is not on PATH); rounds interleaved, medians
// compared in one run. Linux with bwrap on PATH only.
import * as path from 'node:path';
import which from 'which';
import { builtinProfiles, type Profile } from '../src/core/clis/profiles';
import type { SandboxPolicy } from '../src/core/sandbox';
import { BubblewrapSandbox } from '../src/node/sandbox/bubblewrap';
import { createBenchManager } from './manager';
import { createBenchRepo } from './repo';
import { repoRoot } from '../test/harness/paths';
import { median, ms, now, type Row } from './stats';

export interface SandboxStartResult {
  readonly rounds: number;
  /** Median ms from Dispatch to the agent's end (worktree added, agent run, end recorded). */
  readonly plainMs: number;
  readonly noNetworkMs: number;
  readonly proxiedMs: number;
  /** The sandboxed medians over the unsandboxed one. */
  readonly noNetworkRatio: number;
  readonly proxiedRatio: number;
  readonly target: number;
}

export async function measureSandboxStart(rounds = 7): Promise<SandboxStartResult> {
  if (process.platform !== 'linux' || !which.sync('bwrap', { nothrow: true })) {
    throw new Error('bubblewrap (bwrap) is not on PATH: the sandbox bench is Linux only');
  }
  const demo = builtinProfiles.find((p) => p.name === 'demo')!;
  const variants: Record<string, SandboxPolicy | undefined> = {
    plain: undefined,
    noNetwork: { allowedHosts: [] },
    proxied: { allowedHosts: ['127.0.0.1'] },
  };
  const profiles: Profile[] = Object.entries(variants).map(([name, sandbox]) => ({
    ...demo,
    name,
    ...(sandbox ? { sandbox } : {}),
  }));
  const repo = await createBenchRepo(undefined, 2, 50);
  const demoScript = path.join(repoRoot, 'dist', 'demoAgent.js');
  const sandbox = new BubblewrapSandbox({
    sandboxScript: path.join(repoRoot, 'dist', 'sandbox.js'),
    runtime: process.execPath,
  });
  const bench = createBenchManager(repo, demoScript, (deps) => ({ ...deps, sandbox }), {
    profiles,
    firstOutput: false,
  });
  const manager = bench.manager;
  const times: Record<string, number[]> = { plain: [], noNetwork: [], proxied: [] };
  try {
    // One round of each first, unmeasured: files and code warm.
    for (let round = -1; round < rounds; round++) {
      for (const name of Object.keys(variants)) {
        const started = now();
        const record = await manager.dispatch({ prompt: 'print hi', profile: name, folder: repo.dir, title: name });
        const ended = await manager.whenEnded(record.id);
        if (ended.status !== 'succeeded') {
          throw new Error(`the ${name} agent ended ${ended.status}: ${ended.error ?? ''}`);
        }
        if (round >= 0) {
          times[name].push(now() - started);
        }
      }
    }
  } finally {
    bench.dispose();
    await repo.dispose();
  }
  const plainMs = median(times.plain);
  return {
    rounds,
    plainMs,
    noNetworkMs: median(times.noNetwork),
    proxiedMs: median(times.proxied),
    noNetworkRatio: median(times.noNetwork) / plainMs,
    proxiedRatio: median(times.proxied) / plainMs,
    target: 1.2,
  };
}

export function sandboxRows(r: SandboxStartResult | undefined): Row[] {
  if (!r) {
    return [];
  }
  return [
    {
      figure: `sandboxed agent start (Dispatch → end of a one-line demo agent, median of ${r.rounds}) / unsandboxed`,
      value: `${r.noNetworkRatio.toFixed(2)}× no network; ${r.proxiedRatio.toFixed(2)}× with the proxy`,
      target: `≤ ${r.target}×`,
      pass: Math.max(r.noNetworkRatio, r.proxiedRatio) <= r.target,
    },
    {
      figure: '  unsandboxed / no network / allowed host through the proxy',
      value: `${ms(r.plainMs)} / ${ms(r.noNetworkMs)} / ${ms(r.proxiedMs)}`,
      target: 'context',
    },
  ];
}
