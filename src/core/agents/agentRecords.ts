/**
 * The records of every agent of a window: kept in memory, saved through the StateStore (coalesced
 * writes), every change announced. A status change goes through the state machine.
 */
import type { AgentRecord, ChangedFile } from '../agent';
import { AgentError } from '../errors';
import type { ChangedElsewhere, Logger, StateStore } from '../ports';
import { sameChangeSet } from '../landing';
import { assertTransition } from './agentStateMachine';
import { CoalescedSave } from '../../util/async';
import { type Disposable, Emitter } from '../../util/event';
import { mergeRecords } from '../../util/merge';

export interface AgentChange {
  readonly id: string;
  readonly kind: 'added' | 'updated' | 'removed';
}

export class AgentRecords implements Disposable {
  private readonly records = new Map<string, AgentRecord>();
  private readonly saves: CoalescedSave;
  private readonly changeEmitter = new Emitter<AgentChange>();
  readonly onDidChange = this.changeEmitter.event;

  constructor(store: StateStore, logger: Logger) {
    this.saves = new CoalescedSave(
      () => store.save(this.list()),
      (e) => logger.error(`[AgentManager] saving state failed: ${e.message}`),
    );
  }

  list(): AgentRecord[] {
    return [...this.records.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  get(id: string): AgentRecord {
    const record = this.records.get(id);
    if (!record) {
      throw new AgentError('noSuchAgent', { id });
    }
    return record;
  }

  /** Adds a record and announces it. */
  add(record: AgentRecord): void {
    this.records.set(record.id, record);
    this.changed(record.id, 'added');
  }

  /**
   * Sets a record without a state-machine check and without announcing it: a record as loaded, or
   * one a new run starts from (the run's first update announces it).
   */
  put(record: AgentRecord): void {
    this.records.set(record.id, record);
  }

  /** Applies a patch to the record, if it still exists; a status change still goes through the state machine. */
  update(id: string, patch: Partial<AgentRecord>): void {
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

  /** Takes a new change set, announced only when it differs from the record's. */
  publishChanges(id: string, files: ChangedFile[]): void {
    const record = this.records.get(id);
    if (record && !sameChangeSet(record.changedFiles, files)) {
      this.records.set(id, { ...record, changedFiles: files });
      this.changed(id, 'updated');
    }
  }

  /**
   * Takes what another window wrote: announced, not written back. Fields this window changed since
   * `base` and has not saved yet stay its own; a record whose run this window follows (`runsHere`)
   * keeps its run state: the window that follows the process knows it best.
   */
  applyElsewhere(
    changed: ChangedElsewhere<AgentRecord>['changed'],
    removed: readonly string[],
    runsHere: (id: string) => boolean,
  ): void {
    for (const { record: theirs, base } of changed) {
      const ours = this.records.get(theirs.id);
      const merged = ours ? mergeRecords(base, ours, theirs) : theirs;
      const record = ours && runsHere(theirs.id) ? { ...merged, ...runState(ours) } : merged;
      if (ours && JSON.stringify(ours) === JSON.stringify(record)) {
        continue;
      }
      this.records.set(record.id, record);
      this.changeEmitter.fire({ id: record.id, kind: ours ? 'updated' : 'added' });
    }
    for (const id of removed) {
      if (this.records.delete(id)) {
        this.changeEmitter.fire({ id, kind: 'removed' });
      }
    }
  }

  delete(id: string): void {
    this.records.delete(id);
    this.changed(id, 'removed');
  }

  /** Writes the records (coalesced with other writes). */
  persist(): void {
    this.saves.request();
  }

  /** Resolves when every change so far has been written. */
  flush(): Promise<void> {
    return this.saves.flush();
  }

  dispose(): void {
    this.changeEmitter.dispose();
  }

  private changed(id: string, kind: AgentChange['kind']): void {
    this.persist();
    this.changeEmitter.fire({ id, kind });
  }
}

/** The fields the run of an agent sets, as this window's copy of the record has them. */
function runState(record: AgentRecord): Partial<AgentRecord> {
  const { status, startedAt, endedAt, exitCode, signal, error, errorReason, activity, input, terminalPid } = record;
  return { status, startedAt, endedAt, exitCode, signal, error, errorReason, activity, input, terminalPid };
}
