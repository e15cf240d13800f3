import { Emitter, type Disposable } from '../../util/event';
import { ProcessForest, type ProcessUsage, type ProcStat, sampleTree, type TreeSample, treeUsage } from './processTree';

/** The machine's processes; `pageBytes` and `ticksPerSecond` turn its units into ours. */
export interface ProcessTable {
  /** Every process, or only those of `pids` that still exist. */
  read(pids?: readonly number[]): Promise<readonly ProcStat[]>;
  readonly pageBytes: number;
  readonly ticksPerSecond: number;
}

export interface UsageSamplerDeps {
  /** Undefined where processes cannot be read this way (not Linux): the sampler never starts. */
  readonly table: ProcessTable | undefined;
  /** The root process of each live agent: its supervisor, or its terminal's shell. */
  readonly roots: () => ReadonlyMap<string, number>;
  readonly timers: {
    now(): number;
    setTimeout(fn: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
  };
  readonly intervalMs: number;
  /**
   * Every how many samples the whole table is read (to find processes new in the trees); the others
   * read only the processes the trees had. Default 5. A child that comes and goes in between is not
   * missed: its time is in its parent's once reaped.
   */
  readonly fullEvery?: number;
}

/**
 * One sampler for every agent: reads the process table every `intervalMs` while it is wanted (the
 * Agents view is visible) and some agent is live, and not at all otherwise. Fires with the agents
 * whose figures changed.
 */
export class UsageSampler implements Disposable {
  private readonly samples = new Map<string, { root: number; sample: TreeSample; usage: ProcessUsage }>();
  private readonly emitter = new Emitter<readonly string[]>();
  private timer: unknown;
  private wanted = false;
  private busy = false;
  private disposed = false;
  /** The pids of every tree at the last sample, and samples since the table was read whole. */
  private members: readonly number[] = [];
  private partials = Infinity;
  readonly onDidChange = this.emitter.event;

  constructor(private readonly deps: UsageSamplerDeps) {}

  get available(): boolean {
    return this.deps.table !== undefined;
  }

  usage(id: string): ProcessUsage | undefined {
    return this.samples.get(id)?.usage;
  }

  /** Wanted while the view is visible. Call `poke` when agents start or end. */
  setWanted(wanted: boolean): void {
    this.wanted = wanted;
    if (!wanted && this.samples.size > 0) {
      // Figures of a hidden view would be stale when it shows again, and CPU averaged over the pause.
      const ids = [...this.samples.keys()];
      this.samples.clear();
      this.emitter.fire(ids);
    }
    this.poke();
  }

  /** Starts sampling when it is wanted and an agent is live; an idle sampler holds no timer. */
  poke(): void {
    this.dropEnded();
    if (this.timer === undefined && !this.busy && this.shouldRun()) {
      this.timer = this.deps.timers.setTimeout(() => void this.tick(), 0);
    }
  }

  /** An agent that ended has no figures, even when no sample follows. */
  private dropEnded(): void {
    if (this.samples.size === 0) {
      return;
    }
    const roots = this.deps.roots();
    const ended = [...this.samples.keys()].filter((id) => !roots.has(id));
    ended.forEach((id) => this.samples.delete(id));
    if (ended.length > 0) {
      this.emitter.fire(ended);
    }
  }

  private shouldRun(): boolean {
    return !this.disposed && this.wanted && this.deps.table !== undefined && this.deps.roots().size > 0;
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    if (!this.shouldRun()) {
      return;
    }
    this.busy = true;
    try {
      const roots = this.deps.roots();
      const known = new Set(this.members);
      const whole = this.partials + 1 >= (this.deps.fullEvery ?? 5) || [...roots.values()].some((r) => !known.has(r));
      const table = await this.deps.table!.read(whole ? undefined : this.members);
      this.partials = whole ? 0 : this.partials + 1;
      this.record(new ProcessForest(table), this.deps.timers.now());
    } catch {
      // The table could not be read this time: the figures stay as they were, the next tick tries again.
    } finally {
      this.busy = false;
    }
    if (this.shouldRun()) {
      this.timer = this.deps.timers.setTimeout(() => void this.tick(), this.deps.intervalMs);
    }
  }

  private record(forest: ProcessForest, at: number): void {
    const { pageBytes, ticksPerSecond } = this.deps.table!;
    const roots = this.deps.roots();
    const changed: string[] = [];
    const members: number[] = [];
    for (const id of [...this.samples.keys()].filter((id) => !roots.has(id))) {
      this.samples.delete(id);
      changed.push(id);
    }
    for (const [id, root] of roots) {
      const tree = forest.tree(root);
      const before = this.samples.get(id);
      if (tree.length === 0) {
        if (before) {
          this.samples.delete(id);
          changed.push(id);
        }
        continue;
      }
      members.push(...tree.map((p) => p.pid));
      const sample = sampleTree(tree, at, pageBytes);
      const usage = treeUsage(before?.root === root ? before.sample : undefined, sample, ticksPerSecond);
      this.samples.set(id, { root, sample, usage });
      changed.push(id);
    }
    this.members = members;
    if (changed.length > 0) {
      this.emitter.fire(changed);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) {
      this.deps.timers.clearTimeout(this.timer);
    }
    this.timer = undefined;
    this.emitter.dispose();
  }
}
