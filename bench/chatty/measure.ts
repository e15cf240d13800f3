// The `chatty` section: 16 agents each printing 10 MB, against the same 16 processes writing the same
// bytes to files directly. Both start writing at the same moment (each writer waits for a go file,
// see writer.ts), so process start and worktree creation are outside the figure. The agents run the
// extension's way: a real AgentManager (real git worktrees, dist/supervisor.js, the log tailer) in
// this process, which plays the extension host with the Agents view open (viewStandIn.ts). Measured
// from the go until the host has seen every end: this process's event-loop delay (perf_hooks) and
// CPU (process.cpuUsage). Each round runs the agents twice: as the extension does (each end refreshes
// the agent's change set: git processes), and with change sets left out, the output path alone.
// Afterwards every log is compared byte for byte with what its writer printed.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Profile } from '../../src/core/clis/profiles';
import { type BenchManager, createBenchManager, withoutChangeSets } from '../manager';
import { type BenchRepo, createBenchRepo } from '../repo';
import { median } from '../stats';
import { expectedOutput, type WriterSpec } from './lines';
import { type AgentsFigures, agentsRound, type RawFigures, rawRound, writerScript } from './rounds';

export interface ChattyRound {
  readonly raw: RawFigures;
  /** As the extension runs them. */
  readonly agents: AgentsFigures;
  /** The same without change sets: the output path alone. */
  readonly outputOnly: AgentsFigures;
}

export interface ChattyCase {
  readonly format: WriterSpec['format'];
  readonly agents: number;
  readonly bytesPerAgent: number;
  readonly linesPerWrite: number;
  readonly rounds: readonly ChattyRound[];
  readonly medianRawMs: number;
  readonly medianAgentsMs: number;
  /** medianAgentsMs / medianRawMs. */
  readonly ratio: number;
  /** The worst round's, each way; for the raw writers, the delay the machine's load alone caused here. */
  readonly worst: { readonly raw: Omit<Worst, 'hostCpu'>; readonly agents: Worst; readonly outputOnly: Worst };
  /** Logs and raw files whose bytes differ from what their writer printed (0: every byte arrived). */
  readonly differing: number;
}

interface Worst {
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly hostCpu: number;
}

export interface ChattyResult {
  /** Undefined when PA_BENCH_CHATTY_FORMATS leaves the case out. */
  readonly text?: ChattyCase;
  readonly claude?: ChattyCase;
  readonly targets: typeof chattyTargets;
}

export const chattyTargets = { ratio: 1.5, lagP99Ms: 50, lagMaxMs: 150, hostCpu: 0.15 };

const agentCount = Number(process.env.PA_BENCH_CHATTY_AGENTS ?? 16);
const bytesPerAgent = Number(process.env.PA_BENCH_CHATTY_MB ?? 10) * 1024 * 1024;
const rounds = Number(process.env.PA_BENCH_CHATTY_ROUNDS ?? 3);
const linesPerWrite = 64;

const profiles: Profile[] = [
  { name: 'chatty', command: process.execPath, args: [writerScript, '${prompt}'], mode: 'headless' },
  {
    name: 'chatty-claude',
    command: process.execPath,
    args: [writerScript, '${prompt}'],
    mode: 'headless',
    output: 'claude-stream-json',
  },
];

interface Managers {
  readonly full: BenchManager;
  readonly outputOnly: BenchManager;
}

export async function measureChatty(demoScript: string): Promise<ChattyResult> {
  const repo = await createBenchRepo(os.tmpdir(), 1, 10);
  const options = { profiles, firstOutput: false };
  const managers: Managers = {
    full: createBenchManager(repo, demoScript, undefined, { ...options, idPrefix: 'full' }),
    outputOnly: createBenchManager(repo, demoScript, withoutChangeSets, { ...options, idPrefix: 'only' }),
  };
  try {
    const formats = (process.env.PA_BENCH_CHATTY_FORMATS ?? 'text,claude').split(',');
    return {
      text: formats.includes('text') ? await measureCase(managers, repo, 'text') : undefined,
      claude: formats.includes('claude') ? await measureCase(managers, repo, 'claude') : undefined,
      targets: chattyTargets,
    };
  } finally {
    managers.full.dispose();
    managers.outputOnly.dispose();
    await repo.dispose();
  }
}

