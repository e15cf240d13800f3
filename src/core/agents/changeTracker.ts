import type { ChangedFile } from '../agent';
import type { FolderWatch, FolderWatcher, Logger } from '../ports';
import { fitsArgv, incrementalScope, mergeChanges } from './changeMerge';
import { sameChangeSet } from '../landing';
import { Limiter, yieldToEventLoop } from '../../util/limiter';
import type { Disposable } from '../../util/event';

export interface TrackedFolder {
  readonly cwd: string;
  readonly baseSha: string;
}

type Compute = (folder: TrackedFolder) => Promise<ChangedFile[]>;
/** The change set of some paths alone (relative to the folder; a folder path covers what is under it). */
type ComputePaths = (folder: TrackedFolder, paths: readonly string[]) => Promise<ChangedFile[]>;
/** Takes a computed change set; a returned promise is awaited before the refresh resolves. */
export type Publish = (id: string, files: ChangedFile[]) => unknown;

export interface ChangeTrackerOptions {
  /** Without it every refresh recomputes the whole folder. */
  readonly computePaths?: ComputePaths;
  /** How many computations run at once; by default one limit shared by every tracker. */
  readonly limiter?: Limiter;
  /** Polling of a running agent's folder that is not fully watched: first and longest interval. */
  readonly pollMs?: { readonly min: number; readonly max: number };
  /** More changed paths than this at once: a full recompute instead. */
  readonly maxPaths?: number;
  /** A full recompute at least this often (ms) while incremental ones run: what no file event shows (staging). */
  readonly fullEveryMs?: number;
}

/** 16 agents ending together queue here instead of running 16 diffs of big worktrees at once. */
const sharedLimiter = new Limiter(3);

interface Entry {
  readonly folder: TrackedFolder;
  watch: FolderWatch;
  settle: ReturnType<typeof setTimeout> | undefined;
  running: Promise<void> | undefined;
  dirty: boolean;
  /** Paths changed since the last computation began; 'all' when unknown. */
  pending: Set<string> | 'all';
  published: ChangedFile[] | undefined;
  /** Whether the last computation was of the whole folder, not of named paths. */
  lastFull: boolean;
  lastFullAt: number;
  /** Whether the last computation changed the set (the poll backs off while it does not). */
  lastChanged: boolean;
  agentRunning: boolean;
  poll: ReturnType<typeof setTimeout> | undefined;
  pollDelay: number;
  pokedAt: number;
}

/**
 * Keeps each agent's change set current. The first file event of a quiet period refreshes after a
 * short settle; events during a computation cause exactly one more. When the watcher names the
 * changed paths only those are re-examined and merged into the previous set; unknown paths, many
 * paths, or a while without one, recompute the whole folder. A folder the watcher cannot fully
 * watch is polled, with backoff, while its agent runs. No folder ever has two computations at once.
 */
export class ChangeTracker implements Disposable {
  private readonly entries = new Map<string, Entry>();
  /** Agents whose run is live, tracked or not yet (a run starts before its folder is tracked). */
  private readonly runningIds = new Set<string>();
  private readonly limiter: Limiter;
  private readonly pollMs: { readonly min: number; readonly max: number };

  constructor(
    private readonly watcher: FolderWatcher,
    private readonly compute: Compute,
    private readonly publish: Publish,
    private readonly logger: Logger,
    private readonly settleMs = 40,
    private readonly options: ChangeTrackerOptions = {},
  ) {
    this.limiter = options.limiter ?? sharedLimiter;
    this.pollMs = options.pollMs ?? { min: 2000, max: 30_000 };
  }

  track(id: string, folder: TrackedFolder): void {
    if (this.entries.has(id)) {
      return;
    }
    const entry: Entry = {
      folder,
      watch: { dispose() {} },
      settle: undefined,
      running: undefined,
      dirty: false,
      pending: 'all',
      published: undefined,
      lastFull: false,
      lastFullAt: 0,
      lastChanged: false,
      agentRunning: this.runningIds.has(id),
      poll: undefined,
      pollDelay: this.pollMs.min,
      pokedAt: 0,
    };
    this.entries.set(id, entry);
    entry.watch = this.watcher.watch(folder.cwd, (paths) => this.onFiles(id, entry, paths));
    this.schedulePoll(id, entry);
  }

  untrack(id: string): void {
    const entry = this.entries.get(id);
    if (entry) {
      entry.watch.dispose();
      clearTimeout(entry.settle);
      clearTimeout(entry.poll);
      this.entries.delete(id);
    }
  }

