/**
 * Dispatches beyond parallelAgents.maxConcurrentAgents: their record waits as `queued` (nothing
 * created yet) and starts, oldest first, once a live agent of its repository ends. The queue is
 * the records themselves, in the registry every window on the repository shares: it survives a
 * reload, and every window sees it. Any window with room may start a queued agent; it claims it
 * first with a locked read-modify-write of the stored record (queued → preparing), so of two
 * windows trying at once exactly one starts it, and the other learns who did. Paused agents whose
 * resume time came (quotaResumer.ts) go first, under the same caps; one without room stays paused,
 * marked `resumeWaitingSince`.
 */
import type { AgentRecord } from '../agent';
import type { Clock, Logger, StateStore } from '../ports';
import type { AgentRecords } from './agentRecords';
import {
  type ProviderLimits,
  capOf,
  dueResumesIn,
  dueToStart,
  holdsPlace,
  mustQueue,
  queueReason,
  queuedRepositories,
} from './queueOrder';
import { recordProvider } from './quotaPause';
import { providerCaps } from '../clis';
import type { Disposable } from '../../util/event';

export interface AgentQueueDeps {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: () => { readonly maxConcurrentAgents?: number; readonly providerLimits?: unknown };
}

export class AgentQueue implements Disposable {
  /** Starts under way by agent id (a dispatch making its record, a claim, a resume), until they end. */
  private readonly underway = new Map<string, { readonly repoRoot: string; readonly provider: string }>();
  /** The queued agents this window is starting: claim, worktree, launch. */
  private readonly starts = new Map<string, Promise<void>>();
  private scheduled = false;
  private disposed = false;
  private readonly subscription: Disposable;

  constructor(
    private readonly deps: AgentQueueDeps,
    private readonly records: AgentRecords,
    /** Whether this window follows the agent's run (its run state is this window's to keep). */
    private readonly runsHere: (id: string) => boolean,
    /** Prepares and launches a claimed record (status preparing), as a dispatch does; never rejects. */
    private readonly start: (record: AgentRecord) => Promise<void>,
    /** Resumes a paused agent whose time came, if this window claims it (QuotaResumer.resumeNow); never rejects. */
    private readonly resume: (id: string) => Promise<void>,
  ) {
    // An agent that ends, is stopped or forgotten, here or in another window, may make room.
    this.subscription = records.onDidChange(() => this.pump());
  }

  private get cap(): number {
    return capOf(this.deps.settings().maxConcurrentAgents);
  }

  private limits(now: number): ProviderLimits {
    return { caps: providerCaps(this.deps.settings().providerLimits), starting: this.starting(now).byProvider };
  }

  /**
   * The starts under way whose record does not hold a place yet, per repository and per provider:
   * once it does (a dispatch's record added as preparing, a claim), the live count has it, so it
   * is not counted twice.
   */
  private starting(now: number): { byRepo: Map<string, number>; byProvider: Map<string, number> } {
    const byRepo = new Map<string, number>();
    const byProvider = new Map<string, number>();
    for (const [id, { repoRoot, provider }] of this.underway) {
      if (!this.records.has(id) || !holdsPlace(this.records.get(id), now)) {
        byRepo.set(repoRoot, (byRepo.get(repoRoot) ?? 0) + 1);
        byProvider.set(provider, (byProvider.get(provider) ?? 0) + 1);
      }
    }
    return { byRepo, byProvider };
  }

  /**
   * Synchronously decides a dispatch: true when it may start now, counted as a start under way
   * until `admitted` ends; false when it must wait in the queue.
   */
  admit(id: string, repoRoot: string, provider: string): boolean {
    const now = this.deps.clock.now();
    const starting = this.starting(now).byRepo.get(repoRoot) ?? 0;
    if (mustQueue(this.records.list(), repoRoot, this.cap, starting, this.limits(now), provider, now)) {
      return false;
    }
    this.underway.set(id, { repoRoot, provider });
    return true;
  }