function specs(dir: string, format: WriterSpec['format']): WriterSpec[] {
  fs.mkdirSync(dir, { recursive: true });
  return Array.from({ length: agentCount }, (_, index) => ({
    index,
    bytes: bytesPerAgent,
    go: path.join(dir, 'go'),
    ready: path.join(dir, `ready-${index}`),
    done: path.join(dir, `done-${index}`),
    format,
    block: linesPerWrite,
  }));
}

async function measureCase(managers: Managers, repo: BenchRepo, format: WriterSpec['format']): Promise<ChattyCase> {
  const done: ChattyRound[] = [];
  const profile = format === 'claude' ? 'chatty-claude' : 'chatty';
  let differing = 0;
  for (let r = 0; r < rounds; r++) {
    const dir = path.join(repo.parent, `chatty-${format}-${r}`);
    const raw = await rawRound(specs(path.join(dir, 'raw'), format), path.join(dir, 'raw'));
    const full = await agentsRound(managers.full, repo, specs(path.join(dir, 'full'), format), profile);
    const only = await agentsRound(managers.outputOnly, repo, specs(path.join(dir, 'only'), format), profile);
    // After the timed parts, one writer at a time: this process stays as small as a host would be.
    for (const spec of specs(path.join(dir, 'raw'), format)) {
      const expected = expectedOutput(spec);
      const bad = [raw.files, full.logs, only.logs].filter((files) => !endsWith(files[spec.index], expected));
      bad.forEach((files) => console.log(`[bench] chatty: ${files[spec.index]} differs from what its writer printed`));
      differing += bad.length;
    }
    await Promise.all(full.ids.map((id) => managers.full.discard(id)));
    await Promise.all(only.ids.map((id) => managers.outputOnly.discard(id)));
    fs.rmSync(dir, { recursive: true, force: true });
    done.push({
      raw: { ms: raw.ms, lagP99Ms: raw.lagP99Ms, lagMaxMs: raw.lagMaxMs },
      agents: full.figures,
      outputOnly: only.figures,
    });
    const line = (f: AgentsFigures) =>
      `${f.ms.toFixed(0)} ms (writers ${f.writersMs.toFixed(0)}, supervisors ${f.supervisorsMs.toFixed(0)}), lag p99 ${f.lagP99Ms.toFixed(0)} / max ${f.lagMaxMs.toFixed(0)} ms, host ${(f.hostCpu * 100).toFixed(1)}%`;
    console.log(
      `[bench] chatty ${format} round ${r + 1}: raw ${raw.ms.toFixed(0)} ms, lag p99 ${raw.lagP99Ms.toFixed(0)} / max ${raw.lagMaxMs.toFixed(0)} ms; agents ${line(full.figures)}; output only ${line(only.figures)}`,
    );
  }
  const medianRawMs = median(done.map((d) => d.raw.ms));
  const medianAgentsMs = median(done.map((d) => d.agents.ms));
  const worst = (pick: (r: ChattyRound) => AgentsFigures): Worst => ({
    lagP99Ms: Math.max(...done.map((d) => pick(d).lagP99Ms)),
    lagMaxMs: Math.max(...done.map((d) => pick(d).lagMaxMs)),
    hostCpu: Math.max(...done.map((d) => pick(d).hostCpu)),
  });
  return {
    format,
    agents: agentCount,
    bytesPerAgent,
    linesPerWrite,
    rounds: done,
    medianRawMs,
    medianAgentsMs,
    ratio: medianAgentsMs / medianRawMs,
    worst: {
      raw: {
        lagP99Ms: Math.max(...done.map((d) => d.raw.lagP99Ms)),
        lagMaxMs: Math.max(...done.map((d) => d.raw.lagMaxMs)),
      },
      agents: worst((d) => d.agents),
      outputOnly: worst((d) => d.outputOnly),
    },
    differing,
  };
}

/** A file holds what the writer printed, a log after the lines the extension wrote before it started. */
function endsWith(logPath: string, output: Buffer): boolean {
  const log = fs.readFileSync(logPath);
  return log.length >= output.length && log.subarray(log.length - output.length).equals(output);
}
