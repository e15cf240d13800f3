import { type AgentRecord, type ChangedFile, type Isolation, isActive } from './agent';
import { assertTransition } from './agentStateMachine';
import { ChangeTracker } from './changeTracker';
import { sameChangeSet } from './changeSet';
import { checkPrompt, checkSettings, checkWorktreeRoot, resolveProfile, type ResolvedProfile } from './dispatchChecks';
import { AgentError } from './errors';
import { slugify, titleFromPrompt } from './naming';
import { WorktreeNames } from './worktreeNames';
import { WorktreePrep, setupFailure, setupRequest } from './worktreePrep';
import type {
  AgentProcess, AgentRunner, Clock, ExecutableResolver, FileSystemPort, FolderWatcher, GitPort, Logger,
  ManagerSettings, StateStore, WorkState, WorktreeSourcePort,
} from './ports';
import { type Profile, expandArgs } from './profiles';
import { SerialQueue } from '../util/async';
import { type Disposable, Emitter } from '../util/event';
import { joinPath, parentDir } from '../util/paths';

export interface DispatchOptions {
  readonly prompt: string;
  readonly profile: string;
  readonly isolation?: Isolation;
  readonly title?: string;
  /** The workspace folder the agent works on (any folder inside the repository). */
  readonly folder: string;
  /** Commit or branch the worktree starts from; default: HEAD of the repository. */
  readonly base?: string;
  /** Marks the agent as a task of a plan run. */
  readonly plan?: AgentRecord['plan'];
}

export interface AgentChange {
  readonly id: string;
  readonly kind: 'added' | 'updated' | 'removed';
}

export interface AgentManagerDeps {
  readonly git: GitPort;
  readonly fs: FileSystemPort;
  /** Which ignored files of the main worktree a new worktree gets (.worktreeinclude, symlinkFolders). */
  readonly worktreeSource: WorktreeSourcePort;
  readonly resolver: ExecutableResolver;
  readonly headlessRunner: AgentRunner;
  readonly terminalRunner: AgentRunner;
  readonly watcher: FolderWatcher;
  readonly store: StateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: () => ManagerSettings;
  readonly profiles: () => readonly Profile[];
  readonly newId: () => string;
}

interface Running {
  readonly process: AgentProcess;
  stopRequested: boolean;
  timedOut?: boolean;
  /** Resolves once the end of the run is recorded. */
  ended: Promise<void>;
}

/** Owns every agent: dispatch, lifecycle, change sets, persistence. Knows nothing of VS Code. */
export class AgentManager implements Disposable {
  private readonly records = new Map<string, AgentRecord>();
  private readonly running = new Map<string, Running>();
  private readonly saves = new SerialQueue();
  private readonly tracker: ChangeTracker;
  /** Shared with plan runs, whose integration worktrees are named the same way. */
  readonly names: WorktreeNames;
  private readonly prep: WorktreePrep;
  private disposed = false;
  private readonly changeEmitter = new Emitter<AgentChange>();
  private readonly outputEmitter = new Emitter<{ id: string; text: string }>();

  readonly onDidChangeAgent = this.changeEmitter.event;
  readonly onDidOutput = this.outputEmitter.event;

  constructor(private readonly deps: AgentManagerDeps) {
    this.names = new WorktreeNames(deps.git, deps.fs);
    this.prep = new WorktreePrep(deps.fs, deps.worktreeSource, deps.logger);
    this.tracker = new ChangeTracker(
      deps.watcher,
      (folder) => deps.git.changeSet(folder.cwd, folder.baseSha),
      (id, files) => this.publishChanges(id, files),
      deps.logger,
    );
    let changed = false;
    for (const record of deps.store.load()) {
      this.records.set(record.id, record);
      // A headless run outlives its window under a supervisor: adopt it. Anything else that was
      // active has no process any more: say so instead of pretending it runs.
      const adopted = record.status === 'running' && record.mode === 'headless' ? deps.headlessRunner.adopt?.(record.id) : undefined;
      if (adopted) {
        this.attach(record, adopted);
        deps.logger.info(`[AgentManager] adopted ${record.id}, still running from an earlier window`);
      } else if (isActive(record.status)) {
        changed = true;
        this.records.set(record.id, { ...record, status: 'interrupted', endedAt: record.endedAt ?? deps.clock.now() });
      }
    }
    if (changed) {
      this.persist();
    }
  }

