import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../core/errors';
import type { AgentRunner, LaunchRequest, RunLocation } from '../core/ports';
import { bootId, processStart } from '../supervisor/processIdentity';
import {
  type SupervisorSpec,
  type SupervisorStatus,
  parseStatus,
  specOnStdin,
  writeStatusSync,
} from '../supervisor/protocol';
import { logEndSync } from './logReader';
import { SupervisedProcess } from './supervisedProcess';
import { endLeftovers, keepLeftovers, leftoversPath } from './runLeftovers';
import { supervisorAlive } from './supervisorStatus';

// Importers of this module keep finding the process and log types here.
export { SupervisedProcess };
export type { LogSlice } from './logReader';

export interface SupervisedRunnerOptions {
  /** Absolute path of the bundled supervisor (dist/supervisor.js). */
  readonly supervisorScript: string;
  /** Runs the supervisor: process.execPath (Node, or Electron made to behave as Node). */
  readonly runtime: string;
  /** Private folder (made 0700) for `<agentId>.spec.json` and `<agentId>.status.json`; must outlive the window. */
  readonly stateDir: string;
  /**
   * The state folder of a run started in `cwd`, when it has one of its own (the registry of its
   * repository, which every window on it reads); `stateDir` otherwise, and for runs started before.
   */
  readonly stateDirFor?: (cwd: string) => string | undefined;
  /** stop(): time between SIGTERM to the agent's process group and SIGKILL. Default 3000 ms. */
  readonly graceMs?: number;
  /** Cap of each agent's log; read at every start, so a changed setting applies to the next agent. Default 50 MiB. */
  readonly maxLogBytes?: number | (() => number);
  /** Poll of log and status where watching them fails (no inotify watch left, a remote file system). Default 500 ms. */
  readonly pollMs?: number;
  /**
   * While watching works, the slow check that stands in for events a file system dropped and for a
   * supervisor that died without writing its end (one this host did not start). Default 10 s.
   */
  readonly idlePollMs?: number;
  /** After the agent exits, how long output still held open by children it left is read. Default 2000 ms. */
  readonly drainMs?: number;
  /** Characters of the last output read back when an agent ends (SupervisedProcess.tail). Default 16384. */
  readonly tailChars?: number;
}

type Settings = Required<Omit<SupervisedRunnerOptions, 'maxLogBytes' | 'stateDirFor'>> & {
  readonly maxLogBytes: () => number;
};

const isWindows = process.platform === 'win32';

/**
 * Runs each headless agent under dist/supervisor.js, detached, so that it survives a reload or a
 * crash of the extension host; a later host re-attaches with adopt(). Output reaches onDidOutput by
 * tailing the log the supervisor writes, while someone listens; the end comes from the status file
 * it writes last.
 */
export class SupervisedRunner implements AgentRunner {
  private readonly settings: Settings;
  /** Agent id → its supervisor, started by prepare() and waiting on stdin for its spec. */
  private readonly waiting = new Map<string, ChildProcess>();

  constructor(private readonly options: SupervisedRunnerOptions) {
    const maxLogBytes = options.maxLogBytes ?? 50 * 1024 * 1024;
    this.settings = {
      graceMs: 3000,
      pollMs: 500,
      idlePollMs: 10_000,
      drainMs: 2000,
      tailChars: 16384,
      ...options,
      maxLogBytes: typeof maxLogBytes === 'function' ? maxLogBytes : () => maxLogBytes,
    };
  }

  specPath(agentId: string, stateDir = this.settings.stateDir): string {
    return path.join(stateDir, `${checkedId(agentId)}.spec.json`);
  }

  statusPath(agentId: string, stateDir = this.settings.stateDir): string {
    return path.join(stateDir, `${checkedId(agentId)}.status.json`);
  }

  /** Where the state of a run in `cwd` goes: its own folder first, then the common one. */
  private stateDirs(cwd: string | undefined): string[] {
    const own = cwd === undefined ? undefined : this.options.stateDirFor?.(cwd);
    return own === undefined || own === this.settings.stateDir
      ? [this.settings.stateDir]
      : [own, this.settings.stateDir];
  }

  start(request: LaunchRequest): SupervisedProcess {
    const stateDir = this.stateDirs(request.cwd)[0];
    const specPath = this.specPath(request.agentId, stateDir);
    const statusPath = this.statusPath(request.agentId, stateDir);
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // A status left by an earlier run of this agent (a follow-up reuses the id) must not end this one;
    // what that run left running is kept for endLeftovers.
    keepLeftovers(statusPath);
    fs.rmSync(statusPath, { force: true });
    fs.rmSync(specPath, { force: true });
    fs.mkdirSync(path.dirname(request.logPath), { recursive: true });
    fs.appendFileSync(request.logPath, request.banner ? `${request.banner}\n` : '');
    const position = logEndSync(request.logPath);
    const spec: SupervisorSpec = {
      file: request.file,
      args: [...request.args],
      cwd: request.cwd,
      ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
      // A shell sets PWD to the folder it starts a program in, and OpenCode takes its working folder
      // from PWD: the host's own would send the agent's edits to the folder the editor started in.
      env: { ...definedEnv(process.env), ...request.env, ...(isWindows ? {} : { PWD: request.cwd }) },
      logPath: request.logPath,
      statusPath,
      maxLogBytes: this.settings.maxLogBytes(),
      graceMs: this.settings.graceMs,
      drainMs: this.settings.drainMs,
      ...(request.sandbox !== undefined ? { sandbox: request.sandbox } : {}),
    };
    fs.writeFileSync(specPath, JSON.stringify(spec), { mode: 0o600, flag: 'wx' });
    let supervisor: ChildProcess;
    const ready = this.takeWaiting(request.agentId);
    if (ready?.stdin && ready.pid !== undefined) {
      // Booted while the worktree was checked out: adoptable first, then its spec's path, and the pipe closed.
      supervisor = ready;
      writeStarting(statusPath, ready.pid, request);
      ready.stdin.end(`${specPath}\n`);
    } else {
      try {
        // Its own session, no pipes to us, not waited for: it must outlive this host.
        supervisor = this.spawnSupervisor(specPath, stateDir);
      } catch (e) {
        fs.rmSync(specPath, { force: true });
        throw e;
      }
      if (supervisor.pid !== undefined) {
        // Adoptable from now on; the supervisor (still booting, far from its first write) replaces it.
        writeStarting(statusPath, supervisor.pid, request);
      }
    }
    return new SupervisedProcess({
      settings: this.settings,
      logPath: request.logPath,
      statusPath,
      specPath,
      position,
      supervisor,
      lostMessage: 'supervisor lost',
    });
  }

