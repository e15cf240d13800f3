/**
 * The run lifecycle of agents: preparing a new worktree, the setup command, starting the agent
 * process and following it to its end. The records themselves belong to AgentManager; a run
 * reaches them only through RunHost.
 */
import type { AgentActivity, AgentRecord, AgentStatus } from '../agent';
import { ProgressFeed, type Timers } from '../clis';
import { inputPatch } from './inputState';
import type { ResolvedProfile } from './dispatchChecks';
import { isDiskFull, storedLine } from '../errors';
import type { AgentProcess, AgentRunner, Clock, FileSystemPort, Logger, ManagerSettings, ProcessExit } from '../ports';
import type { WorktreeSetupGit } from '../git';
import { type Profile, type ProfileOutput, expandArgs } from '../clis';
import { WorktreePrep, setupFailure, setupRequest, submoduleFailure } from './worktreePrep';
import type { Disposable } from '../../util/event';

/** Characters of a run's last output kept to tell why it failed (a full disk). */
const outputTailChars = 4096;

/** The error of a run that failed because the disk filled up under it. */
function diskFullWhileRunning(record: AgentRecord): string {
  return storedLine('agentDiskFull', { cwd: record.cwd });
}

/** The part of AgentManagerDeps that runs use. */
export interface RunDeps {
  readonly fs: FileSystemPort;
  readonly worktreeSource: WorktreeSetupGit;
  readonly headlessRunner: AgentRunner;
  readonly terminalRunner: AgentRunner;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: () => ManagerSettings;
  /** Tells an adopted run's output format (its profile's `output`). */
  readonly profiles: () => readonly Profile[];
  /** Paces progress reports; tests pass a fake clock. */
  readonly timers?: Timers;
}

/** What a run needs from the owner of the agent records. */
export interface RunHost {
  /** Applies a patch to the record; a status change still goes through the state machine. */
  readonly update: (id: string, patch: Partial<AgentRecord>) => void;
  readonly get: (id: string) => AgentRecord;
  /** False once the agent was forgotten: the end of its run is then not recorded. */
  readonly has: (id: string) => boolean;
  readonly output: (id: string, text: string) => void;
  readonly refreshChanges: (id: string) => Promise<void>;
}

interface Running {
  readonly process: AgentProcess;
  stopRequested: boolean;
  timedOut?: boolean;
  /** Set when the profile's CLI prints JSON events. */
  feed?: ProgressFeed;
  /** Resolves once the end of the run is recorded. */
  ended: Promise<void>;
}

export class AgentRuns implements Disposable {
  private readonly running = new Map<string, Running>();
  private readonly prep: WorktreePrep;
  private disposed = false;

