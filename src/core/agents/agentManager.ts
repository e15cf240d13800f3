import { type AgentRecord, isActive } from '../agent';
import { AgentRuns } from './agentRuns';
import { Adoptions } from './adoptions';
import { AgentRecords } from './agentRecords';
import { assertTransition } from './agentStateMachine';
import type { ChangeTracker } from './changeTracker';
import { changeTrackerFor } from './changeTrackerFor';
import { ReviewMarks } from './reviewMarks';
import { CheckRuns } from './checkRuns';
import { checkPrompt, resolveProfile } from './dispatchChecks';
import { Dispatcher } from './dispatcher';
import { rebaseOnParent } from './stacking';
import { runArgs } from './sandboxing';
import { lastRunCleared } from './runHistory';
import { type BestOfOptions, dispatchBestOf } from './bestOf';
import { AgentQueue } from './agentQueue';
import { QuotaResumer } from './quotaResumer';
import { agentOverBudget, checkBudgetLeft, planOverBudget } from './budgets';
import { queuePosition } from './queueOrder';
import { AgentError } from '../errors';
import { providerOf } from '../clis';
import { WorktreeNames } from '../worktrees';
import type { WorkState } from '../git';
import type { AgentManagerDeps, DispatchOptions } from './managerDeps';
import type { Disposable } from '../../util/event';

export type { AgentManagerDeps, DispatchOptions } from './managerDeps';

/**
 * Owns every agent: dispatch, follow-ups, stop, forget. Records: AgentRecords; runs: AgentRuns, which
 * writes what each Run reports into the records; records from elsewhere: Adoptions. No VS Code.
 */
export class AgentManager implements Disposable {
  private readonly records: AgentRecords;
  private readonly runs: AgentRuns;
  private readonly tracker: ChangeTracker;
  private readonly marks: ReviewMarks;
  /** Each agent's check command: start() runs it (Run Check), verdict() weighs it against the folder now. */
  readonly checks: CheckRuns;
  private readonly dispatcher: Dispatcher;
  private readonly queue: AgentQueue;
  private readonly resumer: QuotaResumer;
  /** Shared with plan runs, whose integration worktrees are named the same way. */
  readonly names: WorktreeNames;
  private readonly elsewhere: Disposable | undefined;

  readonly onDidChangeAgent: AgentRecords['onDidChange'];
  readonly onDidOutput: AgentRuns['onDidOutput'];
  /** An agent's run followed in this window ended (its end is in the record). */
  readonly onDidEndRun: AgentRuns['onDidEnd'];
  constructor(private readonly deps: AgentManagerDeps) {
    const records = (this.records = new AgentRecords(deps.store, deps.logger));
    this.names = new WorktreeNames(deps.git, deps.fs);
    const marks = (this.marks = new ReviewMarks(deps.git, records, deps.logger));
    this.tracker = changeTrackerFor(deps, (id, files) => marks.publish(id, files));
    this.runs = new AgentRuns(deps, records, this.tracker);
    const checks = (this.checks = new CheckRuns(deps, records));
    this.runs.onDidEnd((id) => checks.afterAgentEnd(id));
    this.onDidChangeAgent = records.onDidChange;
    this.onDidOutput = this.runs.onDidOutput;
    this.onDidEndRun = this.runs.onDidEnd;
    const runsHere = (id: string) => this.runs.isRunning(id);
    const startQueued = (record: AgentRecord) => this.dispatcher.startQueued(record);
    this.queue = new AgentQueue(deps, records, runsHere, startQueued, (id) => this.resumer.resumeNow(id));
    this.dispatcher = new Dispatcher(deps, records, this.runs, this.names, this.tracker, this.queue);
    this.resumer = new QuotaResumer(deps, records, runsHere, (id, p) => this.followUp(id, p), this.queue);
    const adoptions = new Adoptions(deps, records, this.runs, this.tracker);
    adoptions.restore(deps.store.load());
    this.elsewhere = deps.store.onDidChangeElsewhere?.((e) => adoptions.takeElsewhere(e.changed, e.removed));
  }

