// `--only=watch`: 16 agents' worktrees of the generated repository watched as the extension
// watches them (a real AgentManager and ChangeTracker, the Node watcher, real git worktrees and
// demo agents), then (1) the inotify watches this process holds, counted by the kernel
// (/proc/self/fdinfo), against fs.inotify.max_user_watches, and (2) file written by "an agent" →
// the file in the agent's change set, p50 / p95 over rounds spread over the agents.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { NodeFolderWatcher, inotifyWatchLimit } from '../src/node/watch/nodeFolderWatcher';
import { createBenchManager } from './manager';
import { createBenchRepo } from './repo';
import type { AgentManager } from '../src/core/agents/agentManager';
import { median, ms, now, percentile, round, type Row, sleep, timed } from './stats';

export const watchTargets = { watchFraction: 0.1, p50Ms: 300, p95Ms: 1000 };

export interface WatchResult {
  readonly files: number;
  readonly agents: number;
  readonly fileSystem: string;
  /** Watches the kernel lists for this process's inotify instances (undefined where not Linux). */
  readonly inotifyWatches: number | undefined;
  /** What the watcher says it holds. */
  readonly watcherWatches: number;
  readonly limit: number | undefined;
  readonly fraction: number | undefined;
  readonly budget: number;
  readonly rounds: number;
  readonly writeToTreeMs: number[];
  readonly p50Ms: number;
  readonly p95Ms: number;
  /** One full change-set computation of one worktree (median of 5): what every refresh cost before. */
  readonly fullRecomputeMs: number;
  readonly targets: typeof watchTargets;
}

/** Sum of the `inotify wd:` lines of this process's inotify descriptors. */
export function inotifyWatchesOfThisProcess(): number | undefined {
  if (process.platform !== 'linux') {
    return undefined;
  }
  let count = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === 'anon_inode:inotify') {
        const info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
        count += info.split('\n').filter((l) => l.startsWith('inotify wd:')).length;
      }
    } catch {
      // closed meanwhile
    }
  }
  return count;
}

/** Resolves on the record change that makes `seen` true (no polling interval added to the figure). */
function untilChanged(manager: AgentManager, seen: () => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => (subscription.dispose(), reject(new Error(`timed out waiting for ${what}`))),
      10_000,
    );
    const subscription = manager.onDidChangeAgent(() => {
      if (seen()) {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      }
    });
  });
}

export async function measureWatch(
  demoScript: string,
  files: number,
  agents: number,
  rounds = 48,
): Promise<WatchResult> {
  const folders = Math.ceil(files / 100);
  const repo = await createBenchRepo(os.tmpdir(), folders, 100);
  const watcher = new NodeFolderWatcher();
  const bench = createBenchManager(repo, demoScript, (deps) => ({ ...deps, watcher }), { firstOutput: false });
  try {
    const before = inotifyWatchesOfThisProcess() ?? 0;
    const ids: string[] = [];
    for (let i = 0; i < agents; i++) {
      const record = await bench.manager.dispatch({
        prompt: 'print hi',
        profile: 'demo',
        folder: repo.dir,
        title: `w${i}`,
      });
      ids.push(record.id);
    }
    await Promise.all(ids.map((id) => bench.ended(id)));
    await sleep(1000); // the folder scans finish
    const inotifyWatches = (inotifyWatchesOfThisProcess() ?? 0) - before;
    const limit = inotifyWatchLimit();
    const writeToTreeMs: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const id = ids[r % ids.length];
      const record = bench.manager.get(id);
      const rel = `pkg${String((r * 7) % folders).padStart(3, '0')}/file${String(r % 100).padStart(3, '0')}.txt`;
      const seen = () => bench.manager.get(id).changedFiles.some((f) => f.path === rel);
      const started = now();
      fs.writeFileSync(`${record.cwd}/${rel}`, `written in round ${r}\n`);
      await untilChanged(bench.manager, seen, `${rel} in ${id}'s change set`);
      writeToTreeMs.push(now() - started);
      await sleep(150); // a quiet period between an agent's writes
    }
    const full: number[] = [];
    for (let i = 0; i < 5; i++) {
      const record = bench.manager.get(ids[0]);
      full.push((await timed(() => bench.git.changeSet(record.cwd, record.baseSha))).ms);
    }
    return {
      files: repo.fileCount,
      agents,
      fileSystem: repo.fsType,
      inotifyWatches: process.platform === 'linux' ? inotifyWatches : undefined,
      watcherWatches: watcher.used,
      limit,
      fraction: limit && process.platform === 'linux' ? inotifyWatches / limit : undefined,
      budget: watcher.budget,
      rounds,
      writeToTreeMs: writeToTreeMs.map((v) => round(v)),
      p50Ms: round(percentile(writeToTreeMs, 50)),
      p95Ms: round(percentile(writeToTreeMs, 95)),
      fullRecomputeMs: round(median(full)),
      targets: watchTargets,
    };
  } finally {
    bench.dispose();
    watcher.dispose();
    await repo.dispose();
  }
}

const pct = (fraction: number) => `${(fraction * 100).toFixed(1)}%`;

/** The `watch` rows of the bench table. */
export function watchRows(w: WatchResult | undefined): Row[] {
  if (!w) {
    return [];
  }
  const k = `${Math.round(w.files / 1000)}k`;
  return [
    {
      figure: `inotify watches, ${w.agents} agents on ${k} files (kernel count / limit)`,
      value:
        w.fraction === undefined
          ? `${w.watcherWatches} (no inotify here)`
          : `${w.inotifyWatches} / ${w.limit} = ${pct(w.fraction)}`,
      target: `≤ ${pct(w.targets.watchFraction)}`,
      pass: w.fraction === undefined ? undefined : w.fraction <= w.targets.watchFraction,
    },
    {
      figure: `file written → in the agent's change set, p50 (${w.rounds} writes over ${w.agents} agents)`,
      value: ms(w.p50Ms),
      target: `≤ ${w.targets.p50Ms} ms`,
      pass: w.p50Ms <= w.targets.p50Ms,
    },
    {
      figure: '  the same, p95',
      value: ms(w.p95Ms),
      target: `≤ ${w.targets.p95Ms} ms`,
      pass: w.p95Ms <= w.targets.p95Ms,
    },
    {
      figure: '  baseline: one full change-set computation of one worktree (each refresh before)',
      value: ms(w.fullRecomputeMs),
      target: 'context',
    },
  ];
}
