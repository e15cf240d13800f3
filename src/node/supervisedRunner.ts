import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { AgentProcess, AgentRunner, LaunchRequest, ProcessExit } from '../core/ports';
import { Emitter, type Event } from '../util/event';
import {
  type LogOrigin, type SupervisorSpec, type SupervisorStatus, bootId, delay, endGroup, groupAlive, incompleteUtf8Tail,
  parseLogOrigin, parseStatus, pidAlive, processStart, readLogOriginSync, signalGroup, writeStatusSync,
} from '../supervisor/supervisor';

export interface SupervisedRunnerOptions {
  /** Absolute path of the bundled supervisor (dist/supervisor.js). */
  readonly supervisorScript: string;
  /** Runs the supervisor: process.execPath (Node, or Electron made to behave as Node). */
  readonly runtime: string;
  /** Private folder (made 0700) for `<agentId>.spec.json` and `<agentId>.status.json`; must outlive the window. */
  readonly stateDir: string;
  /** stop(): time between SIGTERM to the agent's process group and SIGKILL. Default 3000 ms. */
  readonly graceMs?: number;
  /** Cap of each agent's log; read at every start, so a changed setting applies to the next agent. Default 50 MiB. */
  readonly maxLogBytes?: number | (() => number);
  /** Fallback poll of log and status, for file systems whose watch events go missing. Default 500 ms. */
  readonly pollMs?: number;
  /** After the agent exits, how long output still held open by children it left is read. Default 2000 ms. */
  readonly drainMs?: number;
  /** Characters of the most recent output kept in memory (SupervisedProcess.tail). Default 16384. */
  readonly tailChars?: number;
}

type Settings = Required<Omit<SupervisedRunnerOptions, 'maxLogBytes'>> & { readonly maxLogBytes: () => number };

/** Output read back from a log; positions count every byte ever written to it, cut or not. */
export interface LogSlice {
  readonly text: string;
  /** Position after the last byte in `text` (whole characters only): pass it to the next call. */
  readonly next: number;
  /** Bytes between the requested offset and the first byte still in the log (cut away). */
  readonly skipped: number;
  /** Position of the log's current end. */
  readonly end: number;
}

const isWindows = process.platform === 'win32';
const readChunk = 256 * 1024;

/**
 * Runs each headless agent under dist/supervisor.js, detached, so that it survives a reload or a
 * crash of the extension host; a later host re-attaches with adopt(). Output reaches onDidOutput by
 * tailing the log the supervisor writes; the end comes from the status file it writes last.
 */
export class SupervisedRunner implements AgentRunner {
  private readonly settings: Settings;

  constructor(options: SupervisedRunnerOptions) {
    const maxLogBytes = options.maxLogBytes ?? 50 * 1024 * 1024;
    this.settings = {
      graceMs: 3000, pollMs: 500, drainMs: 2000, tailChars: 16384, ...options,
      maxLogBytes: typeof maxLogBytes === 'function' ? maxLogBytes : () => maxLogBytes,
    };
  }

  specPath(agentId: string): string {
    return path.join(this.settings.stateDir, `${checkedId(agentId)}.spec.json`);
  }

  statusPath(agentId: string): string {
    return path.join(this.settings.stateDir, `${checkedId(agentId)}.status.json`);
  }

  start(request: LaunchRequest): SupervisedProcess {
    const { stateDir } = this.settings;
    const specPath = this.specPath(request.agentId);
    const statusPath = this.statusPath(request.agentId);
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // A status left by an earlier run of this agent (a follow-up reuses the id) must not end this one.
    fs.rmSync(statusPath, { force: true });
    fs.rmSync(specPath, { force: true });
    fs.mkdirSync(path.dirname(request.logPath), { recursive: true });
    fs.appendFileSync(request.logPath, request.banner ? `${request.banner}\n` : '');
    const position = logEndSync(request.logPath);
    const spec: SupervisorSpec = {
      file: request.file, args: [...request.args], cwd: request.cwd, env: { ...definedEnv(process.env), ...request.env },
      logPath: request.logPath, statusPath, maxLogBytes: this.settings.maxLogBytes(), graceMs: this.settings.graceMs, drainMs: this.settings.drainMs,
    };
    fs.writeFileSync(specPath, JSON.stringify(spec), { mode: 0o600, flag: 'wx' });
    let supervisor: ChildProcess;
    try {
      supervisor = spawn(this.settings.runtime, [this.settings.supervisorScript, specPath], {
        cwd: stateDir, detached: !isWindows, stdio: 'ignore', windowsHide: true, shell: false,
        // Under Electron (VS Code) the runtime is the app itself; this makes it behave as Node.
        env: { ...definedEnv(process.env), ELECTRON_RUN_AS_NODE: '1' },
      });
    } catch (e) {
      fs.rmSync(specPath, { force: true });
      throw e;
    }
    // The supervisor must outlive this host: its own session, no pipes to us, not waited for.
    supervisor.unref();
    if (supervisor.pid !== undefined) {
      // Adoptable from now on; the supervisor (still booting, far from its first write) replaces it.
      writeStatusSync(statusPath, {
        state: 'starting', supervisorPid: supervisor.pid, supervisorStart: processStart(supervisor.pid), bootId: bootId(), logPath: request.logPath, startedAt: Date.now(),
      });
    }
    return new SupervisedProcess({ settings: this.settings, logPath: request.logPath, statusPath, specPath, position, supervisor, lostMessage: 'supervisor lost' });
  }