  /**
   * Starts watching every restored agent and recomputes their change sets in the background; the
   * queue goes on (agents queued before the reload start once there is room), paused agents resume on time.
   */
  resume(): void {
    for (const record of this.records.list()) {
      // A queued agent has no folder of its own yet.
      if (record.worktreePresent !== false && !record.worktreeMissing && record.status !== 'queued') {
        this.tracker.track(record.id, record);
        void this.tracker.refresh(record.id);
      }
    }
    this.queue.pump();
    this.resumer.scan();
  }

  /** Starts the queued agents there is room for now (parallelAgents.maxConcurrentAgents was raised). */
  continueQueue = (): void => this.queue.pump();
  /** 1 for the queued agent that starts next in its repository; undefined when the agent is not queued. */
  queuePosition(id: string): number | undefined {
    return this.records.has(id) ? queuePosition(this.records.list(), id) : undefined;
  }

  list(): AgentRecord[] {
    return this.records.list();
  }

  get(id: string): AgentRecord {
    return this.records.get(id);
  }

  /** Dispatches (see Dispatcher); beyond parallelAgents.maxConcurrentAgents it is returned `queued` (AgentQueue). */
  dispatch(options: DispatchOptions): Promise<AgentRecord> {
    return this.dispatcher.dispatch(options);
  }

  /** Dispatch Best of N: one candidate per profile of `options.profiles`, checked before any is created (bestOf.ts). */
  dispatchBestOf(options: BestOfOptions): Promise<AgentRecord[]> {
    return dispatchBestOf(this.deps, (o) => this.dispatcher.dispatch(o), options);
  }

  /**
   * A new prompt for a finished agent: a new run in the same folder, with the profile's continueArgs; with
   * another `profile` (Continue with Another Agent), its first-run args, and it is the agent's from then on.
   */
  async followUp(id: string, prompt: string, profile?: string): Promise<void> {
    const record = this.get(id);
    checkPrompt(prompt, 'follow-up');
    if (this.runs.isRunning(id) || isActive(record.status)) {
      throw new AgentError('agentStillRunning', { title: record.title });
    }
    assertTransition(record.status, 'running');
    checkBudgetLeft(record.title, agentOverBudget(record) ?? planOverBudget(this.records.list(), record));
    const handOver = profile !== undefined && profile !== record.profile;
    const executable = await resolveProfile(this.deps.profiles(), profile ?? record.profile, this.deps.resolver);
    const next = executable.profile;
    this.records.put({
      ...record,
      ...(handOver ? { profile: next.name, provider: providerOf(next) } : {}),
      followUps: [...(record.followUps ?? []), prompt],
      ...lastRunCleared,
    });
    const args = runArgs(next, record, handOver ? 'first' : 'continue');
    const banner = handOver ? `\n──── continued by ${next.name}: ${prompt}` : `\n──── follow-up: ${prompt}`;
    this.runs.launch(this.get(id), executable, args, prompt, banner);
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
    this.records.put({ ...record, exitCode: undefined, signal: undefined, error: undefined, endedAt: undefined });
    const args = runArgs(executable.profile, record, 'first');
    this.runs.launch(this.get(id), executable, args, record.prompt, '\n──── reopened in a terminal');
  }

  /** Ends the agent's run; a queued agent is cancelled (nothing of it was created), a paused one no longer resumes. */
  async stop(id: string): Promise<void> {
    const record = this.get(id);
    if (record.status === 'paused' && !this.runs.isRunning(id)) {
      return this.records.update(id, { status: 'stopped', endedAt: this.deps.clock.now() });
    }
    if (await this.queue.cancel(id)) {
      return;
    }
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
    this.records.update(id, { ...patch, status });
  }

  /** Updates fields that are not a status change (worktreePresent after a removal, say). */
  annotate(id: string, patch: Omit<Partial<AgentRecord>, 'status'>): void {
    this.records.update(id, patch);
  }