  /** Runs the start of an admitted dispatch; the queue looks again once it is done. */
  async admitted<T>(id: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.underway.delete(id);
      this.pump();
    }
  }

  /**
   * Adds the record as queued (the cap it found reached with it) and returns it. It has no folder of
   * its own yet (worktreePresent false): nothing refreshes, watches or reviews its `cwd` until it starts.
   */
  enqueue(record: AgentRecord): AgentRecord {
    const provider = recordProvider(record);
    const reason = queueReason(this.records.list(), provider, this.limits(this.deps.clock.now()));
    const queued: AgentRecord = {
      ...record,
      status: 'queued',
      queuedAtCap: this.cap,
      ...(reason !== 'cap' ? { queuedFor: reason } : {}),
      worktreePresent: false,
    };
    this.records.add(queued);
    this.deps.logger.info(`[AgentQueue] ${record.id} queued (${reason}, provider ${provider})`);
    return queued;
  }

  /** Looks for queued agents that may start (soon, once per burst of changes). */
  pump(): void {
    if (this.scheduled || this.disposed) {
      return;
    }
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.startDue();
    });
  }

  /** Resolves once the agent is no longer queued and this window is not starting it. */
  async started(id: string): Promise<void> {
    for (;;) {
      const start = this.starts.get(id);
      if (start) {
        await start;
        continue;
      }
      if (this.disposed || !this.records.has(id) || this.records.get(id).status !== 'queued') {
        return;
      }
      await new Promise<void>((resolve) => {
        const sub = this.records.onDidChange((change) => {
          if (change.id === id) {
            sub.dispose();
            resolve();
          }
        });
      });
    }
  }

  /**
   * Stop on a queued agent: stopped before anything was created, with the same locked write as a
   * claim, so it is either cancelled or started, never both. False when it is not queued (any more):
   * a start this window had under way is awaited, so that the caller can stop the run.
   */
  async cancel(id: string): Promise<boolean> {
    if (this.records.get(id).status === 'queued') {
      const endedAt = this.deps.clock.now();
      if (await this.take(id, { status: 'stopped', endedAt })) {
        this.deps.logger.info(`[AgentQueue] ${id} cancelled before it started`);
        return true;
      }
    }
    await this.starts.get(id);
    return false;
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
  }

  private startDue(): void {
    if (this.disposed) {
      return;
    }
    const records = this.records.list();
    const now = this.deps.clock.now();
    for (const repoRoot of queuedRepositories(records, now)) {
      const starting = this.starting(now).byRepo.get(repoRoot) ?? 0;
      const due = dueToStart(records, repoRoot, this.cap, starting, this.limits(now), now);
      for (const record of due.filter((r) => !this.starts.has(r.id))) {
        if (record.status === 'paused') {
          this.resumeOne(record);
        } else {
          this.startOne(record);
        }
      }
      const waiting = dueResumesIn(records, repoRoot, now).filter((r) => !due.includes(r) && !r.resumeWaitingSince);
      // A field of its own, not in `quota`: the registry merges field by field, so no claim is overwritten.
      for (const { id } of waiting) {
        this.deps.logger.info(`[AgentQueue] ${id}: its resume time came; it waits for room under the caps`);
        this.records.update(id, { resumeWaitingSince: now });
      }
    }
  }

  /** Counted as a start under way until the resume has started (or this window did not claim it). */
  private resumeOne(record: AgentRecord): void {
    const { id, repoRoot } = record;
    this.underway.set(id, { repoRoot, provider: recordProvider(record) });
    const resume = this.resume(id)
      .catch((e: Error) => this.deps.logger.error(`[AgentQueue] resuming ${id}: ${e.message}`))
      .finally(() => {
        this.starts.delete(id);
        this.underway.delete(id);
        this.pump();
      });
    this.starts.set(id, resume);
  }

  private startOne(record: AgentRecord): void {
    const { id, repoRoot } = record;
    this.underway.set(id, { repoRoot, provider: recordProvider(record) });
    const start = (async () => {
      if (await this.take(id, { status: 'preparing' })) {
        this.deps.logger.info(`[AgentQueue] starting ${id} at ${record.baseSha.slice(0, 12)}`);
        await this.start(this.records.get(id));
      }
    })()
      .catch((e: Error) => this.deps.logger.error(`[AgentQueue] starting ${id}: ${e.message}`))
      .finally(() => {
        this.starts.delete(id);
        this.underway.delete(id);
        this.pump();
      });
    this.starts.set(id, start);
  }

  /**
   * Moves a queued record on (to preparing: a claim; to stopped: a cancel) if it is still queued
   * where every window reads it: true when this window did. When another window was first, its
   * record is taken here at once (the store's watch will not announce what this read saw).
   */
  private async take(id: string, patch: Pick<AgentRecord, 'status' | 'endedAt'>): Promise<boolean> {
    await this.records.flush();
    const update = this.deps.store.update;
    const result = update
      ? await update.call(this.deps.store, id, (stored) =>
          stored.status === 'queued' ? { ...stored, ...patch } : undefined,
        )
      : undefined;
    if (!this.records.has(id)) {
      return false; // forgotten meanwhile: its file goes with the next save
    }
    const ours = this.records.get(id);
    if (result && !result.written) {
      this.deps.logger.info(`[AgentQueue] ${id}: another window moved it first (${result.record.status})`);
      this.records.applyElsewhere([{ record: result.record, base: ours }], [], this.runsHere);
      return false;
    }
    if (ours.status !== 'queued') {
      return false; // cancelled or started here meanwhile
    }
    // Written, or a store of this window alone (no update, or the record has no file there).
    this.records.update(id, patch);
    return true;
  }
}
