/**
 * dist/supervisor.js: keeps one headless agent running when the extension host reloads or dies.
 * Invoked as `<node> supervisor.js <specFile>` (never through a shell), itself detached with its
 * stdio ignored. It starts the agent in a process group of its own, appends the agent's output to
 * the log (capped: the oldest part is cut and the cut marked), records the agent's state in a status
 * file, and on SIGTERM/SIGINT ends the agent's group: SIGTERM, then SIGKILL after the grace period.
 *
 * The file formats (spec, status, cut marker) and the process checks are exported for
 * SupervisedRunner, which reads what this program writes. Plain Node: no vscode.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

export interface SupervisorSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** The agent's whole environment; the supervisor's own is not merged in. */
  readonly env: Readonly<Record<string, string>>;
  readonly logPath: string;
  readonly statusPath: string;
  readonly maxLogBytes: number;
  readonly graceMs: number;
  /** After the agent exits, how long output still held open by children it left is read. Default 2000. */
  readonly drainMs?: number;
}

interface StatusBase {
  readonly supervisorPid: number;
  readonly agentPid?: number;
  readonly logPath: string;
  readonly startedAt: number;
  /** Linux: boot id and process start times, so that a reused pid is never taken for ours. */
  readonly bootId?: string;
  readonly supervisorStart?: string;
  readonly agentStart?: string;
}

/** Written by the launcher right after it spawned the supervisor, so that even a host dying at once leaves a trace. */
export interface StartingStatus extends StatusBase {
  readonly state: 'starting';
}

export interface RunningStatus extends StatusBase {
  readonly state: 'running';
  readonly agentPid: number;
}

export interface EndedStatus extends StatusBase {
  readonly state: 'ended';
  readonly exitCode?: number;
  readonly signal?: string;
  readonly error?: string;
  readonly endedAt: number;
  /** The supervisor was told to stop the agent. */
  readonly stopRequested?: boolean;
}

export type SupervisorStatus = StartingStatus | RunningStatus | EndedStatus;

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';

// ---- Status file -------------------------------------------------------------------------------

