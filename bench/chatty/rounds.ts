// One round of the `chatty` section, each way: the raw writers (their stdout a file) and the agents
// (dispatched through a real AgentManager, which this process hosts as the extension host would).
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isActive } from '../../src/core/agent';
import { repoRoot } from '../../test/harness/paths';
import type { BenchManager } from '../manager';
import type { BenchRepo } from '../repo';
import { now, sleep, waitUntil } from '../stats';
import type { WriterSpec } from './lines';
import { ViewStandIn } from './viewStandIn';

// Built by scripts/build.mjs next to this section's own output.
export const writerScript = path.join(repoRoot, 'out', 'bench', 'chatty', 'writer.js');

export interface AgentsFigures {
  /** From the go until the host has seen every agent's end. */
  readonly ms: number;
  /** From the go until the last writer exited, and until the last supervisor wrote the end. */
  readonly writersMs: number;
  readonly supervisorsMs: number;
  /** Event-loop delay of this process (the host) from the go until the host has seen every end. */
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  /** CPU time of this process over that time, per wall time: 1 = one core. */
  readonly hostCpu: number;
  /** Rows the Agents view stand-in refreshed meanwhile. */
  readonly viewRefreshes: number;
}

function endedAt(statusPath: string): number {
  const status = JSON.parse(fs.readFileSync(statusPath, 'utf8')) as { endedAt?: number };
  return status.endedAt ?? Number.NaN;
}

export interface RawFigures {
  readonly ms: number;
  /** This process's event-loop delay meanwhile, with nothing to do: what the machine's load alone causes. */
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

/** The baseline: the same writers, their stdout and stderr a file each, started by this process. */
export async function rawRound(specs: readonly WriterSpec[], dir: string): Promise<RawFigures & { files: string[] }> {
  const files = specs.map((s) => path.join(dir, `out-${s.index}.txt`));
  const children: ChildProcess[] = specs.map((spec, i) => {
    const fd = fs.openSync(files[i], 'w');
    try {
      return spawn(process.execPath, [writerScript, JSON.stringify(spec)], { stdio: ['ignore', fd, fd] });
    } finally {
      fs.closeSync(fd);
    }
  });
  const exits = children.map((c) => new Promise<void>((resolve) => c.once('exit', () => resolve())));
  await waitUntil('the raw writers to be ready', () => specs.every((s) => fs.existsSync(s.ready)));
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const started = now();
  fs.writeFileSync(specs[0].go, '');
  await Promise.all(exits);
  const ms = now() - started;
  lag.disable();
  return { ms, lagP99Ms: lag.percentile(99) / 1e6, lagMaxMs: lag.max / 1e6, files };
}

/** Dispatches one agent per spec, waits until all are quiet and ready, then times them from the go. */
export async function agentsRound(
  bench: BenchManager,
  repo: BenchRepo,
  specs: readonly WriterSpec[],
  profile: string,
): Promise<{ figures: AgentsFigures; ids: string[]; logs: string[] }> {
  const { manager } = bench;
  const records = await Promise.all(
    specs.map((spec) =>
      manager.dispatch({ prompt: JSON.stringify(spec), profile, folder: repo.dir, title: `chatty ${spec.index}` }),
    ),
  );
  const ids = records.map((r) => r.id);
  await waitUntil('the agents to be ready', () => specs.every((s) => fs.existsSync(s.ready)), 60_000);
  // What a dispatch does in the background (the new worktree's change set: git) is over before the go.
  await Promise.all(ids.map((id) => manager.refreshChanges(id)));
  await manager.flush();
  await sleep(500);
  const view = new ViewStandIn(manager);
  const allEnded = new Promise<void>((resolve) => {
    const check = () => {
      if (ids.every((id) => !isActive(manager.get(id).status))) {
        sub.dispose();
        resolve();
      }
    };
    const sub = manager.onDidChangeAgent(check);
    check();
  });
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const cpu = process.cpuUsage();
  const started = now();
  const goAt = Date.now();
  fs.writeFileSync(specs[0].go, '');
  await allEnded;
  const ms = now() - started;
  const used = process.cpuUsage(cpu);
  lag.disable();
  view.dispose();
  const failed = ids.filter((id) => manager.get(id).status !== 'succeeded');
  if (failed.length > 0) {
    throw new Error(`${failed.length} chatty agents did not succeed: ${manager.get(failed[0]).error ?? ''}`);
  }
  return {
    figures: {
      ms,
      writersMs: Math.max(...specs.map((s) => fs.statSync(s.done).mtimeMs)) - goAt,
      supervisorsMs:
        Math.max(...ids.map((id) => endedAt(path.join(repo.parent, 'agents', `${id}.status.json`)))) - goAt,
      lagP99Ms: lag.percentile(99) / 1e6,
      lagMaxMs: lag.max / 1e6,
      hostCpu: (used.user + used.system) / 1000 / ms,
      viewRefreshes: view.refreshes,
    },
    ids,
    logs: ids.map((id) => manager.get(id).logPath as string),
  };
}
