/**
 * What moves a task between the scheduler's states on a runner's outcome: starting its run,
 * following it to its end (running → integrating | picking | failed | stopped), and merging it into
 * the integration branch, one integration at a time in the order they were asked for.
 */
import { SerialQueue } from '../../util/async';
import { storedLine } from '../errors';
import type { Entry } from './planEntries';
import type { RunOutcome, TaskRunner, TaskState } from './planTypes';
import type { Clock } from '../ports';

export const conflictReason = storedLine('taskConflicted', {});

/** The scheduler's side: every state change goes through `set`; `settle` recomputes and starts what is ready. */
export interface FlowHost {
  set(entry: Entry, state: TaskState, reason?: string): void;
  settle(): void;
}

export class TaskFlow {
  private readonly integrations = new SerialQueue();

  constructor(
    private readonly runner: TaskRunner,
    private readonly clock: Clock,
    private readonly host: FlowHost,
  ) {}

  launch(entry: Entry): void {
    entry.timings = { queuedAt: entry.timings.queuedAt, startedAt: this.clock.now() };
    this.host.set(entry, 'running');
    let run: Promise<RunOutcome>;
    try {
      run = this.runner.run(entry.task, entry.prerequisites.length > 0 ? 'integration' : 'base');
    } catch (e) {
      run = Promise.reject(e);
    }
    this.follow(entry, run);
  }

  follow(entry: Entry, run: Promise<RunOutcome | 'notStarted'>): void {
    run.then(
      (outcome) => {
        if (outcome === 'notStarted') {
          entry.timings = {};
          this.host.set(entry, 'queued');
          this.host.settle();
        } else {
          this.endRun(entry, outcome === 'succeeded' ? 'integrating' : outcome === 'pick' ? 'picking' : outcome);
        }
      },
      (e: unknown) => this.endRun(entry, 'failed', messageOf(e)),
    );
  }

  integrate(entry: Entry): void {
    void this.integrations.run(async () => {
      try {
        if ((await this.runner.integrate(entry.task)) === 'merged') {
          entry.timings.integratedAt = this.clock.now();
          this.host.set(entry, 'done');
        } else {
          this.host.set(entry, 'conflicted', conflictReason);
        }
      } catch (e) {
        this.host.set(entry, 'failed', messageOf(e));
      }
      this.host.settle();
    });
  }

  private endRun(entry: Entry, state: TaskState, reason?: string): void {
    entry.timings.endedAt = this.clock.now();
    this.host.set(entry, state, reason);
    if (state === 'integrating') {
      this.integrate(entry);
    }
    this.host.settle();
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
