// The CPU each part of a dispatch costs, beside the burst's wall-clock figures: the plain
// `git worktree add` the baseline pays, the supervisor's start (node loading dist/supervisor.js), the
// demo agent's run, and a bare Node start. Read on Linux from /proc/self/stat (the CPU of reaped
// children), so the figures hold on a busy machine too. When a burst keeps every core busy, its time
// cannot fall below (add + supervisor + agent) / add of the plain adds' time: `floorRatio`.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { type BenchRepo, plainWorktreeAdd, removePlainWorktree } from './repo';
import { median, ms, round, type Row } from './stats';

export interface StartCpu {
  readonly runs: number;
  /** Median CPU ms (user + system) of each, over `runs`. */
  readonly plainAddCpuMs: number;
  readonly supervisorStartCpuMs: number;
  readonly demoAgentCpuMs: number;
  readonly bareNodeCpuMs: number;
  /** (plain add + supervisor start + demo agent) / plain add. */
  readonly floorRatio: number;
  /**
   * Median ms a `spawn` of `git --version` holds this process's thread (Node waits until the child
   * has called exec), over 20: what every git process and supervisor costs the extension host's thread.
   */
  readonly spawnBlockMs: number;
}

let ticksPerSecond: number | undefined;

/** CPU ms of this process's reaped children so far (cutime + cstime). */
function childrenCpuMs(): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of proc(5), counted after the name (field 2) and state (field 3).
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
}

function run(file: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve) => execFile(file, args, { cwd }, () => resolve()));
}

async function cpuOf(work: () => Promise<unknown>): Promise<number> {
  const before = childrenCpuMs();
  await work();
  return childrenCpuMs() - before;
}

async function spawnBlockMs(cwd: string): Promise<number> {
  const held: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const child = spawn('git', ['--version'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    held.push(performance.now() - started);
    child.stdout.resume();
    child.stderr.resume();
    await new Promise((resolve) => child.on('close', resolve));
  }
  return median(held);
}

export async function measureStartCpu(repo: BenchRepo, demoScript: string, runs = 5): Promise<StartCpu | undefined> {
  if (process.platform !== 'linux') {
    return undefined;
  }
  const supervisor = path.join(path.dirname(demoScript), 'supervisor.js');
  const scratch = await fs.mkdtemp(path.join(repo.parent, 'cpu-'));
  const add: number[] = [];
  const start: number[] = [];
  const agent: number[] = [];
  const bare: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const name = `cpu-${i}`;
      add.push(await cpuOf(() => plainWorktreeAdd(repo, name)));
      await removePlainWorktree(repo, name);
      // Without a spec the supervisor loads all of its code, then exits with 2.
      start.push(await cpuOf(() => run(process.execPath, [supervisor], scratch)));
      agent.push(await cpuOf(() => run(process.execPath, [demoScript, 'print hi'], scratch)));
      bare.push(await cpuOf(() => run(process.execPath, ['-e', '0'], scratch)));
    }
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
  const [a, s, d] = [median(add), median(start), median(agent)];
  return {
    runs,
    plainAddCpuMs: round(a),
    supervisorStartCpuMs: round(s),
    demoAgentCpuMs: round(d),
    bareNodeCpuMs: round(median(bare)),
    floorRatio: round((a + s + d) / a, 3),
    spawnBlockMs: round(await spawnBlockMs(repo.dir), 2),
  };
}

/** The rows `npm run bench` prints under a burst. */
export function startCpuRows(c: StartCpu | undefined): Row[] {
  if (!c) {
    return [];
  }
  return [
    {
      figure: '  CPU of one plain add / supervisor start / demo agent / bare Node',
      value: [c.plainAddCpuMs, c.supervisorStartCpuMs, c.demoAgentCpuMs, c.bareNodeCpuMs].map(ms).join(' / '),
      target: 'context',
    },
    { figure: '  a spawn holds the host thread until the child execs (median of 20)', value: ms(c.spawnBlockMs) },
    {
      figure: '  lowest ratio with every core busy: (add + supervisor + agent) CPU ÷ add CPU',
      value: `${c.floorRatio.toFixed(2)}×`,
      target: 'context',
    },
  ];
}
