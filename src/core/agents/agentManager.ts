import { type AgentRecord, type ChangedFile, type Isolation, isActive } from '../agent';
import { AgentRuns } from './agentRuns';
import { assertTransition } from './agentStateMachine';
import { ChangeTracker } from './changeTracker';
import { sameChangeSet } from '../landing';
import { checkPrompt, checkSettings, checkWorktreeRoot, resolveProfile } from './dispatchChecks';
import { AgentError, isDiskFull } from '../errors';
import { slugify, titleFromPrompt } from '../naming';
import { WorktreeNames } from './worktreeNames';
import { setupRunId } from './worktreePrep';
import type {
  AgentRunner,
  Clock,
  ExecutableResolver,
  FileSystemPort,
  FolderWatcher,
  Logger,
  ManagerSettings,
  StateStore,
} from '../ports';
import type { ChangeGit, RefGit, WorkState, WorktreeGit, WorktreeSetupGit } from '../git';
import type { Profile } from '../clis';
import { CoalescedSave } from '../../util/async';
import { type Disposable, Emitter } from '../../util/event';
import { joinPath, parentDir } from '../../util/paths';

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
  /** Runs the agent in an integrated terminal whatever its profile's mode (a plan task's `isolation: "terminal"`). */
  readonly inTerminal?: boolean;
}

export interface AgentChange {
  readonly id: string;
  readonly kind: 'added' | 'updated' | 'removed';
}

export interface AgentManagerDeps {
  readonly git: WorktreeGit & RefGit & ChangeGit;
  readonly fs: FileSystemPort;
  /** Which ignored files of the main worktree a new worktree gets (.worktreeinclude, symlinkFolders). */
  readonly worktreeSource: WorktreeSetupGit;
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

/**
 * Owns every agent: records, dispatch, follow-ups, change sets, persistence; AgentRuns follows
 * their processes. Knows nothing of VS Code.
 */
export class AgentManager implements Disposable {
  private readonly records = new Map<string, AgentRecord>();
  private readonly runs: AgentRuns;
  private readonly saves: CoalescedSave;
  private readonly tracker: ChangeTracker;
  /** Shared with plan runs, whose integration worktrees are named the same way. */
  readonly names: WorktreeNames;
  private readonly changeEmitter = new Emitter<AgentChange>();
  private readonly outputEmitter = new Emitter<{ id: string; text: string }>();

  readonly onDidChangeAgent = this.changeEmitter.event;
  readonly onDidOutput = this.outputEmitter.event;

  constructor(private readonly deps: AgentManagerDeps) {
    this.saves = new CoalescedSave(
      () => deps.store.save(this.list()),
      (e) => deps.logger.error(`[AgentManager] saving state failed: ${e.message}`),
    );
    this.names = new WorktreeNames(deps.git, deps.fs);
    this.tracker = new ChangeTracker(
      deps.watcher,
      (folder) => deps.git.changeSet(folder.cwd, folder.baseSha),
      (id, files) => this.publishChanges(id, files),
      deps.logger,
    );
    this.runs = new AgentRuns(deps, {
      update: (id, patch) => this.update(id, patch),
      get: (id) => this.get(id),
      has: (id) => this.records.has(id),
      output: (id, text) => this.outputEmitter.fire({ id, text }),
      refreshChanges: (id) => this.tracker.refresh(id),
    });
    let changed = false;
    for (const saved of deps.store.load()) {
      // A headless run outlives its window under a supervisor: adopt it. The window may have closed
      // between its launch and the save that said so: a 'preparing' agent whose supervisor exists
      // is running. Anything else that was active has no process any more: say so instead of
      // pretending it runs.
      const launched =
        saved.status === 'preparing' && saved.mode === 'headless'
          ? { ...saved, status: 'running' as const, startedAt: saved.startedAt ?? saved.createdAt }
          : undefined;
      const record = launched ?? saved;
      this.records.set(record.id, record);
      if (this.runs.adopt(record)) {
        changed ||= launched !== undefined;
      } else if (isActive(saved.status)) {
        changed = true;
        this.records.set(record.id, { ...saved, status: 'interrupted', endedAt: saved.endedAt ?? deps.clock.now() });
      }
    }
    if (changed) {
      this.persist();
    }
  }

