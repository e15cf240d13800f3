/**
 * Records that come from elsewhere: those an earlier window saved (restore) and those another
 * window on the repository writes while this one is open (takeElsewhere). A run that outlived its
 * window, or that another window started, is adopted: AgentRuns follows its process here too.
 */
import { type AgentRecord, isActive } from '../agent';
import type { ChangedElsewhere } from '../ports';
import type { AgentRecords } from './agentRecords';
import type { AgentRuns, RunDeps } from './agentRuns';
import type { ChangeTracker } from './changeTracker';

export class Adoptions {
  constructor(
    private readonly deps: RunDeps,
    private readonly records: AgentRecords,
    private readonly runs: AgentRuns,
    private readonly tracker: ChangeTracker,
  ) {}

  /**
   * Takes the records an earlier window saved. A headless run outlives its window under a
   * supervisor: it is adopted. The window may have closed between its launch and the save that
   * said so: a 'preparing' agent whose supervisor exists is running. Anything else that was active
   * has no process any more: it is marked interrupted instead of pretending it runs. A queued agent
   * still waits (AgentQueue starts it).
   */
  restore(saved: readonly AgentRecord[]): void {
    let changed = false;
    for (const record of saved) {
      const launched =
        record.status === 'preparing' && record.mode === 'headless'
          ? { ...record, status: 'running' as const, startedAt: record.startedAt ?? record.createdAt }
          : undefined;
      this.records.put(launched ?? record);
      if (this.adopt(launched ?? record)) {
        changed ||= launched !== undefined;
      } else if (isActive(record.status) && record.status !== 'queued') {
        changed = true;
        this.records.put({ ...record, status: 'interrupted', endedAt: record.endedAt ?? this.deps.clock.now() });
      }
    }
    if (changed) {
      this.records.persist();
    }
  }

  /**
   * Shows what another window on the repository did: its new agents, their progress and ends,
   * merges and discards. A headless run another window started is followed here too (output,
   * Stop); a terminal lives in its own window only.
   */
  takeElsewhere(changed: ChangedElsewhere<AgentRecord>['changed'], removed: readonly string[]): void {
    this.records.applyElsewhere(changed, removed, (id) => this.runs.isRunning(id));
    for (const id of removed) {
      this.tracker.untrack(id);
    }
    for (const {
      record: { id },
    } of changed) {
      const record = this.records.has(id) ? this.records.get(id) : undefined;
      if (!record) {
        continue;
      }
      if (record.mode === 'headless' && !this.runs.isRunning(id)) {
        this.adopt(record);
      }
      if (record.worktreePresent !== false && !record.worktreeMissing && record.status !== 'queued') {
        this.tracker.track(id, record);
      }
    }
  }

  /**
   * Follows a record's run, if one outlived its window or runs in another: a supervised headless
   * run, or a terminal VS Code revives (its exit says `detached` when none comes); false when there
   * is none.
   */
  private adopt(record: AgentRecord): boolean {
    const active = record.status === 'running' || record.status === 'waiting-for-input';
    const terminal = record.mode === 'terminal';
    const where = { cwd: record.cwd, terminalPid: record.terminalPid };
    const adopted = active
      ? (terminal ? this.deps.terminalRunner : this.deps.headlessRunner).adopt?.(record.id, where)
      : undefined;
    if (!adopted) {
      return false;
    }
    const output = terminal ? undefined : this.deps.profiles().find((p) => p.name === record.profile)?.output;
    this.runs.follow(record, adopted, output, true);
    const how = terminal ? `waiting for its terminal (pid ${record.terminalPid ?? '?'})` : 'still running';
    this.deps.logger.info(`[AgentManager] adopted ${record.id}, ${how} from an earlier or another window`);
    return true;
  }
}