  /**
   * Re-attaches to an agent a previous extension host started; undefined when there is no status
   * for it. Live output continues from the log's current end (readLogFrom shows what came before).
   */
  adopt(agentId: string): SupervisedProcess | undefined {
    const statusPath = this.statusPath(agentId);
    let status: SupervisorStatus | undefined;
    try {
      status = parseStatus(fs.readFileSync(statusPath, 'utf8'));
    } catch {
      return undefined;
    }
    if (!status) {
      return undefined;
    }
    const position = status.state === 'ended' ? 0 : logEndSync(status.logPath);
    const lostMessage = status.state !== 'ended' && !supervisorAlive(status) ? 'lost while the window was closed' : 'supervisor lost';
    return new SupervisedProcess({ settings: this.settings, logPath: status.logPath, statusPath, specPath: this.specPath(agentId), position, status, lostMessage });
  }

  /** Deletes what is kept about an agent that has ended (its status), e.g. once it is discarded. */
  forget(agentId: string): void {
    fs.rmSync(this.statusPath(agentId), { force: true });
    fs.rmSync(this.specPath(agentId), { force: true });
  }
}

interface ProcessInit {
  readonly settings: Settings;
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
    this.tailer = new LogTailer(init.logPath, init.position, (text) => this.emit(text), () => this.wake());
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

  /** Stops watching and leaves the agent running (stop() then does nothing): for a window that closes while its agents work on. */
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
      this.settle({ error: `could not start the supervisor: ${e.message}` });
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
    while (!this.settled && this.lastStatus?.state !== 'running' && this.lastStatus?.state !== 'ended' && this.supervisorRunning() && Date.now() < deadline) {
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

/**
 * Follows a log from a position: reads what was appended, and when the supervisor has replaced the
 * file (a cut), reads the old file to its end and continues in the new one at the same position.
 */
class LogTailer {
  private handle?: FileHandle;
  private ino?: number;
  private origin: LogOrigin = { cut: 0, markerLength: 0 };
  private watcher?: fs.FSWatcher;
  private readonly decoder = new StringDecoder('utf8');
  private readonly buffer = Buffer.alloc(readChunk);
  private closed = false;

  constructor(private readonly logPath: string, private position: number, private readonly emit: (text: string) => void, private readonly wake: () => void) {}

  /** Reads everything available now; async reads of bounded size, so the host never blocks. */
  async pump(): Promise<void> {
    if (this.closed || (!this.handle && !(await this.switchTo(await openLog(this.logPath))))) {
      return;
    }
    for (;;) {
      await this.drain();
      // Pin whatever file is at the path now, before anything else: a cut cannot take it away.
      const current = await openLog(this.logPath);
      if (!current || current.ino === this.ino || this.closed) {
        await current?.handle.close().catch(() => undefined);
        return;
      }
      // A new file at the path: the one being read is complete now, so read its last bytes, then switch.
      await this.drain();
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      if (!(await this.switchTo(current))) {
        return;
      }
    }
  }

  /** The last bytes of an incomplete character, once no more output can follow. */
  finish(): void {
    this.emit(this.decoder.end());
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    void this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    while (this.handle && !this.closed) {
      const filePos = this.origin.markerLength + (this.position - this.origin.cut);
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, filePos);
      if (bytesRead === 0 || this.closed) {
        return;
      }
      this.position += bytesRead;
      this.emit(this.decoder.write(this.buffer.subarray(0, bytesRead)));
    }
  }

  private async switchTo(file: OpenLog | undefined): Promise<boolean> {
    if (!file || this.closed) {
      await file?.handle.close().catch(() => undefined);
      return false;
    }
    this.handle = file.handle;
    this.ino = file.ino;
    this.origin = file.origin;
    if (this.position < file.origin.cut) {
      // Only when this reader fell more than half the cap behind the agent.
      this.emit(`\n[parallel-agents] ${file.origin.cut - this.position} bytes of output were cut before they could be shown\n`);
      this.position = file.origin.cut;
    }
    this.rewatch();
    return true;
  }

  private rewatch(): void {
    this.watcher?.close();
    try {
      this.watcher = fs.watch(this.logPath, { persistent: false }, () => this.wake());
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined;
    }
  }
}

interface OpenLog {
  readonly handle: FileHandle;
  readonly ino: number;
  readonly origin: LogOrigin;
}

async function openLog(logPath: string): Promise<OpenLog | undefined> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(logPath, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(128);
    const [{ bytesRead }, stat] = await Promise.all([handle.read(head, 0, head.length, 0), handle.stat()]);
    return { handle, ino: stat.ino, origin: parseLogOrigin(head.subarray(0, bytesRead)) };
  } catch {
    await handle.close().catch(() => undefined);
    return undefined;
  }
}

