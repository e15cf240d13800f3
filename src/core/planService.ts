import { AgentError } from './errors';
import type { Plan } from './planTypes';
import { PlanRun, type PlanRunDeps } from './planRun';
import type { MergeStrategy } from './ports';
import { type Disposable, Emitter } from '../util/event';

/** Every plan run of the window: start, control, land; fires when any run or task changes. */
export class PlanService implements Disposable {
  private readonly runs = new Map<string, PlanRun>();
  private readonly subscriptions: Disposable[] = [];
  private readonly emitter = new Emitter<{ runId: string }>();
  readonly onDidChange = this.emitter.event;

  constructor(
    private readonly deps: PlanRunDeps,
    private readonly newId: () => string,
  ) {}

  async start(plan: Plan, folder: string): Promise<PlanRun> {
    const run = await PlanRun.create(this.deps, this.newId(), plan, folder);
    this.runs.set(run.id, run);
    this.subscriptions.push(run.scheduler.onDidChange(() => this.emitter.fire({ runId: run.id })));
    run.scheduler.start();
    this.emitter.fire({ runId: run.id });
    return run;
  }

  list(): PlanRun[] {
    return [...this.runs.values()];
  }

  get(runId: string): PlanRun {
    const run = this.runs.get(runId);
    if (!run) {
      throw new AgentError('unknownAgent', `There is no plan run with id "${runId}".`);
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

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.emitter.dispose();
  }
}
