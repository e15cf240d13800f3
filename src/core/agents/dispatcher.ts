/**
 * Dispatch: checks everything that can fail cheaply before anything is created, reserves the agent's
 * ports, branch and worktree name, writes its record, has its worktree made (warm from the pool when it
 * can) and starts its run.
 */
import type { AgentRecord } from '../agent';
import type { AgentRuns } from './agentRuns';
import type { AgentRecords } from './agentRecords';
import type { ChangeTracker } from './changeTracker';
import type { AgentQueue } from './agentQueue';
import {
  type ResolvedProfile,
  checkPrompt,
  checkPromptRoute,
  checkSettings,
  checkWorktreeRoot,
  resolveProfile,
} from './dispatchChecks';
import { slugify, titleFromPrompt } from '../naming';
import type { WorktreeNames } from '../worktrees';
import { locateStart, makeWorktree } from './dispatchStart';
import { snapshotOf, stackParent } from './stacking';
import { AgentError } from '../errors';
import { runArgs, sandboxFor } from './sandboxing';
import type { AgentManagerDeps, DispatchOptions } from './managerDeps';
import { joinPath } from '../../util/paths';
import { providerOf } from '../clis';
import { agentBudget, checkBudgetLeft, planOverBudget } from './budgets';

export class Dispatcher {
  constructor(
    private readonly deps: AgentManagerDeps,
    private readonly records: AgentRecords,
    private readonly runs: AgentRuns,
    private readonly names: WorktreeNames,
    private readonly tracker: ChangeTracker,
    private readonly queue: AgentQueue,
  ) {}

  async dispatch(options: DispatchOptions): Promise<AgentRecord> {
    const prompt = options.prompt;
    checkPrompt(prompt, 'task');
    const settings = this.deps.settings();
    checkSettings(settings);
    // Everything that can fail cheaply is checked before anything is created.
    const executable = await resolveProfile(this.deps.profiles(), options.profile, this.deps.resolver);
    const profile = executable.profile;
    const isolation = options.isolation ?? 'worktree';
    const mode = isolation === 'terminal' || options.inTerminal ? 'terminal' : profile.mode;
    checkPromptRoute(profile, mode);
    const sandbox = await sandboxFor(this.deps.sandbox, profile, options, isolation);
    const title = options.title?.trim() || titleFromPrompt(prompt);
    // A bad budget (0, negative, not a number) anywhere it is set, or a plan with nothing left: nothing is made.
    const budgetUsd = agentBudget(options.budgetUsd, profile, settings.defaultBudgetUsd);
    checkBudgetLeft(title, planOverBudget(this.records.list(), options));
    // On top of another agent's work (options.stackOn): see stacking.ts.
    const parent = options.stackOn !== undefined ? stackParent(this.records, options.stackOn) : undefined;
    if (parent && isolation !== 'worktree') {
      throw new AgentError('startNeedsWorktree', {});
    }
    // An existing branch or a pull request (options.start): see dispatchStart.ts.
    const folder = parent?.repoRoot ?? options.folder;
    const startPoint = await locateStart(this.deps.git, { ...options, folder }, isolation, settings.branchPrefix);
    const located = startPoint.located;
    const { repoRoot } = located;
    if (isolation === 'worktree') {
      checkWorktreeRoot(settings, repoRoot);
    }
    const provider = providerOf(profile);
    const id = this.deps.newId();
    const snapshotAt = this.deps.clock.now();
    const baseSha = parent ? await snapshotOf(this.deps.git, parent, id) : located.sha;
    const worktreeEnv = await this.runs.envs.reserve(id, repoRoot, settings);
    const draft: AgentRecord = {
      id,
      title,
      prompt,
      profile: profile.name,
      provider,
      mode,
      isolation,
      status: 'preparing',
      repoRoot,
      cwd: folder,
      // On an existing branch (never deleted by a discard or clean-up), kept on the record while it waits.
      ...(startPoint.existingBranch ? { branch: startPoint.existingBranch, branchExisted: true } : {}),
      ...(parent ? { stackedOn: { id: parent.id, title: parent.title, at: snapshotAt } } : {}),
      baseSha,
      createdAt: this.deps.clock.now(),
      logPath: joinPath(settings.logDirOf?.(repoRoot) ?? settings.logDir, `${id}.log`),
      changedFiles: [],
      plan: options.plan,
      ...(options.bestOf ? { bestOf: options.bestOf } : {}),
      worktreeEnv,
      ...(sandbox ? { sandbox } : {}),
      ...(budgetUsd !== undefined ? { budgetUsd } : {}),
    };
    // Beyond parallelAgents.maxConcurrentAgents it waits, nothing created, at the base resolved now.
    if (!this.queue.admit(id, repoRoot, provider)) {
      return this.queue.enqueue(draft);
    }
    const begin = () => this.begin(draft, executable, located.branches, startPoint.slug);
    return this.queue.admitted(id, begin);
  }

