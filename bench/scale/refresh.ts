// Issue 19, Scale: the Refresh command over `count` agents (a real AgentManager restoring them
// from its store, real git worktrees), as the command runs it, against two baselines in the same
// run: the change-set computation as it was before (diff + ls-files per agent, every agent at
// once) and one bare git process per agent (no computation at all: the cost of a spawn).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { AgentRecord, ChangedFile } from '../../src/core/agent';
import type { FolderWatch, FolderWatcher, StateStore } from '../../src/core/ports';
import { sniffUntracked } from '../../src/node/git/binarySniffer';
import { buildChangeSet, parsePathList } from '../../src/node/git/changeParsers';
import { createGit, type NodeGit } from '../../src/node/git/createGit';
import type { GitRunner } from '../../src/node/git/runner';
import { NodeFolderWatcher } from '../../src/node/watch/nodeFolderWatcher';
import { createBenchManager } from '../manager';
import { RefreshAll } from '../../src/ui/commands/refreshAll';
import { median, timed, waitUntil } from '../stats';
import { createScaleFixture } from './worktrees';

export const refreshTargetMs = 1000;

/** The change set as src/node/git/changes.ts computed it before this section's changes. */
export async function previousChangeSet(runner: GitRunner, cwd: string, baseSha: string): Promise<ChangedFile[]> {
  const diffArgs = ['diff', '--raw', '--numstat', '-z', '-M', '--relative', '--no-ext-diff', '--no-textconv'];
  const [diff, untracked] = await Promise.all([
    runner.run(cwd, [...diffArgs, baseSha, '--']),
    runner.run(cwd, ['ls-files', '--others', '--exclude-standard', '-z']),
  ]);
  const content = await sniffUntracked(cwd, parsePathList(untracked.stdout));
  return buildChangeSet({ diff: diff.stdout, untracked: untracked.stdout }, content.binary, content.lines);
}

class FixedStore implements StateStore {
  constructor(private records: readonly AgentRecord[]) {}
  load(): readonly AgentRecord[] {
    return this.records;
  }
  async save(records: readonly AgentRecord[]): Promise<void> {
    this.records = records;
  }
}

export interface RefreshFigures {
  readonly agents: number;
  readonly repositoryFiles: number;
  readonly targetMs: number;
  /** Refresh of every agent, no agent's folder changed since its last computation (median). */
  readonly refreshMedianMs: number;
  /** The background recomputation of those agents that follows it (median). */
  readonly backgroundMedianMs: number;
  /** Refresh of every agent right after `someChanged` of them had a file written (median). */
  readonly someChanged: number;
  readonly refreshSomeChangedMedianMs: number;
  /** Refresh of every agent after every one had a file written. */
  readonly refreshAllChangedMedianMs: number;
  /** The computation as it was: every agent at once, diff + ls-files each. */
  readonly previousMedianMs: number;
  /** One `git rev-parse --git-dir` per agent, every agent at once through the same runner limits. */
  readonly spawnFloorMedianMs: number;
  /** Agents whose change set after the runs equals the previous computation's, of `agents`. */
  readonly sameAsPrevious: number;
  readonly samples: Record<string, readonly number[]>;
}

/** The extension's watcher of agent worktrees (it names the paths written), counting events per folder. */
class CountingWatcher implements FolderWatcher {
  readonly counts = new Map<string, number>();
  private readonly inner = new NodeFolderWatcher();
  watch(folder: string, onChange: (paths?: readonly string[]) => void): FolderWatch {
    return this.inner.watch(folder, (paths) => {
      this.counts.set(folder, (this.counts.get(folder) ?? 0) + 1);
      onChange(paths);
    });
  }
}