async function readLog(logPath: string, offset: number, end: number | undefined, maxBytes: number): Promise<LogSlice> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(logPath, 'r');
  } catch {
    return { text: '', next: offset, skipped: 0, end: 0 };
  }
  try {
    const head = Buffer.alloc(128);
    const [{ bytesRead }, stat] = await Promise.all([handle.read(head, 0, head.length, 0), handle.stat()]);
    const origin = parseLogOrigin(head.subarray(0, bytesRead));
    const logEnd = origin.cut + stat.size - origin.markerLength;
    const from = Math.max(offset, origin.cut);
    const length = Math.max(0, Math.min(maxBytes, Math.min(end ?? logEnd, logEnd) - from));
    const bytes = Buffer.alloc(length);
    const { bytesRead: n } = await handle.read(bytes, 0, length, origin.markerLength + from - origin.cut);
    const whole = n - incompleteUtf8Tail(bytes.subarray(0, n));
    return { text: bytes.subarray(0, whole).toString('utf8'), next: from + whole, skipped: from - offset, end: logEnd };
  } finally {
    await handle.close();
  }
}

/** The log position of the end of the file, before any incomplete character (created if missing). */
function logEndSync(logPath: string): number {
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch {
    return 0;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const origin = readLogOriginSync(fd);
    const last = Buffer.alloc(Math.min(4, size));
    fs.readSync(fd, last, 0, last.length, size - last.length);
    return origin.cut + size - origin.markerLength - incompleteUtf8Tail(last);
  } finally {
    fs.closeSync(fd);
  }
}

async function readStatus(statusPath: string): Promise<SupervisorStatus | undefined> {
  try {
    return parseStatus(await fs.promises.readFile(statusPath, 'utf8'));
  } catch {
    return undefined;
  }
}

function supervisorAlive(status: SupervisorStatus): boolean {
  return sameBoot(status) && pidAlive(status.supervisorPid, status.supervisorStart);
}

/**
 * The agent's process group while something of it is alive and it is still ours: same boot, and a
 * live leader is the very process the supervisor started (a group id is not reused while in use).
 */
function ownGroup(status: SupervisorStatus | undefined): number | undefined {
  const pid = status?.agentPid;
  if (pid === undefined || !sameBoot(status) || (pidAlive(pid) && !pidAlive(pid, status?.agentStart))) {
    return undefined;
  }
  return groupAlive(pid) ? pid : undefined;
}

/** Pids recorded before a reboot name other processes now. */
function sameBoot(status: SupervisorStatus | undefined): boolean {
  return status?.bootId === undefined || status.bootId === bootId();
}

function toProcessExit(status: SupervisorStatus): ProcessExit {
  if (status.state !== 'ended') {
    return { error: 'supervisor lost' };
  }
  const stop = status.stopRequested ? { stopRequested: true } : {};
  if (status.error !== undefined) {
    return { error: status.error, ...stop };
  }
  if (status.signal !== undefined) {
    return { signal: status.signal, ...stop };
  }
  return typeof status.exitCode === 'number' ? { exitCode: status.exitCode, ...stop } : { error: 'the agent ended without an exit status', ...stop };
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function checkedId(agentId: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(agentId) || agentId.startsWith('.')) {
    throw new Error(`Invalid agent id for a file name: ${JSON.stringify(agentId)}`);
  }
  return agentId;
}