  /** Starts watching every restored agent and recomputes their change sets in the background. */
  resume(): void {
    for (const record of this.records.values()) {
      if (record.worktreePresent !== false && !record.worktreeMissing) {
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
      throw new AgentError('noSuchAgent', { id });
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
    const baseSha = options.base
      ? await this.deps.git.resolveCommit(repoRoot, options.base)
      : await this.deps.git.headSha(repoRoot);
    const isolation = options.isolation ?? 'worktree';
    if (isolation === 'worktree') {
      checkWorktreeRoot(settings, repoRoot);
    }
    const title = options.title?.trim() || titleFromPrompt(prompt);
    const id = this.deps.newId();
    const reserved =
      isolation === 'worktree' ? await this.names.reserve(repoRoot, slugify(title), settings) : undefined;
    const place = reserved
      ? { cwd: reserved.worktreePath, ...reserved }
      : { cwd: options.folder, branch: undefined, worktreePath: undefined };
    const record: AgentRecord = {
      id,
      title,
      prompt,
      profile: profile.name,
      mode: isolation === 'terminal' || options.inTerminal ? 'terminal' : profile.mode,
      isolation,
      status: 'preparing',
      repoRoot,
      cwd: place.cwd,
      branch: place.branch,
      worktreePath: place.worktreePath,
      baseSha,
      createdAt: this.deps.clock.now(),
      logPath: joinPath(settings.logDir, `${id}.log`),
      changedFiles: [],
      plan: options.plan,
    };
    this.records.set(id, record);
    this.changed(id, 'added');
    try {
      if (place.worktreePath && place.branch) {
        const root = parentDir(place.worktreePath);
        await this.deps.fs.mkdirp(root).catch((e: unknown) => {
          const why = e instanceof Error ? e.message : String(e);
          if (isDiskFull(why)) {
            throw new AgentError('worktreeRootDiskFull', { path: root }, why);
          }
          throw new AgentError('worktreeRootNotCreated', { path: root }, why);
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
    const start = () => this.runs.launch(this.get(id), executable, profile.args, prompt);
    if (place.worktreePath) {
      await this.runs.prepareThenStart(record, settings, start);
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
    if (this.runs.isRunning(id) || isActive(record.status)) {
      throw new AgentError('agentStillRunning', { title: record.title });
    }
    assertTransition(record.status, 'running');
    const executable = await resolveProfile(this.deps.profiles(), record.profile, this.deps.resolver);
    const profile = executable.profile;
    this.records.set(id, {
      ...record,
      followUps: [...(record.followUps ?? []), prompt],
      exitCode: undefined,
      signal: undefined,
      error: undefined,
      errorReason: undefined,
      endedAt: undefined,
    });
    this.runs.launch(
      this.get(id),
      executable,
      profile.continueArgs ?? profile.args,
      prompt,
      `\n──── follow-up: ${prompt}`,
    );
  }

  /** Starts a detached terminal agent's profile again, with its prompt, in a new terminal in its folder. */
  async reopenTerminal(id: string): Promise<void> {
    const record = this.get(id);
    if (record.status !== 'detached' || record.mode !== 'terminal' || this.runs.isRunning(id)) {
      throw new AgentError('notDetached', { title: record.title, status: record.status });
    }
    if (record.worktreePresent === false || record.worktreeMissing) {
      throw new AgentError('worktreeMissing', { title: record.title });
    }
    const executable = await resolveProfile(this.deps.profiles(), record.profile, this.deps.resolver);
    this.records.set(id, { ...record, exitCode: undefined, signal: undefined, error: undefined, endedAt: undefined });
    this.runs.launch(this.get(id), executable, executable.profile.args, record.prompt, '\n──── reopened in a terminal');
  }

  async stop(id: string): Promise<void> {
    const record = this.get(id);
    if (!this.runs.isRunning(id)) {
      throw new AgentError('agentNotRunning', { title: record.title, status: record.status });
    }
    await this.runs.stop(id);
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
    if (this.runs.isRunning(id)) {
      throw new AgentError('agentStillRunning', { title: this.get(id).title });
    }
    this.tracker.untrack(id);
    this.deps.headlessRunner.forget?.(id);
    this.deps.headlessRunner.forget?.(setupRunId(id));
    this.records.delete(id);
    this.changed(id, 'removed');
  }

  /** Adds a record made elsewhere (an orphaned worktree adopted by Reconcile Agents) and watches its folder. */
  register(record: AgentRecord): void {
    if (this.records.has(record.id)) {
      throw new AgentError('duplicateAgentId', { id: record.id });
    }
    this.records.set(record.id, record);
    this.changed(record.id, 'added');
    if (record.worktreePresent !== false) {
      this.setTracked(record.id, true);
    }
  }

  /** Resolves with the agent once its current run has ended (at once when it is not running). */
  async whenEnded(id: string): Promise<AgentRecord> {
    await this.runs.ended(id);
    return this.get(id);
  }

  isRunning(id: string): boolean {
    return this.runs.isRunning(id);
  }

  refreshChanges(id: string): Promise<void> {
    return this.tracker.refresh(id);
  }

  /** Resolves when every state change so far has been written. */
  flush(): Promise<void> {
    return this.saves.flush();
  }

  /** Ends every agent process this manager started: a window that closes leaves no agent running unseen. */
  dispose(): void {
    // The saved state still says "running": the next window adopts supervised runs and shows the
    // others as interrupted. A runner that cannot leave its agent running stops it.
    this.runs.dispose();
    this.tracker.dispose();
    this.changeEmitter.dispose();
    this.outputEmitter.dispose();
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
    this.saves.request();
  }
}