/** Atomic: readers see the previous status or the new one, never half of one. */
export function writeStatusSync(statusPath: string, status: SupervisorStatus): void {
  const tmp = `${statusPath}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(status), { mode: 0o600 });
  fs.renameSync(tmp, statusPath);
}

export function parseStatus(text: string): SupervisorStatus | undefined {
  try {
    const value = JSON.parse(text) as Partial<SupervisorStatus> | null;
    const valid = value !== null && typeof value === 'object' && ['starting', 'running', 'ended'].includes(value.state as string)
      && typeof value.supervisorPid === 'number' && typeof value.logPath === 'string';
    return valid ? (value as SupervisorStatus) : undefined;
  } catch {
    return undefined;
  }
}

// ---- Log cut marker ----------------------------------------------------------------------------

/**
 * Where a log file begins in the agent's whole output. Log positions count every byte ever written
 * to the log, cut or not, so they stay valid across cuts: the byte after the marker is at `cut`.
 */
export interface LogOrigin {
  /** Bytes of older output cut from the front so far. */
  readonly cut: number;
  /** Length of the marker line at the top of the file (0 when nothing was cut). */
  readonly markerLength: number;
}

const markerPattern = /^\[parallel-agents\] (\d+) bytes of older output were cut here\n/;
const noCut: LogOrigin = { cut: 0, markerLength: 0 };

export function cutMarker(cut: number): string {
  return `[parallel-agents] ${cut} bytes of older output were cut here\n`;
}

/** Reads the marker at the top of an open log, if any. */
export function readLogOriginSync(fd: number): LogOrigin {
  const head = Buffer.alloc(128);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  return parseLogOrigin(head.subarray(0, n));
}

export function parseLogOrigin(head: Buffer): LogOrigin {
  // latin1 maps bytes one to one, so the match length is a byte count.
  const match = markerPattern.exec(head.toString('latin1'));
  return match ? { cut: Number(match[1]), markerLength: match[0].length } : noCut;
}

/** Bytes at the end of `bytes` that begin a UTF-8 character not yet complete. */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) {
      continue;
    }
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return bytes.length - i < needed ? bytes.length - i : 0;
  }
  return 0;
}

/**
 * The agent's log: appended to, and when it grows past `maxBytes`, rewritten (new file, then rename)
 * to roughly its newest half, starting at a line, below a marker saying how much was cut. A reader
 * holding the old file open reads it to its end, then continues in the new one.
 */
export class CappedLog {
  private fd: number | undefined;
  private size: number;
  private origin: LogOrigin;
  private readonly maxBytes: number;

  constructor(private readonly logPath: string, maxBytes: number) {
    this.maxBytes = Math.max(16 * 1024, maxBytes);
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
    this.fd = fs.openSync(logPath, 'a+');
    this.size = fs.fstatSync(this.fd).size;
    this.origin = readLogOriginSync(this.fd);
    this.cutIfNeeded();
  }

  write(chunk: Buffer): void {
    if (this.fd === undefined) {
      return;
    }
    try {
      writeAll(this.fd, chunk);
      this.size += chunk.length;
      this.cutIfNeeded();
    } catch {
      // A log that cannot be written (disk full, folder gone) must not take the agent down.
      this.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private cutIfNeeded(): void {
    if (this.fd !== undefined && this.size > this.maxBytes) {
      this.cut(this.fd);
    }
  }

  private cut(fd: number): void {
    const keepFrom = this.keepFrom(fd);
    const cut = this.origin.cut + (keepFrom - this.origin.markerLength);
    const marker = Buffer.from(cutMarker(cut));
    const tmp = `${this.logPath}.${process.pid}.cut`;
    const out = fs.openSync(tmp, 'w');
    try {
      writeAll(out, marker);
      copyRange(fd, out, keepFrom, this.size);
    } finally {
      fs.closeSync(out);
    }
    fs.renameSync(tmp, this.logPath);
    fs.closeSync(fd);
    this.fd = fs.openSync(this.logPath, 'a+');
    this.size = marker.length + (this.size - keepFrom);
    this.origin = { cut, markerLength: marker.length };
  }

  /** Where the kept part starts: after the last newline before the newest half, else at a character. */
  private keepFrom(fd: number): number {
    const target = this.size - Math.floor(this.maxBytes / 2);
    const low = Math.max(this.origin.markerLength, target - Math.floor(this.maxBytes / 4));
    const window = Buffer.alloc(target - low);
    const n = fs.readSync(fd, window, 0, window.length, low);
    const newline = window.subarray(0, n).lastIndexOf(0x0a);
    if (newline >= 0) {
      return low + newline + 1;
    }
    const next = Buffer.alloc(4);
    const m = fs.readSync(fd, next, 0, 4, target);
    let skip = 0;
    while (skip < m && (next[skip] & 0xc0) === 0x80) {
      skip++;
    }
    return target + skip;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
  }
}

function copyRange(from: number, to: number, start: number, end: number): void {
  const buffer = Buffer.alloc(1024 * 1024);
  for (let pos = start; pos < end;) {
    const n = fs.readSync(from, buffer, 0, Math.min(buffer.length, end - pos), pos);
    if (n === 0) {
      break;
    }
    writeAll(to, buffer.subarray(0, n));
    pos += n;
  }
}

// ---- Processes ---------------------------------------------------------------------------------

let cachedBootId: string | undefined | null = null;

export function bootId(): string | undefined {
  if (cachedBootId === null) {
    try {
      cachedBootId = isLinux ? fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : undefined;
    } catch {
      cachedBootId = undefined;
    }
  }
  return cachedBootId;
}

/** Fields of /proc/<pid>/stat after the command name: state ppid pgrp ...; undefined if unreadable. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Linux: the process's start time in clock ticks since boot (with the boot id, its identity). */
export function processStart(pid: number): string | undefined {
  return isLinux ? procStat(pid)?.[19] : undefined;
}

/** Alive, not a zombie, and (when `start` is known) the very process that started then. */
export function pidAlive(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') {
      return false;
    }
  }
  if (!isLinux) {
    return true;
  }
  const fields = procStat(pid);
  return fields !== undefined && fields[0] !== 'Z' && (start === undefined || fields[19] === start);
}

/** True while a live (not zombie) process belongs to process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  if (isWindows) {
    return pidAlive(pgid);
  }
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // kill(-pgid, 0) also succeeds for zombies, which an init that does not reap leaves behind.
  return isLinux ? linuxGroupHasLiveProcess(pgid) : true;
}

function linuxGroupHasLiveProcess(pgid: number): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  return entries.some((entry) => {
    const fields = /^\d+$/.test(entry) ? procStat(Number(entry)) : undefined;
    return fields !== undefined && Number(fields[2]) === pgid && fields[0] !== 'Z';
  });
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    if (isWindows) {
      spawn('taskkill', ['/pid', String(pgid), '/T', '/F'], { stdio: 'ignore', windowsHide: true, shell: false }).on('error', () => undefined);
    } else {
      process.kill(-pgid, signal);
    }
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** SIGTERM to the group, SIGKILL to what is left after `graceMs`; resolves when the group is gone (or 2 s after SIGKILL). */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await delay(50);
  }
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    const killDeadline = Date.now() + 2000;
    while (groupAlive(pgid) && Date.now() < killDeadline) {
      await delay(25);
    }
  }
}

// ---- The program -------------------------------------------------------------------------------

type Outcome = Pick<EndedStatus, 'exitCode' | 'signal' | 'error'>;

class Supervisor {
  private log?: CappedLog;
  private child?: ChildProcess;
  private stopping?: Promise<void>;
  private agentStart?: string;
  private readonly base: Omit<StatusBase, 'agentPid' | 'agentStart'>;

  constructor(private readonly spec: SupervisorSpec) {
    this.base = {
      supervisorPid: process.pid, logPath: spec.logPath, startedAt: Date.now(), bootId: bootId(), supervisorStart: processStart(process.pid),
    };
    try {
      this.log = new CappedLog(spec.logPath, spec.maxLogBytes);
    } catch {
      // Without a log the agent still runs and its status is still recorded.
    }
  }

  run(): void {
    process.on('SIGTERM', () => void this.stop());
    process.on('SIGINT', () => void this.stop());
    // The terminal or window that started us going away is no reason to end the agent.
    process.on('SIGHUP', () => undefined);
    process.on('uncaughtException', (e) => this.crash(e));
    const { file, args, cwd, env } = this.spec;
    let child: ChildProcess;
    try {
      child = spawn(file, [...args], { cwd, env, detached: !isWindows, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true, shell: false });
    } catch (e) {
      this.cannotStart(e);
      return;
    }
    this.child = child;
    if (child.pid === undefined) {
      child.once('error', (e) => this.cannotStart(e));
      return;
    }
    child.on('error', () => undefined);
    this.agentStart = processStart(child.pid);
    this.writeStatus({ ...this.base, state: 'running', agentPid: child.pid, agentStart: this.agentStart });
    void this.supervise(child, child.pid);
  }

  private async supervise(child: ChildProcess, pid: number): Promise<void> {
    const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
    streams.forEach((s) => s.on('data', (chunk: Buffer) => this.log?.write(chunk)));
    const closed = Promise.all(streams.map((s) => new Promise((resolve) => s.once('close', resolve))));
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
      child.once('exit', (code, sig) => resolve([code, sig]));
    });
    // Children left behind may hold the pipes open forever; stop reading after a grace period.
    const drain = setTimeout(() => streams.forEach((s) => s.destroy()), this.spec.drainMs ?? 2000);
    await closed;
    clearTimeout(drain);
    await this.stopping;
    this.finish(pid, signal !== null ? { signal } : exitCode !== null ? { exitCode } : { error: 'the agent ended without an exit code' });
  }

  private stop(): Promise<void> {
    const pid = this.child?.pid;
    this.stopping ??= pid === undefined ? Promise.resolve() : endGroup(pid, this.spec.graceMs);
    return this.stopping;
  }

  private cannotStart(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.log?.write(Buffer.from(`[runner] could not start ${this.spec.file}: ${message}\n`));
    this.finish(undefined, { error: message });
  }

  private crash(e: unknown): void {
    const pid = this.child?.pid;
    if (pid !== undefined) {
      signalGroup(pid, 'SIGKILL');
    }
    this.finish(pid, { error: `supervisor failed: ${e instanceof Error ? e.message : String(e)}` });
  }

  /** Writes the end to the status file (after every output byte reached the log), then exits. */
  private finish(agentPid: number | undefined, outcome: Outcome): void {
    this.log?.close();
    this.log = undefined;
    const ok = this.writeStatus({ ...this.base, ...outcome, agentPid, agentStart: this.agentStart, state: 'ended', endedAt: Date.now(), stopRequested: this.stopping !== undefined || undefined });
    process.exit(ok ? 0 : 1);
  }

  private writeStatus(status: SupervisorStatus): boolean {
    try {
      writeStatusSync(this.spec.statusPath, status);
      return true;
    } catch {
      return false;
    }
  }
}

/** Reads the spec and deletes it at once: it holds the agent's environment, secrets included. */
function readSpec(specPath: string): SupervisorSpec {
  try {
    return JSON.parse(fs.readFileSync(specPath, 'utf8')) as SupervisorSpec;
  } finally {
    fs.rmSync(specPath, { force: true });
  }
}

function main(argv: readonly string[]): void {
  if (argv.length !== 1) {
    process.exitCode = 2;
    return;
  }
  new Supervisor(readSpec(argv[0])).run();
}

// Only when run as dist/supervisor.js; SupervisedRunner imports the formats above without running it.
if (require.main === module) {
  main(process.argv.slice(2));
}
