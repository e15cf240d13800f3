import { AgentError } from '../errors';
import type { Plan, PlanRunRecord } from './planTypes';
import { PlanRun, type PlanRunDeps } from './planRun';
import type { MergeStrategy } from '../git';
import type { PlanStore } from '../ports';
import { CoalescedSave } from '../../util/async';
import { type Disposable, Emitter } from '../../util/event';

/**
 * Every plan run of the workspace: start, control, land, remove; fires when any run or task
 * changes. Runs are saved on every change and restored by the next window, which goes on with
 * them after resume(): the agents of their running tasks are adopted by the AgentManager.
 */
export class PlanService implements Disposable {
  private readonly runs = new Map<string, PlanRun>();
  private readonly subscriptions = new Map<string, Disposable>();
  private readonly emitter = new Emitter<{ runId: string }>();
  private readonly saves: CoalescedSave;
  private disposed = false;
  private resumed = false;
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly deps: PlanRunDeps,
    private readonly store: PlanStore,
    private readonly newId: () => string,
  ) {
    // A save that runs after dispose() would write what the closing window saw last: dispose() saved already.
    this.saves = new CoalescedSave(
      async () => (this.disposed ? undefined : store.save(this.records())),
      (e) => this.saveFailed(e),
    );
    for (const record of store.load()) {
      try {
        const run = PlanRun.restore(deps, record);
        this.add(run);
        const states = [...run.scheduler.states()].map(([id, state]) => `${id} ${state}`).join(', ');
        deps.logger.info(`[PlanService] restored plan run ${run.id} "${run.plan.title}": ${states}`);
      } catch (e) {
        // A record the scheduler cannot take (an older format) is dropped, not fatal.
        deps.logger.warn(
          `[PlanService] plan run ${record.id} could not be restored: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
  }

  /**
   * Goes on with the restored runs (once, in a trusted workspace): follows their agents, merges,
   * starts what is ready.
   */
  resume(): void {
    if (!this.resumed) {
      this.resumed = true;
      this.runs.forEach((run) => run.scheduler.resume());
    }
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

  retry(runId: string, taskId: string): void {
    this.get(runId).scheduler.retry(taskId);
  }

  skip(runId: string, taskId: string): void {
    this.get(runId).scheduler.skip(taskId);
  }

  stop(runId: string): Promise<void> {
    return this.get(runId).scheduler.stop();
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
    this.subscriptions.get(runId)?.dispose();
    this.subscriptions.delete(runId);
    this.runs.delete(runId);
    run.scheduler.dispose();
    this.changed(runId);
    return outcome;
  }

  /** Resolves when every change so far has been saved. */
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
    this.subscriptions.forEach((s) => s.dispose());
    this.emitter.dispose();
  }

  private records(): PlanRunRecord[] {
    return this.list().map((r) => r.toRecord());
  }

  private add(run: PlanRun): void {
    this.runs.set(run.id, run);
    this.subscriptions.set(
      run.id,
      run.scheduler.onDidChange(() => this.changed(run.id)),
    );
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
