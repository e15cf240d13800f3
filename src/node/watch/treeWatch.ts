/** One folder tree watched folder by folder (non-recursive watches), within a number of watches it may use. */
import type * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import type { FolderWatch } from '../../core/ports';

/** Starts one non-recursive watch; throws as fs.watch does (ENOSPC, EMFILE). */
export type WatchDir = (dir: string, listener: (event: string, filename: string | null) => void) => fs.FSWatcher;

/** What a tree asks of the watcher that owns it: the shared budget and what to do when watches run out. */
export interface TreeOwner {
  readonly watchDir: WatchDir;
  readonly skip: ReadonlySet<string>;
  /** Watches this tree may hold now. */
  cap(): number;
  /** False once the system refused a watch (until one is freed or a retry). */
  canWatch(): boolean;
  refused(error: NodeJS.ErrnoException): void;
  freed(): void;
}

/** Key of the git-folder watch among the tree's: no folder of the tree can be named so. */
const gitDirKey = '\0git';
const depth = (rel: string) => (rel === '' ? 0 : rel.split('/').length);

export class TreeWatch implements FolderWatch {
  private readonly watched = new Map<string, fs.FSWatcher>();
  /** Known folders not watched yet, shallow ones first. */
  private readonly queue: string[] = [];
  /** Folders asked for by focus() or just created: watched before the queue. */
  private readonly urgent: string[] = [];
  /** The folders of the last focus(): kept when watches must be dropped. */
  private readonly focused = new Set<string>();
  private scanning = 0;
  private failed = false;
  private disposed = false;

  constructor(
    private readonly owner: TreeOwner,
    readonly root: string,
    private readonly onChange: (paths?: readonly string[]) => void,
  ) {}

  get count(): number {
    return this.watched.size;
  }

  get complete(): boolean {
    return !this.failed && this.queue.length === 0 && this.urgent.length === 0 && this.scanning === 0;
  }

  start(): void {
    this.queue.push('');
    // The git folder first: within the share, it matters more than any deep folder.
    void this.watchGitDir().finally(() => this.fill());
  }

  /**
   * The worktree's own git folder (a linked worktree's, or `.git`): staging or a commit changes the
   * change set's kinds (untracked → added, renames) without writing a file, so its index or HEAD
   * moving asks for a full recompute.
   */
  private async watchGitDir(): Promise<void> {
    const dotGit = path.join(this.root, '.git');
    const isDir = (await fsp.stat(dotGit).catch(() => undefined))?.isDirectory();
    const link = isDir ? '' : await fsp.readFile(dotGit, 'utf8').catch(() => '');
    const gitDir = isDir ? dotGit : /^gitdir: (.+)$/m.exec(link)?.[1]?.trim();
    if (!gitDir || this.disposed || !this.owner.canWatch() || this.owner.cap() < 2) {
      return;
    }
    try {
      const watcher = this.owner.watchDir(path.resolve(this.root, gitDir), (_event, filename) => {
        if (!this.disposed && (filename === 'index' || filename === 'HEAD')) {
          this.onChange(undefined);
        }
      });
      watcher.on('error', () => this.close(gitDirKey));
      this.watched.set(gitDirKey, watcher);
    } catch {
      // Without it a commit shows in the next full recompute (the tracker's periodic one).
    }
  }

  /** Watches queued folders while the budget allows. */
  fill(): void {
    while (!this.disposed && this.watched.size < this.owner.cap() && this.owner.canWatch()) {
      const rel = this.urgent.shift() ?? this.queue.shift();
      if (rel === undefined) {
        break;
      }
      if (!this.watched.has(rel) && !this.add(rel)) {
        break;
      }
    }
  }

  /**
   * Drops watches until at most `cap` remain: the deepest first, those of focused folders last,
   * the root and the git folder never.
   */
  trim(cap: number): void {
    if (this.watched.size <= cap) {
      return;
    }
    const rank = (rel: string) => depth(rel) - (this.focused.has(rel) ? 10_000 : 0);
    const byDepth = [...this.watched.keys()]
      .filter((r) => r !== '' && r !== gitDirKey)
      .sort((a, b) => rank(b) - rank(a));
    for (const rel of byDepth) {
      if (this.watched.size <= cap) {
        break;
      }
      this.close(rel);
      this.queue.unshift(rel);
    }
  }

