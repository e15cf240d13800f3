/**
 * The runs of a window's agents: preparing a new worktree, its setup command (SetupRun), starting
 * the agent's process or adopting one an earlier window left running (Run). Each run emits its
 * output, progress and end; AgentRuns listens and writes them into the records and the change
 * tracker below it — it never calls back into the manager.
 */
import type { AgentRecord } from '../agent';
import { inputPatch } from './inputState';
import { type ResolvedProfile, checkPromptRoute } from './dispatchChecks';
import type { AgentProcess, ManagerSettings } from '../ports';
import type { ProfileOutput, Timers } from '../clis';
import type { AgentManagerDeps } from './managerDeps';
import { SetupRun, WorktreePrep } from '../worktrees';
import { AgentEnvs, writeEnvFile } from './agentEnvs';
import { Run } from './run';
import { quotaEnd } from './quotaPause';
import { budgetEnd } from './budgets';
import { BudgetWatch } from './budgetWatch';
import { runEnded, runIdsOf, runStartPatch } from './runHistory';
import { RunningElsewhere } from './runningElsewhere';
import { runCommand } from './sandboxing';
import type { AgentRecords } from './agentRecords';
import type { ChangeTracker } from './changeTracker';
import { type Disposable, Emitter, EventFanIn, mapEvent } from '../../util/event';

/** The part of AgentManagerDeps that runs use. */
export type RunDeps = Pick<
  AgentManagerDeps,
  | 'fs'
  | 'worktreeSource'
  | 'headlessRunner'
  | 'terminalRunner'
  | 'clock'
  | 'logger'
  | 'settings'
  | 'profiles'
  | 'processAlive'
  | 'portProbe'
  | 'sandbox'
> & {
  /** Paces progress reports; tests pass a fake clock. */
  readonly timers?: Timers;
};

/** The run an agent has now: its setup command, then the agent itself. */
interface Current {
  readonly run: Run | SetupRun;
  /** Resolves once the end of the run (and of the agent's run after a setup run) is recorded. */
  ended: Promise<void>;
}

export class AgentRuns implements Disposable {
  private readonly current = new Map<string, Current>();
  private readonly prep: WorktreePrep;
  private readonly elsewhere: RunningElsewhere;
  /** Listens to the runs' output only while someone listens here: nobody's output is decoded for nothing. */
  private readonly outputs = new EventFanIn<{ id: string; text: string }>();
  private readonly endEmitter = new Emitter<string>();
  private disposed = false;
  /** Every agent's output; listening makes the runner read and decode all of it (see AgentProcess). */
  readonly onDidOutput = this.outputs.event;
  /** Fires with an agent's id once the end of its run is in its record (not for a setup run that failed). */
  readonly onDidEnd = this.endEmitter.event;
  /** The worktreeEnv of each dispatch: reserved before its worktree exists, given to every run. */
  readonly envs: AgentEnvs;
  private readonly budgets: BudgetWatch;

  constructor(
    private readonly deps: RunDeps,
    private readonly records: AgentRecords,
    private readonly tracker: ChangeTracker,
  ) {
    this.prep = new WorktreePrep(deps.fs, deps.worktreeSource, deps.logger);
    this.elsewhere = new RunningElsewhere(deps, records);
    this.envs = new AgentEnvs(deps.portProbe, records);
    this.budgets = new BudgetWatch(records, deps.logger, (id) => this.current.get(id)?.run.stop());
  }

  isRunning(id: string): boolean {
    return this.current.has(id);
  }

  /** The root process of the agent's run here (a supervisor, a terminal's shell); not of a setup run. */
  pid(id: string): number | undefined {
    const run = this.current.get(id)?.run;
    return run instanceof Run ? run.pid : undefined;
  }

  /** Undefined when the agent is not running; not async, so awaiting it costs no extra turn. */
  ended(id: string): Promise<void> | undefined {
    return this.current.get(id)?.ended;
  }

  /** Stops the agent's current run, if any, and resolves once its end is recorded. */
  async stop(id: string): Promise<void> {
    const entry = this.current.get(id);
    if (!entry) {
      return;
    }
    await entry.run.stop();
    await entry.ended;
  }

  /** Drops what the runner keeps of a finished agent's runs: its own, its setup's, check's and reviewer's. */
  forget(id: string): void {
    const where = { cwd: this.records.get(id).cwd };
    for (const runId of runIdsOf(id)) {
      this.deps.headlessRunner.forget?.(runId, where);
    }
  }

  /** Ends what the agent's ended runs left running (a server it started), before its folder goes. */
  async endLeftovers(id: string): Promise<void> {
    const where = { cwd: this.records.get(id).cwd };
    await Promise.all(runIdsOf(id).map((runId) => this.deps.headlessRunner.endLeftovers?.(runId, where)));
  }

  /**
   * Leaves supervised runs running for the next window to adopt; a runner that cannot leave its
   * agent running stops it.
   */
  dispose(): void {
    this.disposed = true;
    for (const entry of this.current.values()) {
      entry.run.dispose();
    }
    this.current.clear();
    this.elsewhere.dispose();
    this.outputs.dispose();
    this.endEmitter.dispose();
  }

