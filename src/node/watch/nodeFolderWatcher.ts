/**
 * Watches agents' worktrees from Node, so a refused watch (ENOSPC, EMFILE) is seen, unlike through
 * VS Code's watcher. On Linux inotify costs one watch per folder out of a per-user limit
 * (fs.inotify.max_user_watches) that every program shares: the worktrees together use at most a
 * tenth of it, each watching its shallowest folders and those holding its changes first; the
 * change tracker polls what is left while the agent runs. Elsewhere one recursive watch per tree.
 */
import * as fs from 'node:fs';
import type { FolderWatch, FolderWatcher, Logger } from '../../core/ports';
import { toForwardSlashes } from '../../util/paths';
import { type TreeOwner, TreeWatch, type WatchDir } from './treeWatch';

export interface NodeFolderWatcherOptions {
  /** Watches all trees may use together; default a tenth of fs.inotify.max_user_watches. */
  readonly budget?: number;
  /** Starts one non-recursive watch (tests pass one that fails). */
  readonly watchDir?: WatchDir;
  /** One recursive watch per tree; default everywhere but Linux, where it would cost a watch per folder anyway. */
  readonly recursive?: boolean;
  /** Called once, the first time the system refuses a watch. */
  readonly onExhausted?: (error: NodeJS.ErrnoException) => void;
  readonly logger?: Logger;
  /** First retry after the system refused a watch; doubles up to ten minutes. */
  readonly retryMs?: number;
}

/** Folder names never watched: git's own and dependency folders hold no agent's work. */
const skipped = new Set(['.git', 'node_modules']);

/** fs.inotify.max_user_watches, or undefined where there is none (not Linux) or it cannot be read. */
export function inotifyWatchLimit(): number | undefined {
  try {
    const value = Number.parseInt(fs.readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8'), 10);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

const watchOne: WatchDir = (dir, listener) => fs.watch(dir, { persistent: false }, listener);

export class NodeFolderWatcher implements FolderWatcher {
  private readonly trees = new Set<TreeWatch>();
  private readonly owner: TreeOwner;
  private readonly recursive: boolean;
  readonly budget: number;
  private refusedAt: number | undefined;
  private retryMs: number;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private told = false;

  constructor(private readonly options: NodeFolderWatcherOptions = {}) {
    this.recursive = options.recursive ?? process.platform !== 'linux';
    this.budget = options.budget ?? Math.max(64, Math.floor((inotifyWatchLimit() ?? 81_920) / 10));
    this.retryMs = options.retryMs ?? 60_000;
    this.owner = {
      watchDir: options.watchDir ?? watchOne,
      skip: skipped,
      cap: () => Math.floor(this.budget / Math.max(this.trees.size, 1)),
      canWatch: () => this.refusedAt === undefined,
      refused: (error) => this.refused(error),
      freed: () => this.freed(),
    };
  }

  /** Watches held now, over every tree. */
  get used(): number {
    return [...this.trees].reduce((sum, t) => sum + t.count, 0);
  }

  watch(folder: string, onChange: (paths?: readonly string[]) => void): FolderWatch {
    if (this.recursive) {
      return this.watchRecursive(folder, onChange);
    }
    const tree = new TreeWatch(this.owner, folder, onChange);
    this.trees.add(tree);
    const cap = this.owner.cap();
    this.trees.forEach((t) => t.trim(cap));
    tree.start();
    return {
      get complete() {
        return tree.complete;
      },
      focus: (paths) => tree.focus(paths),
      dispose: () => {
        if (this.trees.delete(tree)) {
          tree.dispose();
          this.trees.forEach((t) => t.fill()); // the others may grow into the freed share
        }
      },
    };
  }

  dispose(): void {
    clearTimeout(this.retryTimer);
    this.trees.forEach((t) => t.dispose());
    this.trees.clear();
  }

  private watchRecursive(folder: string, onChange: (paths?: readonly string[]) => void): FolderWatch {
    let failed = false;
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(folder, { persistent: false, recursive: true }, (_event, filename) => {
        const rel = filename === null ? undefined : toForwardSlashes(filename);
        if (rel === undefined || !rel.split('/').some((part) => skipped.has(part))) {
          onChange(rel === undefined ? undefined : [rel]);
        }
      });
      watcher.on('error', () => {
        failed = true;
        onChange(undefined);
      });
    } catch (e) {
      failed = true;
      this.refused(e as NodeJS.ErrnoException);
    }
    return {
      get complete() {
        return !failed;
      },
      dispose: () => watcher?.close(),
    };
  }

  private refused(error: NodeJS.ErrnoException): void {
    this.options.logger?.warn(`[Watcher] the system refused a file watch (${error.code}): polling instead`);
    if (!this.told) {
      this.told = true;
      this.options.onExhausted?.(error);
    }
    if (this.refusedAt !== undefined) {
      return;
    }
    this.refusedAt = Date.now();
    // Watches may be freed elsewhere (another program, or the limit raised): try again, less and less often.
    this.retryTimer = setTimeout(() => {
      this.retryMs = Math.min(this.retryMs * 2, 600_000);
      this.freed();
    }, this.retryMs);
    this.retryTimer.unref?.();
  }

  private freed(): void {
    if (this.refusedAt === undefined) {
      return;
    }
    clearTimeout(this.retryTimer);
    this.refusedAt = undefined;
    this.trees.forEach((t) => t.fill());
  }
}