  focus(paths: readonly string[]): void {
    const dirs = new Set(paths.map((p) => path.posix.dirname(p)).map((d) => (d === '.' ? '' : d)));
    // At most half the share: the shallow folders keep the rest, whatever the size of the change set.
    const kept = [...dirs].filter((d) => d !== '' && !this.skipped(d)).slice(0, Math.floor(this.owner.cap() / 2));
    this.focused.clear();
    kept.forEach((d) => this.focused.add(d));
    const wanted = kept.filter((d) => !this.watched.has(d));
    if (wanted.length === 0) {
      return;
    }
    // Room for them: the deepest unfocused watches give way.
    this.trim(Math.max(1, Math.min(this.watched.size, this.owner.cap() - wanted.length)));
    this.urgent.push(...wanted);
    this.fill();
  }

  dispose(): void {
    this.disposed = true;
    const had = this.watched.size > 0;
    for (const rel of [...this.watched.keys()]) {
      this.close(rel);
    }
    if (had) {
      this.owner.freed();
    }
  }

  private skipped(rel: string): boolean {
    return rel.split('/').some((part) => this.owner.skip.has(part));
  }

  private add(rel: string): boolean {
    const abs = rel === '' ? this.root : path.join(this.root, rel);
    let watcher: fs.FSWatcher;
    try {
      watcher = this.owner.watchDir(abs, (event, filename) => this.onEvent(rel, event, filename));
    } catch (e) {
      const error = e as NodeJS.ErrnoException;
      if (error.code === 'ENOSPC' || error.code === 'EMFILE') {
        this.queue.unshift(rel);
        this.failed = true;
        this.owner.refused(error);
        this.onChange(undefined); // from now on, only a poll sees what changes here
        return false;
      }
      return true; // gone already (ENOENT), or unreadable: nothing to watch
    }
    watcher.on('error', () => {
      this.close(rel);
      this.onChange(rel === '' ? undefined : [rel]);
    });
    this.watched.set(rel, watcher);
    this.failed = false;
    void this.scan(rel, abs);
    return true;
  }

  private close(rel: string): void {
    this.watched.get(rel)?.close();
    this.watched.delete(rel);
  }

  /** Queues the subfolders of a folder just watched. */
  private async scan(rel: string, abs: string): Promise<void> {
    this.scanning++;
    try {
      const entries = await fsp.readdir(abs, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (entry.isDirectory() && !this.owner.skip.has(entry.name)) {
          this.queue.push(rel === '' ? entry.name : `${rel}/${entry.name}`);
        }
      }
    } finally {
      this.scanning--;
    }
    this.fill();
  }

  private onEvent(dir: string, event: string, filename: string | null): void {
    if (this.disposed) {
      return;
    }
    if (filename === null) {
      this.onChange(dir === '' ? undefined : [dir]);
      return;
    }
    const rel = dir === '' ? filename : `${dir}/${filename}`;
    if (this.skipped(rel)) {
      return;
    }
    this.onChange([rel]);
    if (event === 'rename') {
      void this.followRename(rel);
    }
  }

  /** A folder made or moved in is watched (before older queued ones); one gone frees its watches. */
  private async followRename(rel: string): Promise<void> {
    const stat = await fsp.stat(path.join(this.root, rel)).catch(() => undefined);
    if (this.disposed) {
      return;
    }
    if (stat?.isDirectory()) {
      if (!this.watched.has(rel)) {
        this.urgent.push(rel);
        this.fill();
        if (this.watched.has(rel)) {
          this.onChange([rel]); // what was written in it before its watch began
        }
      }
      return;
    }
    const gone = [...this.watched.keys()].filter((r) => r === rel || r.startsWith(`${rel}/`));
    gone.forEach((r) => this.close(r));
    if (gone.length > 0) {
      this.owner.freed();
    }
  }
}