  /** Marks changed files of an agent viewed or not viewed; a file the agent changes again is unviewed. */
  markViewed(id: string, paths: readonly string[], viewed: boolean): Promise<void> {
    return this.marks.mark(id, paths, viewed);
  }

  /** Rebase on Parent: a stacked agent's work moved onto its parent's worktree as it is now (stacking.ts). */
  async rebaseOnParent(id: string): Promise<void> {
    if (this.runs.isRunning(id)) {
      throw new AgentError('agentStillRunning', { title: this.get(id).title });
    }
    this.records.update(id, await rebaseOnParent(this.deps.git, this.records, id, this.deps.clock.now()));
    this.tracker.untrack(id);
    this.tracker.track(id, this.get(id));
    await this.tracker.refresh(id);
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

  /** Ends what the agent's ended runs left running (a server it started): its folder is about to go. */
  endLeftovers(id: string): Promise<void> {
    return this.runs.endLeftovers(id);
  }

  /** Drops an agent from the list (clean-up). Its saved work ref, if any, stays in the repository. */
  forget(id: string): void {
    if (this.runs.isRunning(id)) {
      throw new AgentError('agentStillRunning', { title: this.get(id).title });
    }
    this.tracker.untrack(id);
    this.runs.forget(id);
    this.records.delete(id);
  }

  /** Adds a record made elsewhere (an orphaned worktree adopted by Reconcile Agents) and watches its folder. */
  register(record: AgentRecord): void {
    if (this.records.has(record.id)) {
      throw new AgentError('duplicateAgentId', { id: record.id });
    }
    this.records.add(record);
    if (record.worktreePresent !== false) {
      this.setTracked(record.id, true);
    }
  }

  /** Resolves with the agent once its current run has ended (at once when it is not running). */
  async whenEnded(id: string): Promise<AgentRecord> {
    await this.queue.started(id);
    await this.runs.ended(id);
    return this.get(id);
  }

  /** Its run is followed here, or it waits in the queue (Stop cancels it). */
  isRunning(id: string): boolean {
    return this.runs.isRunning(id) || (this.records.has(id) && this.get(id).status === 'queued');
  }

  /** The root process of the agent's run: its supervisor's, or its terminal's; undefined when none runs here. */
  processOf(id: string): number | undefined {
    return this.runs.pid(id) ?? (this.records.has(id) ? this.get(id).terminalPid : undefined);
  }

  refreshChanges(id: string): Promise<void> {
    return this.tracker.refresh(id);
  }

  /** Every change the watcher reported (ChangeTracker.refreshSeen); true when that was a whole recompute. */
  refreshSeen(id: string): Promise<boolean> {
    return this.tracker.refreshSeen(id);
  }

  /** Resolves when every state change so far has been written. */
  readonly flush = (): Promise<void> => this.records.flush();
  /** Now, by the clock every time in the records comes from. */
  readonly now = (): number => this.deps.clock.now();
  /** Resolves with the agent once the check running in this window has ended (at once when none runs). */
  async whenCheckEnded(id: string): Promise<AgentRecord> {
    await this.checks.ended(id);
    return this.get(id);
  }

  /** Fix Failing Check: a follow-up with the failing command and its output's end; success checks again. */
  async fixFailingCheck(id: string): Promise<string> {
    if (this.checks.isRunning(id)) {
      throw new AgentError('checkStillRunning', { title: this.get(id).title });
    }
    const prompt = await this.checks.fixPrompt(id);
    await this.followUp(id, prompt);
    return prompt;
  }

  /** Ends every agent process this manager started: a window that closes leaves no agent running unseen. */
  dispose(): void {
    // The saved state still says "running": the next window adopts supervised runs and shows the
    // others as interrupted. A runner that cannot leave its agent running stops it.
    this.elsewhere?.dispose();
    this.queue.dispose();
    this.resumer.dispose();
    this.runs.dispose();
    this.checks.dispose();
    this.tracker.dispose();
    this.records.dispose();
  }
}