  constructor(
    private readonly deps: RunDeps,
    private readonly host: RunHost,
  ) {
    this.prep = new WorktreePrep(deps.fs, deps.worktreeSource, deps.logger);
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  /** Undefined when the agent is not running; not async, so awaiting it costs no extra turn. */
  ended(id: string): Promise<void> | undefined {
    return this.running.get(id)?.ended;
  }

  /** Stops the agent's current run, if any, and resolves once its end is recorded. */
  async stop(id: string): Promise<void> {
    const entry = this.running.get(id);
    if (!entry) {
      return;
    }
    entry.stopRequested = true;
    await entry.process.stop();
    await entry.ended;
  }

  /**
   * Follows a restored record's run, if one outlived its window: a supervised headless run, or a
   * terminal VS Code revives (its exit says `detached` when none comes); false when there is none.
   */
  adopt(record: AgentRecord): boolean {
    const active = record.status === 'running' || record.status === 'waiting-for-input';
    const terminal = record.mode === 'terminal';
    const adopted = active
      ? (terminal ? this.deps.terminalRunner : this.deps.headlessRunner).adopt?.(record.id, record.terminalPid)
      : undefined;
    if (!adopted) {
      return false;
    }
    this.attach(
      record,
      adopted,
      terminal ? undefined : this.deps.profiles().find((p) => p.name === record.profile)?.output,
      true,
    );
    this.deps.logger.info(
      `[AgentManager] adopted ${record.id}, ${terminal ? `waiting for its terminal (pid ${record.terminalPid ?? '?'})` : 'still running'} from an earlier window`,
    );
    return true;
  }

  /**
   * Leaves supervised runs running for the next window to adopt; a runner that cannot leave its
   * agent running stops it.
   */
  dispose(): void {
    this.disposed = true;
    for (const entry of this.running.values()) {
      entry.feed?.dispose();
      if (entry.process.detach) {
        entry.process.detach();
      } else {
        void entry.process.stop();
      }
    }
    this.running.clear();
  }

  /**
   * Initialises submodules (when the setting says so), copies and links files into a new worktree,
   * then runs the setup command, if any, and `start` once it succeeds. A failure fails the agent
   * before it starts; the worktree stays for inspection.
   */
  async prepareThenStart(record: AgentRecord, settings: ManagerSettings, start: () => void): Promise<void> {
    if (settings.initSubmodules) {
      try {
        const lines = await this.prep.submodules(record.cwd);
        if (lines.length > 0) {
          await this.appendLog(record, lines.join('\n'));
        }
      } catch (e) {
        const error = submoduleFailure(e);
        // The log is English, like every log line; the record keeps the code for the user's language.
        const git = error.slice(error.indexOf('\n') + 1);
        await this.appendLog(record, `──── Initialising the submodules failed; the agent was not started.\n${git}`);
        this.host.update(record.id, { status: 'failed', error, endedAt: this.deps.clock.now() });
        return;
      }
    }
    try {
      const lines = await this.prep.files(record.repoRoot, record.cwd, settings.symlinkFolders ?? []);
      if (lines.length > 0) {
        await this.appendLog(record, ['──── preparing the worktree', ...lines].join('\n'));
      }
    } catch (e) {
      this.host.update(record.id, {
        status: 'failed',
        error: `${storedLine('worktreePrepFailed', {})}\n${(e as Error).message}`,
        endedAt: this.deps.clock.now(),
      });
      return;
    }
    if (this.disposed || !this.host.has(record.id)) {
      return;
    }
    const setup = settings.setupCommand ?? [];
    if (setup.length > 0) {
      this.runSetup(record, setup, start);
    } else {
      start();
    }
  }

  launch(
    record: AgentRecord,
    executable: ResolvedProfile,
    argTemplate: readonly string[],
    prompt: string,
    banner?: string,
  ): void {
    const profile = executable.profile;
    const runner = record.mode === 'terminal' ? this.deps.terminalRunner : this.deps.headlessRunner;
    let process: AgentProcess;
    try {
      process = runner.start({
        agentId: record.id,
        title: record.title,
        file: executable.file,
        args: [...executable.prefixArgs, ...expandArgs(argTemplate, prompt)],
        cwd: record.cwd,
        env: { ...executable.env, ...profile.env },
        logPath: record.logPath ?? '',
        banner,
      });
      if (banner) {
        this.host.output(record.id, `${banner}\n`);
      }
    } catch (e) {
      // Through "running", the one status every start (first run or follow-up) may pass to "failed".
      this.host.update(record.id, { status: 'running', startedAt: this.deps.clock.now() });
      this.host.update(record.id, { status: 'failed', error: (e as Error).message, endedAt: this.deps.clock.now() });
      return;
    }
    // A new run starts with no progress; the last run's answer is in the log.
    this.host.update(record.id, {
      status: 'running',
      startedAt: this.deps.clock.now(),
      activity: undefined,
      ...(record.mode === 'terminal' ? { input: 'unknown', terminalPid: undefined } : {}),
    });
    this.deps.logger.info(
      `[AgentManager] started ${record.id} (${profile.name}, pid ${process.pid ?? '?'}) in ${record.cwd}`,
    );
    this.attach(this.host.get(record.id), process, record.mode === 'headless' ? profile.output : undefined, false);
  }

  /** The setup run counts as the agent's run: stop() ends it and whenEnded() waits through it and the agent. */
  private runSetup(record: AgentRecord, argv: readonly string[], start: () => void): void {
    const request = setupRequest(record, argv);
    let process: AgentProcess;
    try {
      process = this.deps.headlessRunner.start(request);
    } catch (e) {
      this.host.update(record.id, {
        status: 'failed',
        error: setupFailure(argv, { error: (e as Error).message }, ''),
        endedAt: this.deps.clock.now(),
      });
      return;
    }
    const entry: Running = { process, stopRequested: false, ended: Promise.resolve() };
    this.running.set(record.id, entry);
    let output = '';
    this.host.output(record.id, `${request.banner ?? ''}\n`);
    process.onDidOutput((text) => {
      output = (output + text).slice(-4096);
      this.host.output(record.id, text);
    });
    entry.ended = process.exit.then(async (exit) => {
      this.running.delete(record.id);
      if (this.disposed || !this.host.has(record.id)) {
        return;
      }
      if (entry.stopRequested) {
        this.host.update(record.id, { status: 'stopped', endedAt: this.deps.clock.now() });
      } else if (exit.exitCode === 0 && exit.error === undefined) {
        start();
        await this.running.get(record.id)?.ended;
      } else {
        this.deps.logger.warn(
          `[AgentManager] ${record.id}: setup command failed (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`,
        );
        this.host.update(record.id, {
          status: 'failed',
          error: setupFailure(argv, exit, output),
          endedAt: this.deps.clock.now(),
        });
      }
    });
  }

  /** A log that cannot be written must not fail the agent: its output still reaches the output view. */
  private async appendLog(record: AgentRecord, text: string): Promise<void> {
    this.host.output(record.id, `${text}\n`);
    if (record.logPath) {
      await this.deps.fs
        .appendText(record.logPath, `${text}\n`)
        .catch((e: Error) => this.deps.logger.warn(`[AgentManager] writing ${record.logPath}: ${e.message}`));
    }
  }

  /** Follows a running agent process (just started, or adopted from an earlier window) to its end. */
  private attach(
    record: AgentRecord,
    process: AgentProcess,
    output: ProfileOutput | undefined,
    adopted: boolean,
  ): void {
    const entry: Running = { process, stopRequested: false, ended: Promise.resolve() };
    this.running.set(record.id, entry);
    entry.feed = output
      ? new ProgressFeed(output, record.cwd, (activity) => this.host.update(record.id, { activity }), this.deps.timers)
      : undefined;
    const replayed = adopted ? this.replay(record, process, entry.feed, process.startOffset) : Promise.resolve();
    let tail = '';
    process.onDidOutput((text) => {
      tail = (tail + text).slice(-outputTailChars);
      this.host.output(record.id, text);
      entry.feed?.push(text);
    });
    this.followTerminal(record.id, process);
    const limit = this.deps.settings().agentTimeoutMs ?? 0;
    const left = limit - (this.deps.clock.now() - (record.startedAt ?? this.deps.clock.now()));
    const timer =
      limit > 0
        ? setTimeout(
            () => {
              entry.timedOut = true;
              this.deps.logger.warn(
                `[AgentManager] ${record.id} ran longer than ${Math.round(limit / 60000)} min: stopping it`,
              );
              void process.stop();
            },
            Math.max(left, 0),
          )
        : undefined;
    entry.ended = process.exit.then(async (exit) => {
      clearTimeout(timer);
      await replayed;
      // An adopted run that had ended before this window came showed no live output: all of it is in the log.
      if (adopted && entry.feed && !entry.feed.sawOutput && process.startOffset !== undefined) {
        await this.replay(record, process, entry.feed, undefined, process.startOffset);
      }
      const activity = entry.feed?.finish();
      const status = this.endStatus(entry, exit, activity);
      const endedAt = this.deps.clock.now();
      this.deps.logger.info(
        `[AgentManager] ${record.id} ended: ${status} (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`,
      );
      // The final change set is published first, so whoever reacts to the end sees the agent's last files.
      await this.host.refreshChanges(record.id);
      this.running.delete(record.id);
      if (!this.disposed && this.host.has(record.id)) {
        const full = status === 'failed' && exit.error === undefined && isDiskFull(tail);
        const reported = status === 'failed' && activity?.reportedError ? activity.result : undefined;
        const error = full ? diskFullWhileRunning(record) : (exit.error ?? reported);
        this.host.update(record.id, {
          status,
          exitCode: exit.exitCode,
          signal: exit.signal,
          error,
          errorReason: full ? 'diskFull' : undefined,
          endedAt,
          ...(activity ? { activity } : {}),
        });
      }
    });
  }

  /** A terminal's pid, kept to find the terminal again after a reload, and what VS Code can tell of its input. */
  private followTerminal(id: string, process: AgentProcess): void {
    void process.whenPid?.then((terminalPid) => {
      if (terminalPid !== undefined && this.host.has(id) && !this.disposed) {
        this.host.update(id, { terminalPid });
      }
    });
    process.onDidChangeInput?.((state) => {
      const patch = this.host.has(id) && !this.disposed ? inputPatch(this.host.get(id), state) : undefined;
      if (patch) {
        this.host.update(id, patch);
      }
    });
  }

  /** A clean exit whose CLI reports denied tools did not do all it was asked: it needs permission, not a review as a
   *  success; one whose CLI reports an error failed (its result text becomes the error). */
  private endStatus(entry: Running, exit: ProcessExit, activity: AgentActivity | undefined): AgentStatus {
    if (exit.detached) {
      return 'detached';
    }
    if (entry.timedOut) {
      return 'timed-out';
    }
    if (entry.stopRequested || exit.stopRequested) {
      return 'stopped';
    }
    if (exit.exitCode !== 0 || exit.error || activity?.reportedError) {
      return 'failed';
    }
    return (activity?.denials?.length ?? 0) > 0 ? 'needs-permission' : 'succeeded';
  }

  /**
   * Rebuilds an adopted run's progress from its log; live output waits meanwhile. A log that cannot
   * be read leaves the saved progress.
   */
  private async replay(
    record: AgentRecord,
    process: AgentProcess,
    feed: ProgressFeed | undefined,
    to: number | undefined,
    from?: number,
  ): Promise<void> {
    const read = process.readLogFrom?.bind(process);
    if (!feed || !read || (to !== undefined && to <= 0)) {
      return;
    }
    await feed
      .replay((offset, end) => read(offset, { end }), to, from)
      .catch((e: Error) =>
        this.deps.logger.warn(`[AgentManager] ${record.id}: reading back its log failed: ${e.message}`),
      );
  }
}
