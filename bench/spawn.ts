// `--only=spawn`: what starting git processes costs the host's thread, spawned directly from it
// (spawnDirect) against through the git spawn worker (dist/gitSpawnWorker.js), in one run:
// `processes` `git --version` started in one go, the two ways in interleaved rounds (order swapped
// each round). Per round: the time the host's thread spent inside the calls (the sum of each call's
// synchronous part: Node's spawn returns only once the child has exec'd), the event-loop delay
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution) p99 and max while the processes ran, and the
// time until all had ended.
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { spawnDirect } from '../src/node/git/directSpawn';
import { GitSpawnWorker } from '../src/node/git/gitSpawnWorker';
import { gitEnvironment, type GitRawResult } from '../src/node/git/process';
import { spawnThroughWorker } from '../src/node/git/workerSpawner';
import { repoRoot } from '../test/harness/paths';
import { median, ms, now, round, type Row, sleep } from './stats';

type Way = 'direct' | 'worker';

export interface SpawnRound {
  readonly way: Way;
  /** ms the host's thread spent inside the calls that started the processes. */
  readonly heldMs: number;
  readonly delayP99Ms: number;
  readonly delayMaxMs: number;
  /** ms from the first call until every process had ended. */
  readonly totalMs: number;
}

export interface SpawnFigures {
  readonly heldMs: number;
  readonly delayP99Ms: number;
  readonly delayMaxMs: number;
  readonly totalMs: number;
}

export interface SpawnResult {
  readonly processes: number;
  readonly rounds: number;
  /** Medians over the rounds. */
  readonly direct: SpawnFigures;
  readonly worker: SpawnFigures;
  readonly perRound: readonly SpawnRound[];
}

async function burst(way: Way, processes: number, start: () => Promise<GitRawResult>): Promise<SpawnRound> {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  // The histogram records a delay from its second tick on: ticking before the burst, it sees a first block too.
  await sleep(20);
  let heldMs = 0;
  const started = now();
  const calls: Promise<GitRawResult>[] = [];
  for (let i = 0; i < processes; i++) {
    const before = now();
    calls.push(start());
    heldMs += now() - before;
  }
  await Promise.all(calls);
  const totalMs = now() - started;
  delay.disable();
  return {
    way,
    heldMs: round(heldMs, 2),
    delayP99Ms: round(delay.percentile(99) / 1e6, 2),
    delayMaxMs: round(delay.max / 1e6, 2),
    totalMs: round(totalMs, 1),
  };
}

function medians(rounds: readonly SpawnRound[]): SpawnFigures {
  const of = (pick: (r: SpawnRound) => number) => round(median(rounds.map(pick)), 2);
  return {
    heldMs: of((r) => r.heldMs),
    delayP99Ms: of((r) => r.delayP99Ms),
    delayMaxMs: of((r) => r.delayMaxMs),
    totalMs: of((r) => r.totalMs),
  };
}

export async function measureSpawn(processes = 48, rounds = 5): Promise<SpawnResult> {
  const script = join(repoRoot, 'dist', 'gitSpawnWorker.js');
  if (!existsSync(script)) {
    throw new Error(`${script} is missing: run node scripts/build.mjs first`);
  }
  const env = gitEnvironment();
  const cwd = os.tmpdir();
  const args = ['--version'];
  const worker = new GitSpawnWorker(script);
  const ways: Record<Way, () => Promise<GitRawResult>> = {
    direct: () => spawnDirect('git', env, cwd, args),
    worker: () => spawnThroughWorker(worker, 'git', env, cwd, args),
  };
  try {
    // Warm: the worker thread started, both paths' code compiled.
    await Promise.all([ways.direct(), ways.worker()]);
    if (worker.direct || worker.losses > 0) {
      throw new Error('the spawn worker did not start');
    }
    const perRound: SpawnRound[] = [];
    for (let i = 0; i < rounds; i++) {
      const order: Way[] = i % 2 === 0 ? ['direct', 'worker'] : ['worker', 'direct'];
      for (const way of order) {
        perRound.push(await burst(way, processes, ways[way]));
      }
    }
    if (worker.losses > 0) {
      throw new Error('the spawn worker stopped during the bench: its figures are direct spawns');
    }
    return {
      processes,
      rounds,
      direct: medians(perRound.filter((r) => r.way === 'direct')),
      worker: medians(perRound.filter((r) => r.way === 'worker')),
      perRound,
    };
  } finally {
    worker.dispose();
  }
}

/** The rows `npm run bench` prints. */
export function spawnRows(r: SpawnResult | undefined): Row[] {
  if (!r) {
    return [];
  }
  const pair = (pick: (f: SpawnFigures) => number) => `${ms(pick(r.direct))} / ${ms(pick(r.worker))}`;
  return [
    {
      figure: `${r.processes} git processes started at once, host thread held: direct / spawn worker (median of ${r.rounds})`,
      value: pair((f) => f.heldMs),
      target: 'context',
    },
    { figure: '  event-loop delay p99: direct / spawn worker', value: pair((f) => f.delayP99Ms), target: 'context' },
    { figure: '  event-loop delay max: direct / spawn worker', value: pair((f) => f.delayMaxMs), target: 'context' },
    { figure: '  until all had ended: direct / spawn worker', value: pair((f) => f.totalMs), target: 'context' },
  ];
}
