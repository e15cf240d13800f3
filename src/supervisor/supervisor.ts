/**
 * dist/supervisor.js: keeps one headless agent running when the extension host reloads or dies.
 * Invoked as `<node> supervisor.js <specFile>` (never through a shell), itself detached with its
 * stdio ignored (or with `--spec-on-stdin`, see specFromStdin). It starts the agent in a process
 * group of its own, appends the agent's output to the log (capped: the oldest part is cut and the
 * cut marked), records the agent's state in a status file, and on SIGTERM/SIGINT ends the agent's
 * group: SIGTERM, then SIGKILL after the grace period.
 *
 * A sandboxed agent's spec names its outside part (`sandbox`): the supervisor makes its private folder,
 * serves its filtering proxy and starts its network forwarder itself (node/sandbox/sandboxHost.ts), so a
 * sandboxed start costs no extra Node process outside bubblewrap.
 *
 * The file formats live in protocol.ts and the process checks in processIdentity.ts and
 * processGroup.ts, which SupervisedRunner imports too. Plain Node: no vscode.
 */
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { execa } from 'execa';
import type { Readable } from 'node:stream';
import { storedLine } from '../core/errors';
import { SandboxHost } from '../node/sandbox/sandboxHost';
import { CappedLog } from './cappedLog';
import { endGroup, signalGroup } from './processGroup';
import { bootId, processStart } from './processIdentity';
import {
  type EndedStatus,
  type StatusBase,
  type SupervisorSpec,
  type SupervisorStatus,
  specOnStdin,
  writeStatusSync,
} from './protocol';

const isWindows = process.platform === 'win32';

type Outcome = Pick<EndedStatus, 'exitCode' | 'signal' | 'error'>;

class Supervisor {
  private log?: CappedLog;
  private child?: ChildProcess;
  private stopping?: Promise<void>;
  private agentStart?: string;
  private sandbox?: SandboxHost;
  private readonly base: Omit<StatusBase, 'agentPid' | 'agentStart'>;

  constructor(private readonly spec: SupervisorSpec) {
    this.base = {
      supervisorPid: process.pid,
      logPath: spec.logPath,
      cwd: spec.cwd,
      startedAt: Date.now(),
      bootId: bootId(),
      supervisorStart: processStart(process.pid),
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
    const launch = this.spec.sandbox;
    if (launch === undefined) {
      this.start([]);
      return;
    }
    SandboxHost.open(launch, (line) => this.log?.write(Buffer.from(`${line}\n`))).then(
      (host) => {
        this.sandbox = host;
        this.start(host.extraStdio());
      },
      (e: Error) => this.cannotStart(new Error(`the sandbox's network filter did not start: ${e.message}`)),
    );
  }

  /** Starts the agent; `extra` are the pipes bubblewrap gets past stderr (fd 3 on). */
  private start(extra: readonly 'pipe'[]): void {
    if (this.stopping !== undefined) {
      this.finish(undefined, { signal: 'SIGTERM' });
      return;
    }
    const { file, args, cwd, env, stdin } = this.spec;
    const stdinOption = stdin === undefined ? ('ignore' as const) : ('pipe' as const);
    let child: ChildProcess;
    try {
      // execa: argv only (no shell), Windows' PATHEXT and quoting rules; output streamed to the log,
      // never buffered; the exact env of the spec; the agent is ours to end (no cleanup on exit).
      child = execa(file, [...args], {
        cwd,
        env,
        extendEnv: false,
        detached: !isWindows,
        // The task, when the profile gives it on standard input: written whole, then the input is closed.
        ...(stdin === undefined ? {} : { input: stdin }),
        stdio: [stdinOption, 'pipe', 'pipe', ...extra],
        encoding: 'buffer',
        buffer: false,
        reject: false,
        cleanup: false,
        forceKillAfterDelay: false,
        stripFinalNewline: false,
        windowsHide: true,
        shell: false,
      });
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
    const pid = child.pid;
    this.sandbox?.started(child).catch((e: Error) => {
      this.log?.write(Buffer.from(`[sandbox] ${e.message}\n`));
      signalGroup(pid, 'SIGKILL');
    });
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
    this.finish(
      pid,
      signal !== null
        ? { signal }
        : exitCode !== null
          ? { exitCode }
          : { error: 'the agent ended without an exit code' },
    );
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
    this.finish(pid, { error: storedLine('supervisorFailed', { error: e instanceof Error ? e.message : String(e) }) });
  }

  /** Writes the end to the status file (after every output byte reached the log), then exits. */
  private finish(agentPid: number | undefined, outcome: Outcome): void {
    this.sandbox?.close();
    this.log?.close();
    this.log = undefined;
    const ok = this.writeStatus({
      ...this.base,
      ...outcome,
      agentPid,
      agentStart: this.agentStart,
      state: 'ended',
      endedAt: Date.now(),
      stopRequested: this.stopping !== undefined || undefined,
    });
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

/**
 * `--spec-on-stdin`: started before its agent's worktree is ready (SupervisedRunner.prepare), it
 * boots while the files are checked out and waits for its spec's path on stdin, one line; stdin
 * ending without one (the dispatch failed, the window is gone) ends it with nothing done.
 */
function specFromStdin(): void {
  let text = '';
  const input = process.stdin;
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => {
    text += chunk;
    const end = text.indexOf('\n');
    if (end >= 0) {
      input.removeAllListeners();
      input.destroy();
      new Supervisor(readSpec(text.slice(0, end))).run();
    }
  });
  input.on('error', () => input.destroy());
}

function main(argv: readonly string[]): void {
  if (argv.length !== 1) {
    process.exitCode = 2;
    return;
  }
  if (argv[0] === specOnStdin) {
    specFromStdin();
    return;
  }
  new Supervisor(readSpec(argv[0])).run();
}

// Only when run as dist/supervisor.js: importing this module must not start a supervisor.
if (require.main === module) {
  main(process.argv.slice(2));
}
