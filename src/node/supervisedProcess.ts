import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentProcess, ProcessExit } from '../core/ports';
import { storedLine } from '../core/errors';
import { Emitter, type Event } from '../util/event';
import { delay } from '../util/async';
import { endGroup, signalGroup } from '../supervisor/processGroup';
import type { SupervisorStatus } from '../supervisor/protocol';
import { type LogSlice, readLog } from './logReader';
import { LogTailer } from './logTailer';
import { ownGroup, readStatus, supervisorAlive, toProcessExit } from './supervisorStatus';

/** The runner's settings a process needs (see SupervisedRunnerOptions). */
export interface ProcessSettings {
  readonly graceMs: number;
  readonly pollMs: number;
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

export class SupervisedProcess implements AgentProcess {
  /** The supervisor's pid: the process that stop() signals. */
  readonly pid?: number;
  readonly exit: Promise<ProcessExit>;
  /** Log position where live output began; readLogFrom(0, { end: startOffset }) is what came before. */
  readonly startOffset: number;
  private readonly output = new Emitter<string>();
  readonly onDidOutput: Event<string> = this.output.event;
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
  private readonly tailer: LogTailer;
  private readonly timer: ReturnType<typeof setInterval>;
  private statusWatcher?: fs.FSWatcher;

  constructor(private readonly init: ProcessInit) {
    this.exit = new Promise((resolve) => (this.resolveExit = resolve));
    this.startOffset = init.position;
    this.lastStatus = init.status;
    this.pid = init.supervisor?.pid ?? init.status?.supervisorPid;
    this.tailer = new LogTailer(
      init.logPath,
      init.position,
      (text) => this.emit(text),
      () => this.wake(),
    );
    this.timer = setInterval(() => this.wake(true), init.settings.pollMs);
    if (init.status?.state === 'ended') {
      this.settle(toProcessExit(init.status));
      return;
    }
    this.watchSupervisor(init.supervisor);
    try {
      const statusFile = path.basename(init.statusPath);
      this.statusWatcher = fs.watch(path.dirname(init.statusPath), { persistent: false }, (_event, name) => {
        if (name === null || name === statusFile) {
          this.wake(true);
        }
      });
      this.statusWatcher.on('error', () => undefined);
    } catch {
      // The poll still notices the end.
    }
    this.wake();
  }

  /** The most recent output (at most `tailChars` characters), for messages about a failure. */
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
    this.output.dispose();
  }

  /** Reads the log between two positions (at most `maxBytes`, default 1 MiB), without blocking. */
  readLogFrom(offset: number, options: { readonly end?: number; readonly maxBytes?: number } = {}): Promise<LogSlice> {
    return readLog(this.init.logPath, offset, options.end, Math.max(4, options.maxBytes ?? 1024 * 1024));
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
    })();
  }

  private async check(): Promise<void> {
    await this.tailer.pump();
    if (!this.statusDue) {
      return;
    }
    this.statusDue = false;
    const status = await readStatus(this.init.statusPath);
    this.lastStatus = status ?? this.lastStatus;
    if (status?.state === 'ended') {
      // The supervisor writes every output byte to the log before it writes the end.
      await this.tailer.pump();
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
      await this.tailer.pump();
      this.settle(toProcessExit(again));
      return;
    }
    const agentPid = ownGroup(this.lastStatus);
    if (agentPid !== undefined) {
      await endGroup(agentPid, this.init.settings.graceMs);
    }
    await this.tailer.pump();
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

  private emit(text: string): void {
    if (text !== '' && !this.detached) {
      this.recent = (this.recent + text).slice(-this.init.settings.tailChars);
      this.output.fire(text);
    }
  }

  private settle(exit: ProcessExit): void {
    if (this.settled) {
      return;
    }
    this.settled = true;
    this.tailer.finish();
    this.cleanUp();
    this.output.dispose();
    this.resolveExit(exit);
  }

  private cleanUp(): void {
    clearInterval(this.timer);
    this.statusWatcher?.close();
    this.tailer.close();
  }
}
