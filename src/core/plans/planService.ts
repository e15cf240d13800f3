import { AgentError } from '../errors';
import type { Plan, PlanRunRecord } from './planTypes';
import { PlanRun, type PlanRunDeps } from './planRun';
import type { MergeStrategy } from '../git';
import type { ChangedElsewhere, PlanStore, WindowPresence } from '../ports';
import { CoalescedSave } from '../../util/async';
import { type Disposable, Emitter } from '../../util/event';
import { claimRecord, DriverWatch, drivenElsewhere, sameWindow, soleWindow } from './driverWatch';

export interface PlanServiceOptions {
  /** Which windows are open; default: this window alone (a store no other window shares). */
  readonly presence?: WindowPresence;
  /** How often runs driven elsewhere are checked for a driver that is gone (driverWatchMs). */
  readonly watchMs?: number;
}

/**
 * Every plan run of the workspace: start, control, land, remove; fires when any run or task
 * changes. Runs are saved on every change and restored by the next window, which goes on with
 * them after resume(): the agents of their running tasks are adopted by the AgentManager.
 * Of the windows open on a repository, one drives each run (see driverWatch.ts); the others show
 * it as the driver writes it, ask the driver to stop it, and take it over once its window is gone.
 */
export class PlanService implements Disposable {
  private readonly runs = new Map<string, PlanRun>();
  private readonly subscriptions = new Map<string, Disposable>();
  /** The runs another window drives (or none does yet): saved back as last written. */
  private readonly watch: DriverWatch;
  private readonly emitter = new Emitter<{ runId: string }>();
  private readonly saves: CoalescedSave;
  private readonly presence: WindowPresence;
  private readonly changesElsewhere: Disposable | undefined;
  private disposed = false;
  private resumed = false;
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly deps: PlanRunDeps,
    private readonly store: PlanStore,
    private readonly newId: () => string,
    private readonly options: PlanServiceOptions = {},
  ) {
    this.presence = options.presence ?? soleWindow(Math.random().toString(36).slice(2));
    this.watch = new DriverWatch({ claim: (id) => this.tryClaim(id), changed: (id) => this.fire(id) }, this.presence);
    // A save that runs after dispose() would write what the closing window saw last: dispose() saved already.
    this.saves = new CoalescedSave(
      async () => (this.disposed ? undefined : store.save(this.records())),
      (e) => this.saveFailed(e),
    );
    for (const record of store.load()) {
      try {
        const run = this.follow(record);
        const states = [...run.scheduler.states()].map(([id, state]) => `${id} ${state}`).join(', ');
        deps.logger.info(`[PlanService] restored plan run ${run.id} "${run.plan.title}": ${states}`);
      } catch (e) {
        // A record the scheduler cannot take (an older format) is dropped, not fatal.
        deps.logger.warn(
          `[PlanService] plan run ${record.id} could not be restored: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
    this.changesElsewhere = store.onDidChangeElsewhere?.((e) => this.takeElsewhere(e));
  }

  /**
   * Goes on with the restored runs (once, in a trusted workspace) that no open window drives:
   * follows their agents, merges, starts what is ready; from then on takes over the runs whose
   * driver window is gone.
   */
  resume(): void {
    if (!this.resumed && !this.disposed) {
      this.resumed = true;
      this.watch.start(this.options.watchMs);
    }
  }

  /** Another open window drives the run: Start, Retry and Skip are there. */
  drivenElsewhere(runId: string): boolean {
    return this.watch.isElsewhere(runId);
  }

  async start(plan: Plan, folder: string): Promise<PlanRun> {
    const run = await PlanRun.create(this.deps, this.newId(), plan, folder);
    this.add(run);
    run.scheduler.start();
    this.changed(run.id);
    return run;
  }

  list(): PlanRun[] {
    return [...this.runs.values()];
  }

  /** undefined once the run has been removed (a change event names a removed run too). */
  find(runId: string): PlanRun | undefined {
    return this.runs.get(runId);
  }

  get(runId: string): PlanRun {
    const run = this.runs.get(runId);
    if (!run) {
      throw new AgentError('noSuchPlanRun', { runId });
    }
    return run;
  }

  async retry(runId: string, taskId: string): Promise<void> {
    await this.drive(runId);
    this.get(runId).scheduler.retry(taskId);
  }

  async skip(runId: string, taskId: string): Promise<void> {
    await this.drive(runId);
    this.get(runId).scheduler.skip(taskId);
  }

  /** Pick on a candidate of a Best of N task waiting for one (PlanRun.pickCandidate). */
  async pick(runId: string, taskId: string, agentId: string): Promise<void> {
    await this.drive(runId);
    this.get(runId).pickCandidate(taskId, agentId);
  }

  /** Driven elsewhere: asks the driver (the record's stopRequested); it stops the run and clears it. */
  async stop(runId: string): Promise<void> {
    const run = this.get(runId);
    if (!this.watch.record(runId)) {
      return run.scheduler.stop();
    }
    const asked = await this.store.update?.(runId, (r) =>
      drivenElsewhere(r, this.presence) ? { ...r, stopRequested: true } : undefined,
    );
    if (asked?.written) {
      this.deps.logger.info(`[PlanService] ${runId}: asked its driver window to stop it`);
      this.takeFollowed(asked.record);
      return;
    }
    await this.drive(runId);
    return run.scheduler.stop();
  }

  land(runId: string, strategy: MergeStrategy) {
    return this.get(runId).land(strategy);
  }

  /** Drops a run that is not running (its task agents stay); see PlanRun.removeIntegration. */
  async remove(runId: string): Promise<{ readonly branchKept: boolean }> {
    const run = this.get(runId);
    const busy = run.activeTasks();
    if (busy.length > 0) {
      throw new AgentError('planStillRunning', { title: run.plan.title, tasks: busy });
    }
    const outcome = await run.removeIntegration();
    this.drop(runId);
    this.changed(runId);
    return outcome;
  }

  flush(): Promise<void> {
    return this.saves.flush();
  }

  /**
   * A closing window's agents end unseen (supervised ones go on), so no change after this is
   * saved: the next window goes on from the state as it is now, which a pending save writes here.
   */
  dispose(): void {
    if (this.saves.pending) {
      void this.store.save(this.records()).catch((e: Error) => this.saveFailed(e));
    }
    this.disposed = true;
    this.watch.dispose();
    this.changesElsewhere?.dispose();
    this.subscriptions.forEach((s) => s.dispose());
    this.emitter.dispose();
  }

  /** The runs driven here as they are now, with this window as driver; the others as last written. */
  private records(): PlanRunRecord[] {
    return this.list().map((run) => this.watch.record(run.id) ?? { ...run.toRecord(), driver: this.presence.self });
  }

  /** A run started here: driven here. */
  private add(run: PlanRun): void {
    this.runs.set(run.id, run);
    this.subscribe(run);
  }

  private subscribe(run: PlanRun): void {
    this.subscriptions.get(run.id)?.dispose();
    this.subscriptions.set(
      run.id,
      run.scheduler.onDidChange(() => this.changed(run.id)),
    );
  }

  /** Shows a run as another window (or an earlier one) wrote it; its scheduler stays still. */
  private follow(record: PlanRunRecord): PlanRun {
    let run = this.runs.get(record.id);
    if (run) {
      run.load(record);
    } else {
      run = PlanRun.restore(this.deps, record);
      this.runs.set(run.id, run);
    }
    this.subscribe(run);
    this.watch.follow(record);
    return run;
  }

  private takeFollowed(record: PlanRunRecord): void {
    this.follow(record);
    this.fire(record.id);
  }

  private drop(runId: string): void {
    this.subscriptions.get(runId)?.dispose();
    this.subscriptions.delete(runId);
    this.runs.get(runId)?.scheduler.dispose();
    this.runs.delete(runId);
    this.watch.forget(runId);
  }

  /** Drives the run here, taking it over when no open window drives it; refused when one does. */
  private async drive(runId: string): Promise<void> {
    const run = this.get(runId);
    if (this.watch.record(runId) && !(await this.watch.claim(runId))) {
      throw new AgentError('planDrivenElsewhere', { title: run.plan.title });
    }
  }

  private async tryClaim(runId: string): Promise<boolean> {
    const known = this.watch.record(runId);
    if (!known) {
      return this.runs.has(runId);
    }
    const result = await claimRecord(this.store, this.presence, known);
    if (this.disposed || !result || !this.watch.record(runId)) {
      return false;
    }
    if (!result.written) {
      this.takeFollowed(result.record);
      return false;
    }
    const run = this.get(runId);
    // Unless the driver wrote more since this window read the run, the run goes on as it is.
    if (JSON.stringify({ ...result.record, driver: known.driver }) !== JSON.stringify(known)) {
      run.load(result.record);
      this.subscribe(run);
    }
    this.watch.forget(runId);
    this.deps.logger.info(`[PlanService] ${runId}: driven here now (its driver window is gone or there was none)`);
    run.scheduler.resume();
    this.changed(runId);
    return true;
  }

  /** What another window wrote or removed: followed runs show it; a run driven here takes a stop request. */
  private takeElsewhere(e: ChangedElsewhere<PlanRunRecord>): void {
    for (const id of e.removed) {
      if (this.runs.has(id)) {
        this.drop(id);
        this.fire(id);
      }
    }
    for (const { record } of e.changed) {
      const drivenHere = this.runs.has(record.id) && !this.watch.record(record.id);
      if (drivenHere && record.driver !== undefined && !sameWindow(record.driver, this.presence.self)) {
        this.deps.logger.warn(`[PlanService] ${record.id}: another window drives it now; this one follows`);
        this.takeFollowed(record);
      } else if (drivenHere && record.stopRequested) {
        this.deps.logger.info(`[PlanService] ${record.id}: another window asked to stop it`);
        // The next save clears the request: this window's record has none.
        this.saves.request();
        void this.get(record.id)
          .scheduler.stop()
          .catch((err: Error) => this.deps.logger.error(`[PlanService] stopping ${record.id}: ${err.message}`));
      } else if (!drivenHere) {
        this.takeFollowed(record);
      }
    }
  }

  private fire(runId: string): void {
    if (!this.disposed) {
      this.emitter.fire({ runId });
    }
  }

  private changed(runId: string): void {
    if (this.disposed) {
      return;
    }
    this.saves.request();
    this.emitter.fire({ runId });
  }

  private saveFailed(e: Error): void {
    this.deps.logger.error(`[PlanService] saving plan runs failed: ${e.message}`);
  }
}