export async function measureRefresh(demoScript: string, count = 200, someChanged = 16): Promise<RefreshFigures> {
  const fixture = await createScaleFixture(count);
  const { repo, records } = fixture;
  const watcher = new CountingWatcher();
  const bench = createBenchManager(
    repo,
    demoScript,
    (deps) => ({ ...deps, store: new FixedStore(records), watcher: (deps.git as NodeGit).freshness.watching(watcher) }),
    { firstOutput: false },
  );
  const runner = createGit().runner;
  const manager = bench.manager;
  const refreshAll = new RefreshAll({
    list: () => manager.list(),
    refreshChanges: (id) => manager.refreshChanges(id),
    refreshSeen: (id) => manager.refreshSeen(id),
    unchanged: (cwd, baseSha) => bench.git.freshness.unchanged(cwd, baseSha),
  });
  const samples: Record<string, number[]> = {
    refresh: [],
    background: [],
    refreshSomeChanged: [],
    refreshAllChanged: [],
    previous: [],
    spawnFloor: [],
  };
  let writes = 0;
  /** Writes a file in each of `some` worktrees and waits until the watcher reported every one. */
  const touch = async (some: readonly AgentRecord[]) => {
    const before = some.map((r) => watcher.counts.get(r.cwd) ?? 0);
    writes++;
    await Promise.all(some.map((r) => fs.appendFile(path.join(r.cwd, 'notes', `agent-${r.id}.log`), `${writes}\n`)));
    await waitUntil('file events', () => some.every((r, i) => (watcher.counts.get(r.cwd) ?? 0) > before[i]));
  };
  const phase = async (name: string, into: number[], body: () => Promise<unknown>) => {
    const { ms: took } = await timed(body);
    into.push(took);
    console.log(`[bench] scale: ${name} ${took.toFixed(0)} ms`);
  };
  try {
    manager.resume();
    await Promise.all(records.map((r) => manager.refreshChanges(r.id)));
    // The costly baselines once each (tens of seconds under load), the refreshes several times.
    await phase('one git process per agent', samples.spawnFloor, () =>
      Promise.all(records.map((r) => runner.run(r.cwd, ['rev-parse', '--git-dir']))),
    );
    await phase('previous computation', samples.previous, () =>
      Promise.all(records.map((r) => previousChangeSet(runner, r.cwd, r.baseSha!))),
    );
    await phase('refresh, nothing changed', samples.refresh, () => refreshAll.run());
    await phase('its background pass', samples.background, () => refreshAll.settled());
    await touch(records);
    await phase('refresh, all changed', samples.refreshAllChanged, () => refreshAll.run());
    await refreshAll.settled();
    for (let round = 0; round < 5; round++) {
      await phase('refresh, nothing changed', samples.refresh, () => refreshAll.run());
      await touch(records.filter((_, i) => i % Math.ceil(count / someChanged) === round % 2));
      // The next run stops the last one's background pass: no wait for it.
      await phase(`refresh, ${someChanged} changed`, samples.refreshSomeChanged, () => refreshAll.run());
    }
    await refreshAll.settled();
    const previous = await Promise.all(records.map((r) => previousChangeSet(runner, r.cwd, r.baseSha!)));
    const key = (files: readonly ChangedFile[]) =>
      JSON.stringify([...files].sort((a, b) => (a.path < b.path ? -1 : 1)));
    const sameAsPrevious = records.filter((r, i) => key(manager.get(r.id).changedFiles) === key(previous[i])).length;
    return {
      agents: count,
      repositoryFiles: repo.fileCount,
      targetMs: refreshTargetMs,
      refreshMedianMs: median(samples.refresh),
      backgroundMedianMs: median(samples.background),
      someChanged: records.filter((_, i) => i % Math.ceil(count / someChanged) === 0).length,
      refreshSomeChangedMedianMs: median(samples.refreshSomeChanged),
      refreshAllChangedMedianMs: median(samples.refreshAllChanged),
      previousMedianMs: median(samples.previous),
      spawnFloorMedianMs: median(samples.spawnFloor),
      sameAsPrevious,
      samples,
    };
  } finally {
    refreshAll.dispose();
    bench.dispose();
    await repo.dispose();
  }
}
