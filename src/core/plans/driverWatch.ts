/**
 * Who drives each plan run. One window at a time runs a run's scheduler: the one named in the
 * record's `driver`, claimed with a locked read-modify-write of the record, so two windows never
 * both drive it. Every other window follows the run as the driver writes it. The watch looks at
 * the followed runs every few seconds: a run whose driver window is gone (its process ended) and
 * that has work to go on with is taken over.
 */
import type { PlanRunRecord, WindowId } from './planTypes';
import type { PlanStore, RecordUpdate, WindowPresence } from '../ports';
import type { Disposable } from '../../util/event';

/** How often followed runs are checked: a gone driver is replaced about this long after. */
export const driverWatchMs = 2000;

export function sameWindow(a: WindowId, b: WindowId): boolean {
  return a.host === b.host && a.pid === b.pid && a.start === b.start && a.boot === b.boot && a.instance === b.instance;
}

/** Another window that is still open drives the run. */
export function drivenElsewhere(record: PlanRunRecord, presence: WindowPresence): boolean {
  return record.driver !== undefined && !sameWindow(record.driver, presence.self) && presence.isAlive(record.driver);
}

/** The run has something to go on with: a task runs or merges, or a started run has tasks left to start. */
export function needsDriver(record: PlanRunRecord): boolean {
  const states = Object.values(record.scheduler.tasks).map((t) => t.state);
  const active = states.some((s) => s === 'running' || s === 'integrating');
  const left = states.some((s) => s === 'queued' || s === 'waiting');
  return active || (record.scheduler.started && !record.scheduler.stopped && left);
}

/**
 * Makes this window the run's driver when no open window drives it: a locked read-modify-write of
 * the stored record, so of two windows claiming at once one wins and the other learns who did.
 * A store without update is one window's alone: the known record is claimed as it is.
 */
export async function claimRecord(
  store: PlanStore,
  presence: WindowPresence,
  known: PlanRunRecord,
): Promise<RecordUpdate<PlanRunRecord> | undefined> {
  const free = (r: PlanRunRecord) => !drivenElsewhere(r, presence);
  const claimed = (r: PlanRunRecord) => ({ ...r, driver: presence.self });
  if (store.update) {
    return store.update(known.id, (r) => (free(r) ? claimed(r) : undefined));
  }
  return free(known) ? { record: claimed(known), written: true } : { record: known, written: false };
}

/**
 * For a store without update (one window's memory): a window that is alone; every other window is
 * gone, as when the previous one was closed.
 */
export function soleWindow(instance: string): WindowPresence {
  const self: WindowId = { host: '', pid: 0, instance };
  return { self, isAlive: (w) => sameWindow(w, self) };
}

export interface DriverWatchHost {
  /** Tries to make this window the run's driver; true once it is. */
  claim(runId: string): Promise<boolean>;
  /** The run's shown state changed (now driven elsewhere, or no longer). */
  changed(runId: string): void;
}

/**
 * The runs this window follows (drives not), as last written, which of them an open window drives,
 * and one claim of a run at a time. Once started, checks them every few seconds.
 */
export class DriverWatch implements Disposable {
  private readonly followed = new Map<string, PlanRunRecord>();
  private readonly elsewhere = new Set<string>();
  private readonly claims = new Map<string, Promise<boolean>>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly host: DriverWatchHost,
    private readonly presence: WindowPresence,
  ) {}

  /** From now on (once), takes over the followed runs whose driver window is gone. */
  start(intervalMs = driverWatchMs): void {
    this.timer ??= setInterval(() => this.check(), intervalMs);
    this.check();
  }

  follow(record: PlanRunRecord): void {
    this.followed.set(record.id, record);
    this.setElsewhere(record.id, drivenElsewhere(record, this.presence));
  }

  /** The run as last written, when this window follows it. */
  record(runId: string): PlanRunRecord | undefined {
    return this.followed.get(runId);
  }

  isElsewhere(runId: string): boolean {
    return this.elsewhere.has(runId);
  }

  /** Driven here now, or removed. */
  forget(runId: string): void {
    this.followed.delete(runId);
    this.elsewhere.delete(runId);
  }

  claim(runId: string): Promise<boolean> {
    const pending = this.claims.get(runId);
    if (pending) {
      return pending;
    }
    const claim = this.host.claim(runId).finally(() => this.claims.delete(runId));
    this.claims.set(runId, claim);
    return claim;
  }

  check(): void {
    for (const record of [...this.followed.values()]) {
      if (this.setElsewhere(record.id, drivenElsewhere(record, this.presence))) {
        this.host.changed(record.id);
      }
      if (!this.elsewhere.has(record.id) && needsDriver(record)) {
        void this.claim(record.id);
      }
    }
  }

  dispose(): void {
    clearInterval(this.timer);
  }

  /** True when it changed. */
  private setElsewhere(runId: string, elsewhere: boolean): boolean {
    if (elsewhere === this.elsewhere.has(runId)) {
      return false;
    }
    void (elsewhere ? this.elsewhere.add(runId) : this.elsewhere.delete(runId));
    return true;
  }
}
