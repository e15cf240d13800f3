import type { ChangedFile } from '../agent';
import type { FolderWatcher, Logger } from '../ports';
import { debounce } from '../../util/async';
import type { Disposable } from '../../util/event';

export interface TrackedFolder {
  readonly cwd: string;
  readonly baseSha: string;
}

type Compute = (folder: TrackedFolder) => Promise<ChangedFile[]>;
/** Takes a computed change set; a returned promise is awaited before the refresh resolves. */
type Publish = (id: string, files: ChangedFile[]) => unknown;

interface Entry {
  readonly folder: TrackedFolder;
  readonly watch: Disposable;
  readonly debounced: ReturnType<typeof debounce>;
  running: Promise<void> | undefined;
  dirty: boolean;
}

/**
 * Keeps each agent's change set current: file events mark a folder dirty and trigger a debounced
 * refresh; no folder ever has two computations at once.
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
    this.entries.set(id, { folder, watch, debounced, running: undefined, dirty: false });
  }

  untrack(id: string): void {
    const entry = this.entries.get(id);
    if (entry) {
      entry.watch.dispose();
      entry.debounced.dispose();
      this.entries.delete(id);
    }
  }

  /** Computes the change set now; resolves once the published set reflects the folder as it is now. */
  refresh(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (!entry) {
      return Promise.resolve();
    }
    entry.dirty = true;
    entry.running ??= this.drain(id, entry);
    return entry.running;
  }

  /** One computation at a time per folder; a change arriving mid-run causes exactly one more. */
  private async drain(id: string, entry: Entry): Promise<void> {
    try {
      while (entry.dirty) {
        entry.dirty = false;
        try {
          const files = await this.compute(entry.folder);
          if (this.entries.get(id) === entry) {
            await this.publish(id, files);
          }
        } catch (e) {
          this.logger.warn(`[ChangeTracker] refresh of ${entry.folder.cwd} failed: ${(e as Error).message}`);
        }
      }
    } finally {
      // Cleared in the same turn as the last dirty check, so no request can fall in between.
      entry.running = undefined;
    }
  }

  dispose(): void {
    for (const id of [...this.entries.keys()]) {
      this.untrack(id);
    }
  }
}