  /**
   * Initialises submodules (when the setting says so), copies and links files into a new worktree,
   * then runs the setup command, if any, and `start` once it succeeds. A failure fails the agent
   * before it starts; the worktree stays for inspection.
   */
  async prepareThenStart(record: AgentRecord, settings: ManagerSettings, start: () => void): Promise<void> {
    const error =
      (await this.prep.prepare(record, settings, (text) => this.appendLog(record, text))) ??
      (await writeEnvFile(this.deps.fs, this.deps.worktreeSource, record));
    if (error !== undefined) {
      this.records.update(record.id, { status: 'failed', error, endedAt: this.deps.clock.now() });
      return;
    }
    if (this.disposed || !this.records.has(record.id)) {
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
      // The profile may have changed since the dispatch checked it (a follow-up, a reopened terminal).
      checkPromptRoute(profile, record.mode);
      const command = runCommand(this.deps.sandbox, this.records.list(), record, executable, argTemplate, prompt);
      process = runner.start({
        agentId: record.id,
        title: record.title,
        ...command,
        cwd: record.cwd,
        logPath: record.logPath ?? '',
        banner,
        ...(profile.promptVia === 'stdin' ? { stdin: prompt } : {}),
      });
      if (banner) {
        this.outputs.fire({ id: record.id, text: `${banner}\n` });
      }
    } catch (e) {
      // Through "running", the one status every start (first run or follow-up) may pass to "failed".
      this.records.update(record.id, { status: 'running', startedAt: this.deps.clock.now() });
      const error = (e as Error).message;
      this.records.update(record.id, { status: 'failed', error, endedAt: this.deps.clock.now() });
      return;
    }
    // A new run starts with no progress; the last run's answer is in the log, its cost in spentUsd.
    this.records.update(record.id, runStartPatch(this.records.get(record.id), profile.name, this.deps.clock.now()));
    this.deps.logger.info(
      `[AgentManager] started ${record.id} (${profile.name}, pid ${process.pid ?? '?'}) in ${record.cwd}`,
    );
    const output = record.mode === 'headless' ? profile.output : undefined;
    this.follow(this.records.get(record.id), process, output, false);
  }

  /** The setup run counts as the agent's run: stop() ends it and whenEnded() waits through it and the agent. */
  private runSetup(record: AgentRecord, argv: readonly string[], start: () => void): void {
    const run = SetupRun.start(this.deps.headlessRunner, record, argv, this.deps.logger);
    if (typeof run === 'string') {
      this.records.update(record.id, { status: 'failed', error: run, endedAt: this.deps.clock.now() });
      return;
    }
    const entry: Current = { run, ended: Promise.resolve() };
    this.current.set(record.id, entry);
    this.outputs.fire({ id: record.id, text: `${run.banner}\n` });
    const output = mapEvent(run.onDidOutput, (text) => ({ id: record.id, text }));
    this.outputs.add(record.id, output);
    entry.ended = run.ended.then(async (end) => {
      this.current.delete(record.id);
      this.outputs.remove(record.id, output);
      if (this.disposed || !this.records.has(record.id)) {
        return;
      }
      if (end.outcome === 'stopped') {
        this.records.update(record.id, { status: 'stopped', endedAt: this.deps.clock.now() });
      } else if (end.outcome === 'succeeded') {
        start();
        await this.current.get(record.id)?.ended;
      } else {
        this.records.update(record.id, { status: 'failed', error: end.error, endedAt: this.deps.clock.now() });
      }
    });
  }

  /** A log that cannot be written must not fail the agent: its output still reaches the output view. */
  private async appendLog(record: AgentRecord, text: string): Promise<void> {
    this.outputs.fire({ id: record.id, text: `${text}\n` });
    if (record.logPath) {
      await this.deps.fs
        .appendText(record.logPath, `${text}\n`)
        .catch((e: Error) => this.deps.logger.warn(`[AgentManager] writing ${record.logPath}: ${e.message}`));
    }
  }

  /** Follows a running agent process (just started, or adopted from an earlier window) into its record. */
  follow(record: AgentRecord, process: AgentProcess, output: ProfileOutput | undefined, adopted: boolean): void {
    const id = record.id;
    const run = new Run(process, {
      agentId: id,
      cwd: record.cwd,
      startedAt: record.startedAt ?? this.deps.clock.now(),
      output,
      adopted,
      timeoutMs: this.deps.settings().agentTimeoutMs ?? 0,
      clock: this.deps.clock,
      logger: this.deps.logger,
      timers: this.deps.timers,
    });
    const entry: Current = { run, ended: Promise.resolve() };
    this.current.set(id, entry);
    const live = () => !this.disposed && this.records.has(id);
    const runOutput = mapEvent(run.onDidOutput, (text) => ({ id, text }));
    this.outputs.add(id, runOutput);
    this.tracker.setRunning(id, true);
    run.onDidProgress((activity) => {
      this.records.update(id, { activity });
      this.tracker.poke(id);
      this.budgets.check(id);
    });
    run.onDidFindTerminal((terminalPid) => {
      if (live()) {
        this.records.update(id, { terminalPid });
      }
    });
    run.onDidChangeInput((state) => {
      const patch = live() ? inputPatch(this.records.get(id), state) : undefined;
      if (patch) {
        this.records.update(id, patch);
      }
    });
    entry.ended = run.ended.then(async (end) => {
      const endedAt = this.deps.clock.now();
      // The final change set is published first, so whoever reacts to the end sees the agent's last files.
      this.tracker.setRunning(id, false);
      await this.tracker.refresh(id);
      this.current.delete(id);
      this.outputs.remove(id, runOutput);
      // An adopted terminal not found here whose process lives runs in another window: its record stays as is.
      if (live() && !(end.status === 'detached' && this.elsewhere.keep(this.records.get(id)))) {
        const last = { ...this.records.get(id), ...(end.activity ? { activity: end.activity } : {}) };
        this.records.update(id, {
          ...quotaEnd(last, end, endedAt),
          ...budgetEnd(last, end),
          ...runEnded(last, endedAt),
          exitCode: end.exitCode,
          signal: end.signal,
          errorReason: end.errorReason,
          endedAt,
          ...(end.activity ? { activity: end.activity } : {}),
        });
        this.budgets.check(id); // its last cost may put its plan over budget
        this.endEmitter.fire(id);
      }
    });
  }
}
