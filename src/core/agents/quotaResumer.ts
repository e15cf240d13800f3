/**
 * Resumes agents paused on a provider's limit (status `paused`, see quotaPause.ts) once their
 * `quota.resumeAt` comes: a follow-up in the same worktree. Every window on the repository has the
 * record (the registry is shared) and a timer for it; at that time it hands the resume to the queue
 * (AgentQueue), which starts it as soon as the caps leave room, before queued dispatches
 * (queueOrder.ts). The window that claims it first (a locked write of `claimedAt` in the stored
 * record) resumes it. A timer goes as soon as the record is no longer paused (Stop, Discard, a
 * resume elsewhere) or is forgotten; a reload finds the paused record and sets its timer again (a
 * time already past is due at once).
 */
import type { AgentRecord } from '../agent';
import type { Clock, Logger, StateStore } from '../ports';
import type { AgentRecords } from './agentRecords';
import { resumePrompt } from './quotaPause';
import { claimHoldsMs } from './queueOrder';
import type { Disposable } from '../../util/event';
/** setTimeout's longest delay; a later resume time is looked at again then. */
const longestDelayMs = 2 ** 31 - 1;

export interface QuotaResumerDeps {
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class QuotaResumer implements Disposable {
  private readonly timers = new Map<string, { at: number; handle: ReturnType<typeof setTimeout> }>();
  private readonly subscription: Disposable;
  private disposed = false;

  constructor(
    private readonly deps: QuotaResumerDeps,
    private readonly records: AgentRecords,
    private readonly runsHere: (id: string) => boolean,
    /** Sends the follow-up (AgentManager.followUp); a rejection fails the agent. */
    private readonly resume: (id: string, prompt: string) => Promise<void>,
    /** Told when a paused agent's resume time came (or its claim lapsed): it looks for room and calls resumeNow. */
    private readonly queue: { pump(): void },
  ) {
    this.subscription = records.onDidChange(({ id }) => this.sync(id));
  }

  /** Sets the timers of the paused agents there are now (after a restore). */
  scan(): void {
    for (const record of this.records.list()) {
      this.sync(record.id);
    }
  }

  /** The resume time of a paused agent this window has a timer for. */
  scheduledAt(id: string): number | undefined {
    return this.timers.get(id)?.at;
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    for (const { handle } of this.timers.values()) {
      clearTimeout(handle);
    }
    this.timers.clear();
  }

  private sync(id: string): void {
    const record = this.records.has(id) ? this.records.get(id) : undefined;
    const quota = record?.status === 'paused' ? record.quota : undefined;
    // A pause another window (or this one) claimed is looked at again only once its claim has lapsed.
    const at = quota && Math.max(quota.resumeAt, (quota.claimedAt ?? -Infinity) + claimHoldsMs + 1);
    const timer = this.timers.get(id);
    if (timer && timer.at === at) {
      return;
    }
    if (timer) {
      clearTimeout(timer.handle);
      this.timers.delete(id);
    }
    if (!quota || at === undefined || this.disposed) {
      return;
    }
    const delay = Math.min(Math.max(at - this.deps.clock.now(), 0), longestDelayMs);
    const handle = setTimeout(() => {
      this.timers.delete(id);
      if (this.deps.clock.now() < at) {
        this.sync(id); // a resume time beyond setTimeout's reach
      } else if (!this.disposed) {
        this.queue.pump();
      }
    }, delay);
    this.timers.set(id, { at, handle });
  }

  /**
   * Resumes the paused agent now, if this window claims it (the queue found room for it); resolves
   * once its follow-up started, or failed it.
   */
  async resumeNow(id: string): Promise<void> {
    const at = this.records.has(id) ? this.records.get(id).quota?.resumeAt : undefined;
    if (at === undefined || !(await this.claim(id, at))) {
      return;
    }
    const record = this.records.get(id);
    this.deps.logger.info(`[QuotaResumer] resuming ${id} (pause ${record.quota?.attempt ?? '?'} in a row)`);
    try {
      await this.resume(id, resumePrompt(record));
    } catch (e) {
      const error = (e as Error).message;
      this.deps.logger.warn(`[QuotaResumer] resuming ${id} failed: ${error}`);
      if (this.records.has(id) && this.records.get(id).status === 'paused') {
        this.records.update(id, { status: 'failed', error, endedAt: this.deps.clock.now() });
      }
    }
  }

  /**
   * Marks the pause claimed where every window reads it, if it is still the same pause and no other
   * window claimed it lately: true when this window did.
   */
  private async claim(id: string, at: number): Promise<boolean> {
    const now = this.deps.clock.now();
    const fits = (r: AgentRecord) =>
      r.status === 'paused' &&
      r.quota?.resumeAt === at &&
      (r.quota.claimedAt === undefined || now - r.quota.claimedAt > claimHoldsMs);
    const claimed = (r: AgentRecord): AgentRecord => ({
      ...r,
      quota: r.quota && { ...r.quota, claimedAt: now },
      resumeWaitingSince: undefined,
    });
    await this.records.flush();
    if (this.disposed || !this.records.has(id) || !fits(this.records.get(id))) {
      return false;
    }
    const update = this.deps.store.update;
    const result = update
      ? await update.call(this.deps.store, id, (stored) => (fits(stored) ? claimed(stored) : undefined))
      : undefined;
    if (this.disposed || !this.records.has(id)) {
      return false;
    }
    if (result && !result.written) {
      this.deps.logger.info(`[QuotaResumer] ${id}: another window resumes it (${result.record.status})`);
      this.records.applyElsewhere([{ record: result.record, base: this.records.get(id) }], [], this.runsHere);
      return false;
    }
    const ours = this.records.get(id);
    if (!fits(ours)) {
      return false;
    }
    this.records.update(id, { quota: claimed(ours).quota, resumeWaitingSince: undefined });
    return true;
  }
}
