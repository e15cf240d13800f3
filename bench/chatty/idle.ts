// The `idle` section: what 16 running agents that print nothing cost the extension host. A real
// AgentManager in this process (as the extension builds it, minus VS Code) follows 16 agents whose
// process only sleeps; this process's CPU time over a stretch of wall time (process.cpuUsage) is
// compared with the same stretch before they were dispatched, and the supervisors' own CPU time is
// read from /proc, after the processes have settled. The Agents view's clock refreshes come from
// clock.ts: counted for a row's first hour.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Profile } from '../../src/core/clis/profiles';
import { untilClockChanges } from '../../src/ui/agentsView/clock';
import { createBenchManager } from '../manager';
import { createBenchRepo } from '../repo';
import { sleep, waitUntil } from '../stats';

export interface IdleResult {
  readonly agents: number;
  readonly seconds: number;
  /** This process's CPU per wall time (1 = one core): without agents, then with the idle agents. */
  readonly baselineCpu: number;
  readonly withAgentsCpu: number;
  /** withAgentsCpu - baselineCpu. */
  readonly addedCpu: number;
  /** All supervisors together, over the same stretch (Linux; NaN elsewhere). */
  readonly supervisorsCpu: number;
  /** Refreshes of a running row in the first hour of its agent: now, and at one a second before. */
  readonly rowRefreshesFirstHour: number;
  readonly rowRefreshesFirstHourBefore: number;
  readonly targetAddedCpu: number;
}

const agentCount = Number(process.env.PA_BENCH_IDLE_AGENTS ?? 16);
const seconds = Number(process.env.PA_BENCH_IDLE_SECONDS ?? 20);
/** A new Node process tidies its heap for some seconds after it starts: the figure is of the quiet after. */
const settleSeconds = Number(process.env.PA_BENCH_IDLE_SETTLE_SECONDS ?? 15);
const idleProfile: Profile = {
  name: 'idle',
  command: process.execPath,
  args: ['-e', 'setTimeout(() => {}, Number(process.argv[1]))', '${prompt}'],
  mode: 'headless',
};

/** CPU time (ms) of this process over `ms` of wall time, per wall time. */
async function cpuOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  const started = performance.now();
  await sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / (performance.now() - started);
}

/** utime + stime of a process in ms (Linux /proc; NaN elsewhere or when it is gone). */
function processCpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

function supervisorPid(statusPath: string): number {
  return (JSON.parse(fs.readFileSync(statusPath, 'utf8')) as { supervisorPid: number }).supervisorPid;
}

function refreshesInFirstHour(): number {
  let count = 0;
  for (let at = 0; at < 3_600_000; at += untilClockChanges(at)) {
    count++;
  }
  return count;
}

export async function measureIdle(demoScript: string): Promise<IdleResult> {
  const repo = await createBenchRepo(os.tmpdir(), 1, 10);
  const bench = createBenchManager(repo, demoScript, undefined, {
    profiles: [idleProfile],
    firstOutput: false,
    idPrefix: 'idle',
  });
  try {
    const baselineCpu = await cpuOver(seconds * 1000);
    const sleepMs = String((seconds + 120) * 1000);
    const records = await Promise.all(
      Array.from({ length: agentCount }, (_, i) =>
        bench.manager.dispatch({ prompt: sleepMs, profile: 'idle', folder: repo.dir, title: `idle ${i}` }),
      ),
    );
    const ids = records.map((r) => r.id);
    await waitUntil('the idle agents to run', () => ids.every((id) => bench.manager.get(id).status === 'running'));
    await Promise.all(ids.map((id) => bench.manager.refreshChanges(id)));
    await bench.manager.flush();
    await sleep(settleSeconds * 1000);
    const supervisors = ids.map((id) => supervisorPid(path.join(repo.parent, 'agents', `${id}.status.json`)));
    const supervisorsBefore = supervisors.map(processCpuMs);
    const started = performance.now();
    const withAgentsCpu = await cpuOver(seconds * 1000);
    const wall = performance.now() - started;
    const supervisorsMs = supervisors.map((pid, i) => processCpuMs(pid) - supervisorsBefore[i]);
    await Promise.all(ids.map((id) => bench.manager.stop(id)));
    await Promise.all(ids.map((id) => bench.discard(id)));
    return {
      agents: agentCount,
      seconds,
      baselineCpu,
      withAgentsCpu,
      addedCpu: withAgentsCpu - baselineCpu,
      supervisorsCpu: supervisorsMs.reduce((a, b) => a + b, 0) / wall,
      rowRefreshesFirstHour: refreshesInFirstHour(),
      rowRefreshesFirstHourBefore: 3600,
      targetAddedCpu: 0.01,
    };
  } finally {
    bench.dispose();
    await repo.dispose();
  }
}
