import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { execa, type Result } from 'execa';
import type { AgentProcess, AgentRunner, LaunchRequest, ProcessExit } from '../core/ports';
import { delay } from '../util/async';
import { Emitter, type Event } from '../util/event';

export interface HeadlessRunnerOptions {
  /** stop(): time between SIGTERM to the process group and SIGKILL. Default 3000 ms. */
  readonly graceMs?: number;
  /**
   * After the agent itself exits, how long to keep reading output that children it left behind
   * still hold open; then reading stops and `exit` resolves. Default 2000 ms.
   */
  readonly drainMs?: number;
  /** Characters of the most recent output kept in memory (HeadlessProcess.tail). Default 16384. */
  readonly tailChars?: number;
}

type Settings = Required<HeadlessRunnerOptions>;

const defaults: Settings = { graceMs: 3000, drainMs: 2000, tailChars: 16384 };
const isWindows = process.platform === 'win32';

/**
 * Runs agents as child processes without a shell. Output is streamed to the request's log file and
 * to onDidOutput, never buffered whole; on POSIX each agent leads its own process group so stop()
 * reaches every process it started.
 */
export class HeadlessRunner implements AgentRunner {
  private readonly settings: Settings;

  constructor(options: HeadlessRunnerOptions = {}) {
    this.settings = { ...defaults, ...options };
  }

  start(request: LaunchRequest): HeadlessProcess {
    return new HeadlessProcess(request, this.settings);
  }
}

export class HeadlessProcess implements AgentProcess {
  readonly pid?: number;
  readonly exit: Promise<ProcessExit>;
  private readonly output = new Emitter<string>();
  readonly onDidOutput: Event<string> = this.output.event;
  private recent = '';
  private stopping?: Promise<void>;
  /** Set once `exit` has resolved and no process of the group is left. */
  private groupGone = false;

  constructor(request: LaunchRequest, private readonly settings: Settings) {
    const log = openLog(request.logPath);
    if (request.banner) {
      log.write(`${request.banner}\n`);
    }
    const subprocess = execa(request.file, [...request.args], {
      cwd: request.cwd,
      env: { ...request.env },
      extendEnv: true,
      shell: false,
      detached: !isWindows,
      windowsHide: true,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
    });
    this.pid = subprocess.pid;
    const streams = [subprocess.stdout, subprocess.stderr];
    const decoders = this.forward(streams, log);
    subprocess.once('exit', () => {
      // Children left behind may hold the pipes open forever; stop reading after a grace period.
      setTimeout(() => streams.forEach((s) => s.destroy()), this.settings.drainMs).unref();
    });
    this.exit = subprocess
      .then(toProcessExit, (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }))
      .then(async (result) => {
        try {
          decoders.forEach((decoder) => this.emit(decoder.end()));
          if (result.error !== undefined && !log.destroyed) {
            log.write(`[runner] could not start ${request.file}: ${result.error}\n`);
          }
          await closeLog(log);
          this.groupGone = this.pid === undefined || !groupAlive(this.pid);
        } finally {
          this.output.dispose();
        }
        return result;
      })
      .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
  }

  /** The most recent output (at most `tailChars` characters), for messages about a failure. */
  get tail(): string {
    return this.recent;
  }

  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private forward(streams: readonly Readable[], log: fs.WriteStream): StringDecoder[] {
    // Backpressure: a slow disk pauses the pipes instead of piling output up in memory.
    const resumeAll = () => streams.forEach((s) => s.resume());
    log.on('drain', resumeAll);
    log.on('close', resumeAll);
    return streams.map((stream) => {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        if (!log.destroyed && !log.write(chunk)) {
          stream.pause();
        }
        this.emit(decoder.write(chunk));
      });
      return decoder;
    });
  }

  private emit(text: string): void {
    if (text !== '') {
      this.recent = (this.recent + text).slice(-this.settings.tailChars);
      this.output.fire(text);
    }
  }

  private async terminate(): Promise<void> {
    const pid = this.pid;
    if (pid === undefined || this.groupGone) {
      await this.exit;
      return;
    }
    if (isWindows) {
      await execa('taskkill', ['/pid', String(pid), '/T', '/F'], { reject: false, windowsHide: true, shell: false });
      await this.exit;
      return;
    }
    signalGroup(pid, 'SIGTERM');
    const deadline = Date.now() + this.settings.graceMs;
    while (groupAlive(pid) && Date.now() < deadline) {
      await delay(50);
    }
    if (groupAlive(pid)) {
      signalGroup(pid, 'SIGKILL');
    }
    await this.exit;
  }
}

function toProcessExit(result: Result): ProcessExit {
  if (result.signal !== undefined) {
    return { signal: result.signal };
  }
  if (typeof result.exitCode === 'number') {
    return { exitCode: result.exitCode };
  }
  return { error: result.originalMessage || result.shortMessage || 'the process could not be started' };
}

function openLog(logPath: string): fs.WriteStream {
  try {
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
  } catch {
    // createWriteStream reports the failure through its 'error' event below.
  }
  const log = fs.createWriteStream(logPath, { flags: 'a' });
  // A log that cannot be written must not take the agent down; output still reaches onDidOutput.
  log.on('error', () => log.destroy());
  return log;
}

function closeLog(log: fs.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (log.destroyed) {
      resolve();
      return;
    }
    log.once('close', () => resolve());
    log.end();
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** True while a live (not zombie) process belongs to process group `pgid`. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // kill(-pgid, 0) also succeeds for zombies, which an init that does not reap leaves behind.
  return process.platform === 'linux' ? linuxGroupHasLiveProcess(pgid) : true;
}

function linuxGroupHasLiveProcess(pgid: number): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') {
      return true;
    }
  }
  return false;
}
