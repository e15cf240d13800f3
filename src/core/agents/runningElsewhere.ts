/**
 * Terminal agents another window runs. A window that opens finds their records "running" and no
 * terminal of theirs among its own; while the agent's process lives, that is no detached agent but
 * one running elsewhere: its record is left as the other window keeps it. Only when the process is
 * gone and, a grace period later, no window has written an end does this window mark it detached.
 */
import type { AgentRecord } from '../agent';
import type { Logger } from '../ports';
import { type Timers, systemTimers } from '../clis';
import type { AgentRecords } from './agentRecords';
import type { Disposable } from '../../util/event';

export interface RunningElsewhereDeps {
  /** Whether the process with this pid lives (and is not a zombie). */
  readonly processAlive: (pid: number) => boolean;
  readonly clock: { now(): number };
  readonly logger: Logger;
  readonly timers?: Timers;
}

/** How often a watched process is looked at, and how long its window gets to write its end after it died. */
export const elsewherePollMs = 1000;
export const elsewhereGraceMs = 3000;

export class RunningElsewhere implements Disposable {
  private readonly watched = new Map<string, unknown>();
  private readonly timers: Timers;

  constructor(
    private readonly deps: RunningElsewhereDeps,
    private readonly records: AgentRecords,
  ) {
    this.timers = deps.timers ?? systemTimers;
  }

  /** True when the terminal agent's process lives: it is then watched, and its record left running. */
  keep(record: AgentRecord): boolean {
    const pid = record.terminalPid;
    if (record.mode !== 'terminal' || pid === undefined || !this.deps.processAlive(pid)) {
      return false;
    }
    this.deps.logger.info(
      `[AgentManager] ${record.id}: no terminal of it here, but its process (pid ${pid}) lives: running in another window`,
    );
    this.schedule(record.id, pid, elsewherePollMs, false);
    return true;
  }

  isWatched(id: string): boolean {
    return this.watched.has(id);
  }

  dispose(): void {
    for (const handle of this.watched.values()) {
      this.timers.clearTimeout(handle);
    }
    this.watched.clear();
  }

  private schedule(id: string, pid: number, ms: number, dead: boolean): void {
    this.watched.set(
      id,
      this.timers.setTimeout(() => this.look(id, pid, dead), ms),
    );
  }

  private look(id: string, pid: number, dead: boolean): void {
    this.watched.delete(id);
    const record = this.records.has(id) ? this.records.get(id) : undefined;
    const stillRunning =
      record !== undefined &&
      (record.status === 'running' || record.status === 'waiting-for-input') &&
      record.terminalPid === pid;
    if (!stillRunning) {
      return; // its window wrote its end (or a new run) meanwhile
    }
    if (!dead) {
      const alive = this.deps.processAlive(pid);
      this.schedule(id, pid, alive ? elsewherePollMs : elsewhereGraceMs, !alive);
      return;
    }
    this.deps.logger.info(
      `[AgentManager] ${id}: its process (pid ${pid}) ended and no window recorded an end: detached`,
    );
    this.records.update(id, { status: 'detached', endedAt: this.deps.clock.now() });
  }
}