  /**
   * Starts the supervisor of a run about to start in `cwd` (a worktree being checked out), so that
   * its process start and boot overlap the checkout; start() hands it its spec. It waits on stdin
   * and ends, doing nothing, when release() or the end of this host closes that pipe.
   */
  prepare(agentId: string, cwd: string): void {
    if (this.waiting.has(checkedId(agentId))) {
      return;
    }
    const stateDir = this.stateDirs(cwd)[0];
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const supervisor = this.spawnSupervisor(specOnStdin, stateDir);
    // A pipe to a supervisor that died is not this host's error; start() then finds it lost.
    supervisor.stdin?.on('error', () => undefined);
    supervisor.on('error', () => this.waiting.get(agentId) === supervisor && this.waiting.delete(agentId));
    this.waiting.set(agentId, supervisor);
  }

  /** Ends a supervisor prepare() started that start() did not take (the run will not start now). */
  release(agentId: string): void {
    this.takeWaiting(agentId)?.stdin?.end();
  }

  private takeWaiting(agentId: string): ChildProcess | undefined {
    const supervisor = this.waiting.get(agentId);
    this.waiting.delete(agentId);
    // Gone already (killed, failed to start): start() spawns another.
    return supervisor?.exitCode === null && supervisor.signalCode === null ? supervisor : undefined;
  }

  private spawnSupervisor(arg: string, stateDir: string): ChildProcess {
    const supervisor = spawn(this.settings.runtime, [this.settings.supervisorScript, arg], {
      cwd: stateDir,
      detached: !isWindows,
      stdio: [arg === specOnStdin ? 'pipe' : 'ignore', 'ignore', 'ignore'],
      windowsHide: true,
      shell: false,
      // Under Electron (VS Code) the runtime is the app itself; this makes it behave as Node.
      env: { ...definedEnv(process.env), ELECTRON_RUN_AS_NODE: '1' },
    });
    supervisor.unref();
    return supervisor;
  }

  /**
   * Re-attaches to an agent a previous extension host started; undefined when there is no status
   * for it. Live output continues from the log's current end (readLogFrom shows what came before).
   */
  adopt(agentId: string, where?: RunLocation): SupervisedProcess | undefined {
    for (const stateDir of this.stateDirs(where?.cwd)) {
      const adopted = this.adoptFrom(agentId, stateDir);
      if (adopted) {
        return adopted;
      }
    }
    return undefined;
  }

  private adoptFrom(agentId: string, stateDir: string): SupervisedProcess | undefined {
    const statusPath = this.statusPath(agentId, stateDir);
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
    const lostMessage =
      status.state !== 'ended' && !supervisorAlive(status) ? 'lost while the window was closed' : 'supervisor lost';
    return new SupervisedProcess({
      settings: this.settings,
      logPath: status.logPath,
      statusPath,
      specPath: this.specPath(agentId, stateDir),
      position,
      status,
      lostMessage,
    });
  }

  /** Ends what the agent's ended runs left running (runLeftovers.ts); a run still going is left alone. */
  async endLeftovers(agentId: string, where?: RunLocation): Promise<void> {
    for (const stateDir of this.stateDirs(where?.cwd)) {
      await endLeftovers(this.statusPath(agentId, stateDir), this.settings.graceMs);
    }
  }

  /** Deletes what is kept about an agent that has ended (its status), e.g. once it is discarded. */
  forget(agentId: string, where?: RunLocation): void {
    for (const stateDir of this.stateDirs(where?.cwd)) {
      fs.rmSync(this.statusPath(agentId, stateDir), { force: true });
      fs.rmSync(this.specPath(agentId, stateDir), { force: true });
      fs.rmSync(leftoversPath(this.statusPath(agentId, stateDir)), { force: true });
    }
  }
}

function writeStarting(statusPath: string, supervisorPid: number, request: LaunchRequest): void {
  writeStatusSync(statusPath, {
    state: 'starting',
    supervisorPid,
    supervisorStart: processStart(supervisorPid),
    bootId: bootId(),
    logPath: request.logPath,
    cwd: request.cwd,
    startedAt: Date.now(),
  });
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

function checkedId(agentId: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(agentId) || agentId.startsWith('.')) {
    throw new AgentError('invalidAgentId', { id: agentId });
  }
  return agentId;
}