  /** Starts watching every restored agent and recomputes their change sets in the background. */
  resume(): void {
    for (const record of this.records.values()) {
      if (record.worktreePresent !== false) {
        this.tracker.track(record.id, record);
        void this.tracker.refresh(record.id);
      }
    }
  }

  list(): AgentRecord[] {
    return [...this.records.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  get(id: string): AgentRecord {
    const record = this.records.get(id);
    if (!record) {
      throw new AgentError('unknownAgent', `There is no agent with id "${id}".`);
    }
    return record;
  }

  async dispatch(options: DispatchOptions): Promise<AgentRecord> {
    const prompt = options.prompt;
    checkPrompt(prompt, 'task');
    const settings = this.deps.settings();
    checkSettings(settings);
    // Everything that can fail cheaply is checked before anything is created.
    const executable = await resolveProfile(this.deps.profiles(), options.profile, this.deps.resolver);
    const profile = executable.profile;
    const repoRoot = await this.deps.git.repoRoot(options.folder);
    const baseSha = options.base ? await this.deps.git.resolveCommit(repoRoot, options.base) : await this.deps.git.headSha(repoRoot);
    const isolation = options.isolation ?? 'worktree';
    if (isolation === 'worktree') {
      checkWorktreeRoot(settings, repoRoot);
    }
    const title = options.title?.trim() || titleFromPrompt(prompt);
    const id = this.deps.newId();
    const reserved = isolation === 'worktree' ? await this.names.reserve(repoRoot, slugify(title), settings) : undefined;
    const place = reserved ? { cwd: reserved.worktreePath, ...reserved } : { cwd: options.folder, branch: undefined, worktreePath: undefined };
    const record: AgentRecord = {
      id, title, prompt, profile: profile.name, mode: isolation === 'terminal' ? 'terminal' : profile.mode, isolation,
      status: 'preparing', repoRoot, cwd: place.cwd, branch: place.branch, worktreePath: place.worktreePath, baseSha,
      createdAt: this.deps.clock.now(), logPath: joinPath(settings.logDir, `${id}.log`), changedFiles: [], plan: options.plan,
    };
    this.records.set(id, record);
    this.changed(id, 'added');
    try {
      if (place.worktreePath && place.branch) {
        const root = parentDir(place.worktreePath);
        await this.deps.fs.mkdirp(root).catch((e: unknown) => {
          throw new AgentError('worktreeFailed', `The folder for worktrees, ${root}, cannot be created — check parallelAgents.worktreeRoot.`, e instanceof Error ? e.message : String(e));
        });
        await this.deps.git.addWorktree(repoRoot, place.worktreePath, place.branch, baseSha);
      }
    } catch (e) {
      this.records.delete(id);
      this.changed(id, 'removed');
      throw e;
    } finally {
      reserved?.release();
    }
    const start = () => this.launch(this.get(id), executable, profile.args, prompt);
    if (place.worktreePath) {
      await this.prepareThenStart(record, settings, start);
    } else {
      start();
    }
    this.tracker.track(id, record);
    if (isolation === 'terminal') {
      // A new worktree starts at its base with no changes; the workspace may already have some.
      void this.tracker.refresh(id);
    }
    return this.get(id);
  }

  /** A new prompt for a finished agent: a new run in the same folder, with the profile's continueArgs. */
  async followUp(id: string, prompt: string): Promise<void> {
    const record = this.get(id);
    checkPrompt(prompt, 'follow-up');
    if (this.running.has(id) || isActive(record.status)) {
      throw new AgentError('invalidTransition', `Agent "${record.title}" is still running — wait for it to finish or stop it first.`);
    }
    assertTransition(record.status, 'running');
    const executable = await resolveProfile(this.deps.profiles(), record.profile, this.deps.resolver);
    const profile = executable.profile;
    this.records.set(id, { ...record, followUps: [...(record.followUps ?? []), prompt], exitCode: undefined, signal: undefined, error: undefined, endedAt: undefined });
    this.launch(this.get(id), executable, profile.continueArgs ?? profile.args, prompt, `\n──── follow-up: ${prompt}`);
  }

  async stop(id: string): Promise<void> {
    const record = this.get(id);
    const entry = this.running.get(id);
    if (!entry) {
      throw new AgentError('invalidTransition', `Agent "${record.title}" is not running (${record.status}).`);
    }
    entry.stopRequested = true;
    await entry.process.stop();
    await entry.ended;
  }

  /** Uncommitted files and commits the agent has made; used to protect work before discarding. */
  workState(id: string): Promise<WorkState> {
    const record = this.get(id);
    return this.deps.git.workState(record.cwd, record.baseSha);
  }

  /** Records a status change decided elsewhere (landing, discard, restore); the state machine still rules. */
  transition(id: string, status: AgentRecord['status'], patch: Partial<AgentRecord> = {}): void {
    this.update(id, { ...patch, status });
  }

  /** Updates fields that are not a status change (e.g. worktreePresent after a removal). */
  annotate(id: string, patch: Omit<Partial<AgentRecord>, 'status'>): void {
    this.update(id, patch);
  }

  /** Stops or resumes watching an agent's folder, for when its worktree is removed or restored. */
  setTracked(id: string, tracked: boolean): void {
    if (tracked) {
      this.tracker.track(id, this.get(id));
      void this.tracker.refresh(id);
    } else {
      this.tracker.untrack(id);
    }
  }

  /** Drops an agent from the list (clean-up). Its saved work ref, if any, stays in the repository. */
  forget(id: string): void {
    if (this.running.has(id)) {
      throw new AgentError('invalidTransition', `Agent "${this.get(id).title}" is still running.`);
    }
    this.tracker.untrack(id);
    this.deps.headlessRunner.forget?.(id);
    this.records.delete(id);
    this.changed(id, 'removed');
  }

  /** Resolves with the agent once its current run has ended (at once when it is not running). */
  async whenEnded(id: string): Promise<AgentRecord> {
    await this.running.get(id)?.ended;
    return this.get(id);
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  refreshChanges(id: string): Promise<void> {
    return this.tracker.refresh(id);
  }

  /** Resolves when every state change so far has been written. */
  flush(): Promise<void> {
    return this.saves.run(async () => undefined);
  }

  /** Ends every agent process this manager started: a window that closes leaves no agent running unseen. */
  dispose(): void {
    // The saved state still says "running": the next window adopts supervised runs and shows the
    // others as interrupted. A runner that cannot leave its agent running stops it.
    this.disposed = true;
    for (const entry of this.running.values()) {
      if (entry.process.detach) {
        entry.process.detach();
      } else {
        void entry.process.stop();
      }
    }
    this.running.clear();
    this.tracker.dispose();
    this.changeEmitter.dispose();
    this.outputEmitter.dispose();
  }

  /**
   * Copies and links files into a new worktree, then runs the setup command, if any, and `start`
   * once it succeeds. A failure fails the agent before it starts; the worktree stays for inspection.
   */
  private async prepareThenStart(record: AgentRecord, settings: ManagerSettings, start: () => void): Promise<void> {
    try {
      const lines = await this.prep.files(record.repoRoot, record.cwd, settings.symlinkFolders ?? []);
      if (lines.length > 0) {
        await this.appendLog(record, ['──── preparing the worktree', ...lines].join('\n'));
      }
    } catch (e) {
      this.update(record.id, { status: 'failed', error: `Preparing the worktree failed: ${(e as Error).message}`, endedAt: this.deps.clock.now() });
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

  /** The setup run counts as the agent's run: stop() ends it and whenEnded() waits through it and the agent. */
  private runSetup(record: AgentRecord, argv: readonly string[], start: () => void): void {
    const request = setupRequest(record, argv);
    let process: AgentProcess;
    try {
      process = this.deps.headlessRunner.start(request);
    } catch (e) {
      this.update(record.id, { status: 'failed', error: setupFailure(argv, { error: (e as Error).message }, ''), endedAt: this.deps.clock.now() });
      return;
    }
    const entry: Running = { process, stopRequested: false, ended: Promise.resolve() };
    this.running.set(record.id, entry);
    let output = '';
    this.outputEmitter.fire({ id: record.id, text: `${request.banner ?? ''}\n` });
    process.onDidOutput((text) => {
      output = (output + text).slice(-4096);
      this.outputEmitter.fire({ id: record.id, text });
    });
    entry.ended = process.exit.then(async (exit) => {
      this.running.delete(record.id);
      if (this.disposed || !this.records.has(record.id)) {
        return;
      }
      if (entry.stopRequested) {
        this.update(record.id, { status: 'stopped', endedAt: this.deps.clock.now() });
      } else if (exit.exitCode === 0 && exit.error === undefined) {
        start();
        await this.running.get(record.id)?.ended;
      } else {
        this.deps.logger.warn(`[AgentManager] ${record.id}: setup command failed (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`);
        this.update(record.id, { status: 'failed', error: setupFailure(argv, exit, output), endedAt: this.deps.clock.now() });
      }
    });
  }

  /** A log that cannot be written must not fail the agent: its output still reaches the output view. */
  private async appendLog(record: AgentRecord, text: string): Promise<void> {
    this.outputEmitter.fire({ id: record.id, text: `${text}\n` });
    if (record.logPath) {
      await this.deps.fs.appendText(record.logPath, `${text}\n`).catch((e: Error) => this.deps.logger.warn(`[AgentManager] writing ${record.logPath}: ${e.message}`));
    }
  }

  private launch(record: AgentRecord, executable: ResolvedProfile, argTemplate: readonly string[], prompt: string, banner?: string): void {
    const profile = executable.profile;
    const runner = record.mode === 'terminal' ? this.deps.terminalRunner : this.deps.headlessRunner;
    let process: AgentProcess;
    try {
      process = runner.start({
        agentId: record.id, title: record.title, file: executable.file,
        args: [...executable.prefixArgs, ...expandArgs(argTemplate, prompt)],
        cwd: record.cwd, env: { ...executable.env, ...profile.env }, logPath: record.logPath ?? '', banner,
      });
      if (banner) {
        this.outputEmitter.fire({ id: record.id, text: `${banner}\n` });
      }
    } catch (e) {
      // Through "running", the one status every start (first run or follow-up) may pass to "failed".
      this.update(record.id, { status: 'running', startedAt: this.deps.clock.now() });
      this.update(record.id, { status: 'failed', error: (e as Error).message, endedAt: this.deps.clock.now() });
      return;
    }
    this.update(record.id, { status: 'running', startedAt: this.deps.clock.now() });
    this.deps.logger.info(`[AgentManager] started ${record.id} (${profile.name}, pid ${process.pid ?? '?'}) in ${record.cwd}`);
    this.attach(this.get(record.id), process);
  }

  /** Follows a running agent process (just started, or adopted from an earlier window) to its end. */
  private attach(record: AgentRecord, process: AgentProcess): void {
    const entry: Running = { process, stopRequested: false, ended: Promise.resolve() };
    this.running.set(record.id, entry);
    process.onDidOutput((text) => this.outputEmitter.fire({ id: record.id, text }));
    const limit = this.deps.settings().agentTimeoutMs ?? 0;
    const left = limit - (this.deps.clock.now() - (record.startedAt ?? this.deps.clock.now()));
    const timer = limit > 0 ? setTimeout(() => {
      entry.timedOut = true;
      this.deps.logger.warn(`[AgentManager] ${record.id} ran longer than ${Math.round(limit / 60000)} min: stopping it`);
      void process.stop();
    }, Math.max(left, 0)) : undefined;
    entry.ended = process.exit.then(async (exit) => {
      clearTimeout(timer);
      const status = entry.timedOut ? 'timed-out' : entry.stopRequested || exit.stopRequested ? 'stopped' : exit.exitCode === 0 && !exit.error ? 'succeeded' : 'failed';
      const endedAt = this.deps.clock.now();
      this.deps.logger.info(`[AgentManager] ${record.id} ended: ${status} (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`);
      // The final change set is published first, so whoever reacts to the end sees the agent's last files.
      await this.tracker.refresh(record.id);
      this.running.delete(record.id);
      if (!this.disposed && this.records.has(record.id)) {
        this.update(record.id, { status, exitCode: exit.exitCode, signal: exit.signal, error: exit.error, endedAt });
      }
    });
  }

  private publishChanges(id: string, files: ChangedFile[]): void {
    const record = this.records.get(id);
    if (record && !sameChangeSet(record.changedFiles, files)) {
      this.records.set(id, { ...record, changedFiles: files });
      this.changed(id, 'updated');
    }
  }

  private update(id: string, patch: Partial<AgentRecord>): void {
    const record = this.records.get(id);
    if (!record) {
      return;
    }
    if (patch.status && patch.status !== record.status) {
      assertTransition(record.status, patch.status);
    }
    this.records.set(id, { ...record, ...patch });
    this.changed(id, 'updated');
  }

  private changed(id: string, kind: AgentChange['kind']): void {
    this.persist();
    this.changeEmitter.fire({ id, kind });
  }

  private persist(): void {
    const snapshot = this.list();
    void this.saves.run(() => this.deps.store.save(snapshot)).catch((e: Error) => this.deps.logger.error(`[AgentManager] saving state failed: ${e.message}`));
  }
}