  /** Starts a queued agent that this window claimed (status preparing): the same path as a dispatch. */
  async startQueued(record: AgentRecord): Promise<void> {
    try {
      const executable = await resolveProfile(this.deps.profiles(), record.profile, this.deps.resolver);
      checkPromptRoute(executable.profile, record.mode);
      // Its base was resolved when it was queued and may be gone since (reset, then pruned): say that
      // (unknownCommit) rather than that the worktree could not be added.
      await this.deps.git.resolveCommit(record.repoRoot, record.baseSha);
      await this.begin(record, executable);
    } catch (e) {
      if (this.records.has(record.id) && this.records.get(record.id).status === 'preparing') {
        const error = (e as Error).message;
        this.records.update(record.id, { status: 'failed', error, endedAt: this.deps.clock.now() });
      }
    }
  }

  /**
   * Names and makes the agent's worktree, then starts its run. A new dispatch's record is added
   * here and removed when its worktree cannot be made (the error goes to the dispatcher); a queued
   * one's record exists already.
   */
  private async begin(
    draft: AgentRecord,
    executable: ResolvedProfile,
    branches?: ReadonlySet<string>,
    slug?: string,
  ): Promise<AgentRecord> {
    const { id, repoRoot, isolation, prompt, baseSha } = draft;
    const profile = executable.profile;
    const settings = this.deps.settings();
    const queued = this.records.has(id);
    const existingBranch = draft.branchExisted ? draft.branch : undefined;
    const reserved =
      isolation === 'worktree'
        ? await this.names
            .reserve(repoRoot, slug ?? slugify(existingBranch ?? draft.title), settings, branches)
            .catch(this.runs.envs.undo(id))
        : undefined;
    const place = reserved
      ? { cwd: reserved.worktreePath, branch: existingBranch ?? reserved.branch, worktreePath: reserved.worktreePath }
      : {};
    // A queued record said it had no folder of its own yet (worktreePresent false): now it has one.
    const record: AgentRecord = queued ? { ...draft, ...place, worktreePresent: undefined } : { ...draft, ...place };
    if (queued) {
      this.records.update(id, { ...place, worktreePresent: undefined });
    } else {
      this.records.add(record);
    }
    // Its supervisor boots while the files are checked out, unless a setup command runs in between.
    const early = record.mode !== 'terminal' && !settings.setupCommand?.length ? record.worktreePath : undefined;
    const onCheckout = early ? () => this.prepareRun(id, early) : undefined;
    let warm = false;
    try {
      // Variables of its own (worktreeEnv) go into its env file and setup command: no warm worktree then.
      const pool = draft.worktreeEnv ? undefined : this.deps.pool;
      const start = { baseSha, existingBranch, onCheckout };
      warm = !!reserved && (await makeWorktree(this.deps.fs, this.deps.git, repoRoot, reserved, start, pool));
    } catch (e) {
      this.deps.headlessRunner.release?.(id);
      if (queued) {
        // Its failure is shown on its row (startQueued): with no worktree, it names none.
        const branch = existingBranch;
        this.records.update(id, { cwd: draft.cwd, branch, worktreePath: undefined, worktreePresent: false });
      } else {
        this.records.delete(id);
      }
      throw e;
    } finally {
      reserved?.release();
    }
    const start = () => this.runs.launch(this.records.get(id), executable, runArgs(profile, record, 'first'), prompt);
    try {
      if (record.worktreePath && !warm) {
        await this.runs.prepareThenStart(record, settings, start);
      } else {
        start();
      }
    } finally {
      // Not taken by start (it failed, or never came): it ends.
      this.deps.headlessRunner.release?.(id);
    }
    this.tracker.track(id, record);
    if (isolation === 'terminal') {
      // A new worktree starts at its base with no changes; the workspace may already have some.
      void this.tracker.refresh(id);
    }
    return this.records.get(id);
  }

  private prepareRun(id: string, worktreePath: string): void {
    try {
      this.deps.headlessRunner.prepare?.(id, worktreePath);
    } catch (e) {
      // start() spawns its supervisor itself then.
      this.deps.logger.warn(`[Dispatch] could not ready the run of ${id} ahead: ${(e as Error).message}`);
    }
  }
}
