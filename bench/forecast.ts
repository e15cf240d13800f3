// Forecast Conflicts for 16 agents (120 pairs) on a 2,000-file repository: the whole forecast
// (core/landing/conflictForecast.ts on NodeGit) against its first step alone (one merge-tree --stdin
// batch of every pair of tips and each agent against main, what the forecast was before the second
// step). Three cases: no conflict (the second step never runs), one stale agent that conflicts with
// main (its 15 pairs are checked again), and 16 agents rewriting one line (all 120 pairs are).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentRecord } from '../src/core/agent';
import { forecastPairs, forecastRepo } from '../src/core/landing';
import { NodeGit } from '../src/node/git/createGit';
import { createTempRepo, type TempRepo } from '../test/harness/tempRepo';
import { median, round, timed } from './stats';

const agentCount = 16;
const runs = 9;

export interface ForecastCase {
  readonly name: string;
  /** Pairs reported by the whole forecast, and agents reported against main. */
  readonly pairConflicts: number;
  readonly branchConflicts: number;
  /** Medians of `runs` interleaved runs. */
  readonly forecastMs: number;
  readonly firstStepMs: number;
}

export interface ForecastFigures {
  readonly agents: number;
  readonly pairs: number;
  readonly files: number;
  readonly runs: number;
  readonly cases: readonly ForecastCase[];
}

const text = (tag: string) => `line 1\n${tag}\nline 3\n`;

async function makeRepo(): Promise<TempRepo> {
  const files: Record<string, string> = { 'shared.txt': text('line 2') };
  for (let d = 0; d < 20; d++) {
    for (let f = 0; f < 100; f++) {
      files[`dir${d}/file${f}.txt`] = text(`file ${d}/${f}`);
    }
  }
  return createTempRepo(files);
}

/** Branches agents/<case>-<i> from `base`, each with `edit(i)` committed; the worktree stays on main. */
async function agents(
  repo: TempRepo,
  name: string,
  base: (i: number) => string,
  edit: (i: number) => [string, string],
): Promise<AgentRecord[]> {
  const records: AgentRecord[] = [];
  for (let i = 0; i < agentCount; i++) {
    const branch = `agents/${name}-${i}`;
    await repo.git('checkout', '--quiet', '-b', branch, base(i));
    const [file, content] = edit(i);
    writeFileSync(join(repo.dir, file), content);
    await repo.git('commit', '--quiet', '--all', '--message', branch);
    await repo.git('checkout', '--quiet', 'main');
    records.push({
      id: `${name}-${i}`,
      title: branch,
      prompt: branch,
      profile: 'bench',
      mode: 'headless',
      isolation: 'worktree',
      status: 'succeeded',
      repoRoot: repo.dir,
      cwd: repo.dir,
      branch,
      baseSha: base(i),
      createdAt: i,
      changedFiles: [],
    });
  }
  return records;
}

async function measure(repo: TempRepo, name: string, records: readonly AgentRecord[]): Promise<ForecastCase> {
  const git = new NodeGit();
  const whole = () => forecastRepo(git, repo.dir, records, 'main');
  const firstStep = () =>
    git.forecastMany(
      repo.dir,
      forecastPairs(records, 'main').map((p) => p.refs),
    );
  const report = await whole();
  await firstStep();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    const order: [number[], () => Promise<unknown>][] = [
      [a, whole],
      [b, firstStep],
    ];
    for (const [into, body] of i % 2 === 0 ? order : order.reverse()) {
      into.push((await timed(body)).ms);
    }
  }
  return {
    name,
    pairConflicts: report.conflicts.filter((c) => c.otherId !== undefined).length,
    branchConflicts: report.conflicts.filter((c) => c.otherId === undefined).length,
    forecastMs: round(median(a), 1),
    firstStepMs: round(median(b), 1),
  };
}

export async function measureForecast(): Promise<ForecastFigures> {
  const repo = await makeRepo();
  try {
    const start = (await repo.git('rev-parse', 'HEAD')).trim();
    writeFileSync(join(repo.dir, 'shared.txt'), text('main moved on'));
    await repo.git('commit', '--quiet', '--all', '--message', 'main moves on');
    const ownFile = (i: number): [string, string] => [`dir${i}/file0.txt`, text(`agent ${i}`)];
    const cases: ForecastCase[] = [];
    cases.push(await measure(repo, 'no conflict', await agents(repo, 'fresh', () => 'main', ownFile)));
    const stale = await agents(
      repo,
      'stale',
      (i) => (i === 0 ? start : 'main'),
      (i) => (i === 0 ? ['shared.txt', text('stale agent')] : ownFile(i)),
    );
    cases.push(await measure(repo, 'one stale agent conflicting with main', stale));
    const crowded = await agents(
      repo,
      'crowded',
      () => 'main',
      (i) => ['shared.txt', text(`agent ${i}`)],
    );
    cases.push(await measure(repo, '16 agents rewriting one line', crowded));
    return { agents: agentCount, pairs: (agentCount * (agentCount - 1)) / 2, files: 2001, runs, cases };
  } finally {
    await repo.dispose();
  }
}