  /** Recomputes the whole change set; resolves once the published set reflects the folder as it is now. */
  refresh(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) {
      return Promise.resolve();
    }
    entry.pending = 'all';
    return this.start(id, entry);
  }

  /**
   * What Refresh Agents waits for: every change the watcher reported, a computation under way joined, named paths
   * alone. True: a whole-folder pass begun now, which sees a stage too; false leaves that to a later refresh().
   */
  refreshSeen(id: string): Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.watch.complete === false || entry.pending === 'all') {
      return this.refresh(id).then(() => true);
    }
    if (entry.running || entry.settle || entry.pending.size > 0) {
      return (entry.running ?? this.start(id, entry)).then(() => false);
    }
    return entry.lastFull ? this.refresh(id).then(() => true) : Promise.resolve(false);
  }

  /** While its agent runs, a folder the watcher does not fully cover is polled. */
  setRunning(id: string, running: boolean): void {
    if (running) {
      this.runningIds.add(id);
    } else {
      this.runningIds.delete(id);
    }
    const entry = this.entries.get(id);
    if (!entry) {
      return;
    }
    entry.agentRunning = running;
    if (running) {
      this.schedulePoll(id, entry);
    } else {
      clearTimeout(entry.poll);
      entry.poll = undefined;
    }
  }

  /** The agent reported progress: it may have written where no watch sees; at most one refresh a second. */
  poke(id: string): void {
    const entry = this.entries.get(id);
    const now = Date.now();
    if (!entry || entry.watch.complete !== false || now - entry.pokedAt < 1000) {
      return;
    }
    entry.pokedAt = now;
    entry.pending = 'all';
    entry.pollDelay = this.pollMs.min;
    this.scheduleSettle(id, entry);
  }

  private onFiles(id: string, entry: Entry, paths: readonly string[] | undefined): void {
    if (this.entries.get(id) !== entry) {
      return;
    }
    const max = this.options.maxPaths ?? 200;
    if (paths === undefined || entry.pending === 'all' || entry.pending.size + paths.length > max) {
      entry.pending = 'all';
    } else {
      paths.forEach((p) => (entry.pending as Set<string>).add(p));
    }
    if (entry.agentRunning) {
      this.schedulePoll(id, entry); // the watch may have just lost part of the folder
    }
    this.scheduleSettle(id, entry);
  }

  private scheduleSettle(id: string, entry: Entry): void {
    if (entry.running) {
      entry.dirty = true;
    } else if (!entry.settle) {
      entry.settle = setTimeout(() => {
        entry.settle = undefined;
        void this.start(id, entry);
      }, this.settleMs);
    }
  }

  private schedulePoll(id: string, entry: Entry): void {
    if (entry.poll || !entry.agentRunning || entry.watch.complete !== false) {
      return;
    }
    entry.poll = setTimeout(() => {
      entry.poll = undefined;
      if (this.entries.get(id) !== entry) {
        return;
      }
      entry.pending = 'all';
      void this.start(id, entry).then(() => {
        entry.pollDelay = entry.lastChanged ? this.pollMs.min : Math.min(entry.pollDelay * 2, this.pollMs.max);
        this.schedulePoll(id, entry);
      });
    }, entry.pollDelay);
  }

  private start(id: string, entry: Entry): Promise<void> {
    clearTimeout(entry.settle);
    entry.settle = undefined;
    entry.dirty = true;
    entry.running ??= this.drain(id, entry);
    return entry.running;
  }

  /** One computation at a time per folder; a change arriving mid-run causes exactly one more. */
  private async drain(id: string, entry: Entry): Promise<void> {
    try {
      while (entry.dirty) {
        entry.dirty = false;
        await this.computeOnce(id, entry);
        if (entry.dirty) {
          await new Promise((resolve) => setTimeout(resolve, this.settleMs)); // lets a burst gather
        }
      }
    } finally {
      // Cleared in the same turn as the last dirty check, so no request can fall in between.
      entry.running = undefined;
    }
  }

  private async computeOnce(id: string, entry: Entry): Promise<void> {
    const pending = entry.pending;
    entry.pending = new Set();
    const previous = entry.published;
    const computePaths = this.options.computePaths;
    const known = pending !== 'all' && pending.size > 0 && previous !== undefined;
    const scope = known ? incrementalScope(previous, pending) : undefined;
    const full =
      scope === undefined ||
      computePaths === undefined ||
      !fitsArgv(scope, this.options.maxPaths ?? 200) ||
      Date.now() - entry.lastFullAt > (this.options.fullEveryMs ?? 60_000);
    const startedAt = Date.now();
    try {
      const files = await this.limiter.run(async () =>
        full ? this.compute(entry.folder) : mergeChanges(previous!, scope, await computePaths(entry.folder, scope)),
      );
      await yieldToEventLoop();
      if (this.entries.get(id) !== entry) {
        return;
      }
      entry.lastChanged = previous === undefined || !sameChangeSet(previous, files);
      entry.published = files;
      entry.lastFull = full;
      if (full) {
        entry.lastFullAt = startedAt;
        entry.watch.focus?.(files.flatMap((f) => (f.oldPath !== undefined ? [f.path, f.oldPath] : [f.path])));
      }
      await this.publish(id, files);
    } catch (e) {
      entry.pending = 'all';
      this.logger.warn(`[ChangeTracker] refresh of ${entry.folder.cwd} failed: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    for (const id of [...this.entries.keys()]) {
      this.untrack(id);
    }
  }
}
