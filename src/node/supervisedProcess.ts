import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { AgentProcess, ProcessExit } from '../core/ports';
import { storedLine } from '../core/errors';
import type { Event } from '../util/event';
import { delay } from '../util/async';
import { endGroup, signalGroup } from '../supervisor/processGroup';
import type { SupervisorStatus } from '../supervisor/protocol';
import { type LogSlice, readLastText, readLog } from './logReader';
import { LogOutput } from './logOutput';
import { ownGroup, readStatus, supervisorAlive, toProcessExit, watchStatusFile } from './supervisorStatus';

/** The runner's settings a process needs (see SupervisedRunnerOptions). */
export interface ProcessSettings {
  readonly graceMs: number;
  readonly pollMs: number;
  readonly idlePollMs: number;
  readonly tailChars: number;
}

export interface ProcessInit {
  readonly settings: ProcessSettings;
  readonly logPath: string;
  readonly statusPath: string;
  readonly specPath: string;
  /** Log position where live output starts. */
  readonly position: number;
  /** The supervisor this host spawned (start), or what the status said (adopt). */
  readonly supervisor?: ChildProcess;
  readonly status?: SupervisorStatus;
  readonly lostMessage: string;
}

/**
 * An agent under its supervisor, seen from the extension host. Its end comes from the status file
 * (watched) and the supervisor's exit; its output is read from the log only while someone listens
 * to onDidOutput (LogOutput). No event, no work: a poll stands in every pollMs only when watching
 * fails, else a slow one (idlePollMs) for events a file system dropped and a supervisor that died
 * without writing its end.
 */
export class SupervisedProcess implements AgentProcess {
  /** The supervisor's pid: the process that stop() signals. */
  readonly pid?: number;
  readonly exit: Promise<ProcessExit>;
  /** Log position where live output began; readLogFrom(0, { end: startOffset }) is what came before. */
  readonly startOffset: number;
  private readonly output: LogOutput;
  /** From startOffset on, in order; what was printed while nobody listened comes to the next listener. */
  readonly onDidOutput: Event<string>;
  private resolveExit!: (exit: ProcessExit) => void;
  private lastStatus?: SupervisorStatus;
  private supervisorExited = false;
  private settled = false;
  private detached = false;
  private busy = false;
  private again = false;
  /** The status file may have changed (its folder changed, the poll, the supervisor exited). */
  private statusDue = true;
  private recent = '';
  private stopping?: Promise<void>;
  private poll?: ReturnType<typeof setTimeout>;
  private statusWatcher?: fs.FSWatcher;
  private statusWatchFailed = false;

  constructor(private readonly init: ProcessInit) {
    this.exit = new Promise((resolve) => (this.resolveExit = resolve));
    this.startOffset = init.position;
    this.output = new LogOutput(init.logPath, init.position, () => this.wake());
    this.onDidOutput = this.output.event;
    this.lastStatus = init.status;
    this.pid = init.supervisor?.pid ?? init.status?.supervisorPid;
    if (init.status?.state === 'ended') {
      this.settle(toProcessExit(init.status));
      return;
    }
    this.watchSupervisor(init.supervisor);
    this.watchStatus();
    this.wake();
  }

  /**
   * The last output (at most `tailChars` characters), for messages about a failure: read from the
   * log once the agent has ended, before `exit` resolves; empty until then.
   */
  get tail(): string {
    return this.recent;
  }

  /** What the supervisor last wrote to the status file (agent pid, exit, stopRequested). */
  get status(): SupervisorStatus | undefined {
    return this.lastStatus;
  }

  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  /**
   * Stops watching and leaves the agent running (stop() then does nothing): for a window that
   * closes while its agents work on.
   */
  detach(): void {
    this.detached = true;
    this.cleanUp();
  }

  /** Reads the log between two positions (at most `maxBytes`, default 1 MiB), without blocking. */
  readLogFrom(offset: number, options: { readonly end?: number; readonly maxBytes?: number } = {}): Promise<LogSlice> {
    return readLog(this.init.logPath, offset, options.end, Math.max(4, options.maxBytes ?? 1024 * 1024));
  }

  private watchStatus(): void {
    this.statusWatcher = watchStatusFile(this.init.statusPath, {
      changed: () => this.wake(true),
      failed: () => {
        this.statusWatchFailed = true;
        this.wake(true);
      },
    });
  }

  private watchSupervisor(supervisor: ChildProcess | undefined): void {
    supervisor?.once('exit', () => {
      this.supervisorExited = true;
      this.wake(true);
    });
    supervisor?.once('error', (e) => {
      this.supervisorExited = true;
      fs.rmSync(this.init.specPath, { force: true });
      fs.appendFile(this.init.logPath, `[runner] could not start the supervisor: ${e.message}\n`, () => undefined);
      this.settle({ error: storedLine('supervisorNotStarted', { error: e.message }) });
    });
  }

