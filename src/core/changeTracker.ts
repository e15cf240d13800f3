import type { ChangedFile } from './agent';
import type { FolderWatcher, Logger } from './ports';
import { debounce } from '../util/async';
import type { Disposable } from '../util/event';

export interface TrackedFolder {
  readonly cwd: string;
  readonly baseSha: string;
}

type Compute = (folder: TrackedFolder) => Promise<ChangedFile[]>;
type Publish = (id: string, files: ChangedFile[]) => void;

interface Entry {
  readonly folder: TrackedFolder;
  readonly watch: Disposable;
  readonly debounced: ReturnType<typeof debounce>;
  running: boolean;
  dirty: boolean;
}

/**
 * Keeps each agent's change set current: file events mark a folder dirty, a debounced refresh runs
 * one change-set computation per folder at a time, and a change arriving mid-run triggers one more.
 */
export class ChangeTracker implements Disposable {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly watcher: FolderWatcher,
    private readonly compute: Compute,
    private readonly publish: Publish,
    private readonly logger: Logger,
    private readonly debounceMs = 300,
  ) {}

  track(id: string, folder: TrackedFolder): void {
    if (this.entries.has(id)) {
      return;
    }
    const debounced = debounce(() => void this.refresh(id), this.debounceMs);
    const watch = this.watcher.watch(folder.cwd, () => debounced.trigger());
    this.entries.set(id, { folder, watch, debounced, running: false, dirty: false });
  }

  untrack(id: string): void {
    const entry = this.entries.get(id);
    if (entry) {
      entry.watch.dispose();
      entry.debounced.dispose();
      this.entries.delete(id);
    }
  }

  /** Computes the change set now; resolves when the published set reflects the folder as it was. */
  async refresh(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) {
      return;
    }
    if (entry.running) {
      entry.dirty = true;
      return;
    }
    entry.running = true;
    try {
      do {
        entry.dirty = false;
        try {
          const files = await this.compute(entry.folder);
          if (this.entries.get(id) === entry) {
            this.publish(id, files);
          }
        } catch (e) {
          this.logger.warn(`[ChangeTracker] refresh of ${entry.folder.cwd} failed: ${(e as Error).message}`);
        }
      } while (entry.dirty);
    } finally {
      entry.running = false;
    }
  }

  dispose(): void {
    for (const id of [...this.entries.keys()]) {
      this.untrack(id);
    }
  }
}
