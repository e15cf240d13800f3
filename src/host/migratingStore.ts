import type * as vscode from 'vscode';
import type { ChangedElsewhere, Logger, RecordStore, RecordUpdate } from '../core/ports';
import type { Disposable, Event } from '../util/event';
import type { RegistryProblem } from '../node/registry/recordFiles';

/** A store that can tell whether a record now has its own file. */
export interface DurableStore<T> extends RecordStore<T>, Disposable {
  update: NonNullable<RecordStore<T>['update']>;
  isStored(id: string): boolean;
  /** The files the last load could not read (left as they are). */
  problems(): readonly RegistryProblem[];
}

/**
 * Records of the previous version lived in the window's workspaceState under `key`. On the first
 * load they join the registry's (a record the registry already has wins) and are written to it;
 * the old key then keeps only what could not be written, so nothing is lost.
 */
export class MigratingStore<T extends { readonly id: string }> implements RecordStore<T>, Disposable {
  constructor(
    private readonly registry: DurableStore<T>,
    private readonly memento: vscode.Memento,
    private readonly key: string,
    private readonly logger: Logger,
  ) {}

  load(): readonly T[] {
    const stored = this.registry.load();
    const old = this.memento.get<unknown>(this.key);
    if (!Array.isArray(old)) {
      return stored;
    }
    const ids = new Set(stored.map((r) => r.id));
    const legacy = (old as T[]).filter((r) => r && typeof r.id === 'string' && !ids.has(r.id));
    const all = [...stored, ...legacy];
    void this.registry
      .save(all)
      .catch((e: Error) => this.logger.warn(`[Registry] moving saved records into the registry: ${e.message}`))
      .then(async () => {
        const left = legacy.filter((r) => !this.registry.isStored(r.id));
        await this.memento.update(this.key, left.length > 0 ? left : undefined);
        this.logger.info(
          `[Registry] ${legacy.length - left.length} saved record(s) moved into the registry (${this.key})` +
            (left.length > 0 ? `; ${left.length} kept in the workspace state` : ''),
        );
      });
    return all;
  }

  save(records: readonly T[]): Promise<void> {
    return this.registry.save(records);
  }

  update(id: string, change: (stored: T) => T | undefined): Promise<RecordUpdate<T> | undefined> {
    return this.registry.update?.(id, change) ?? Promise.resolve(undefined);
  }

  get onDidChangeElsewhere(): Event<ChangedElsewhere<T>> | undefined {
    return this.registry.onDidChangeElsewhere;
  }

  problems(): readonly RegistryProblem[] {
    return this.registry.problems();
  }

  dispose(): void {
    this.registry.dispose();
  }
}