  /** Runs check() now, or once more after the run in progress: calls never overlap. */
  private wake(status = false): void {
    this.statusDue ||= status;
    if (this.settled || this.detached) {
      return;
    }
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void (async () => {
      do {
        this.again = false;
        await this.check().catch(() => undefined);
      } while (this.again && !this.settled && !this.detached);
      this.busy = false;
      this.schedulePoll();
    })();
  }

  /** The next check without an event: soon when watching fails, else only as a safety net. */
  private schedulePoll(): void {
    clearTimeout(this.poll);
    if (this.settled || this.detached) {
      return;
    }
    const watched = !this.statusWatchFailed && this.output.watching;
    const { pollMs, idlePollMs } = this.init.settings;
    this.poll = setTimeout(() => this.wake(true), watched ? idlePollMs : pollMs);
  }

  private async check(): Promise<void> {
    await this.output.pump();
    if (!this.statusDue) {
      return;
    }
    this.statusDue = false;
    const status = await readStatus(this.init.statusPath);
    this.lastStatus = status ?? this.lastStatus;
    if (status?.state === 'ended') {
      // The supervisor writes every output byte to the log before it writes the end.
      await this.output.pump(true);
      this.settle(toProcessExit(status));
    } else if (!this.supervisorRunning()) {
      await this.lost();
    }
  }

  private supervisorRunning(): boolean {
    if (this.init.supervisor) {
      return !this.supervisorExited;
    }
    return this.lastStatus !== undefined && supervisorAlive(this.lastStatus);
  }

  /** The supervisor is gone without writing the end: end what is left of the agent, then say so. */
  private async lost(): Promise<void> {
    const again = await readStatus(this.init.statusPath);
    if (again?.state === 'ended') {
      await this.output.pump(true);
      this.settle(toProcessExit(again));
      return;
    }
    const agentPid = ownGroup(this.lastStatus);
    if (agentPid !== undefined) {
      await endGroup(agentPid, this.init.settings.graceMs);
    }
    await this.output.pump(true);
    fs.rmSync(this.init.specPath, { force: true });
    this.settle({ error: this.init.lostMessage });
  }

  private async terminate(): Promise<void> {
    if (this.detached) {
      return;
    }
    if (!this.settled) {
      await this.waitForStart();
      if (this.supervisorRunning()) {
        // The supervisor escalates (SIGTERM, then SIGKILL after the grace period) and records the end.
        this.signalSupervisor('SIGTERM');
        const timeout = delay(this.init.settings.graceMs + 5000).then(() => 'timeout' as const);
        if ((await Promise.race([this.exit, timeout])) === 'timeout') {
          this.forceKill();
        }
      } else {
        this.wake(true);
      }
      await this.exit;
      // It exits right after writing the end; stop() promises that nothing is left.
      const deadline = Date.now() + 2000;
      while (this.supervisorRunning() && Date.now() < deadline) {
        await delay(10);
      }
    }
    // Children the agent left behind when it ended on its own.
    const agentPid = ownGroup(this.lastStatus);
    if (agentPid !== undefined) {
      await endGroup(agentPid, this.init.settings.graceMs);
    }
  }

  /** A stop right after start waits (briefly) for the agent to exist, so the signal reaches it. */
  private async waitForStart(): Promise<void> {
    const deadline = Date.now() + 5000;
    while (
      !this.settled &&
      this.lastStatus?.state !== 'running' &&
      this.lastStatus?.state !== 'ended' &&
      this.supervisorRunning() &&
      Date.now() < deadline
    ) {
      this.lastStatus = (await readStatus(this.init.statusPath)) ?? this.lastStatus;
      if (this.lastStatus?.state !== 'running') {
        await delay(25);
      }
    }
  }

  private signalSupervisor(signal: NodeJS.Signals): void {
    try {
      if (this.init.supervisor) {
        this.init.supervisor.kill(signal);
      } else if (this.pid !== undefined && this.supervisorRunning()) {
        process.kill(this.pid, signal);
      }
    } catch {
      // Already gone: the next check settles the exit.
    }
  }

  private forceKill(): void {
    const agentPid = ownGroup(this.lastStatus);
    if (agentPid !== undefined) {
      signalGroup(agentPid, 'SIGKILL');
    }
    this.signalSupervisor('SIGKILL');
    this.wake(true);
  }

  /** Every output byte was emitted to whoever listened; the tail is read before `exit` resolves. */
  private settle(exit: ProcessExit): void {
    if (this.settled) {
      return;
    }
    this.settled = true;
    this.cleanUp();
    const { logPath, settings } = this.init;
    void readLastText(logPath, this.startOffset, settings.tailChars)
      .catch(() => '')
      .then((tail) => {
        this.recent = tail;
        this.resolveExit(exit);
      });
  }

  private cleanUp(): void {
    clearTimeout(this.poll);
    this.statusWatcher?.close();
    this.output.close();
  }
}
