/**
 * Which worktrees' change sets may still be current, without running git: a change set computed
 * since the folder's last file event, with the worktree's index, HEAD and branch ref as they were
 * then (a commit, a stage or a checkout changes those, not always a watched file).
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { FolderWatch, FolderWatcher } from '../../core/ports';

interface Computed {
  readonly baseSha: string;
  /** The folder's event count when the computation started. */
  readonly events: number;
  readonly stamp: string;
}

const statStamp = async (file: string): Promise<string> => {
  try {
    const s = await fs.stat(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return '-';
  }
};

const readText = (file: string): Promise<string | undefined> => fs.readFile(file, 'utf8').catch(() => undefined);

/**
 * The index, HEAD and the ref HEAD names of the worktree at `cwd`, from its `.git` file or folder;
 * undefined when `cwd` has none (a subfolder of a repository: never taken as unchanged).
 */
export async function gitStateStamp(cwd: string): Promise<string | undefined> {
  const dotGit = path.join(cwd, '.git');
  const link = await readText(dotGit).catch(() => undefined);
  let gitDir: string;
  if (link !== undefined) {
    const match = /^gitdir: (.+)$/m.exec(link);
    if (!match) {
      return undefined;
    }
    gitDir = path.resolve(cwd, match[1].trim());
  } else if ((await statStamp(path.join(dotGit, 'HEAD'))) !== '-') {
    gitDir = dotGit;
  } else {
    return undefined;
  }
  const common = (await readText(path.join(gitDir, 'commondir')))?.trim();
  const commonDir = common ? path.resolve(gitDir, common) : gitDir;
  const head = (await readText(path.join(gitDir, 'HEAD'))) ?? '';
  const ref = /^ref: (refs\/\S+)$/m.exec(head)?.[1];
  const parts = await Promise.all([
    statStamp(path.join(gitDir, 'index')),
    ref ? statStamp(path.join(commonDir, ref)) : Promise.resolve(''),
    ref ? statStamp(path.join(commonDir, 'packed-refs')) : Promise.resolve(''),
    statStamp(path.join(gitDir, 'MERGE_HEAD')),
  ]);
  return [head.trim(), ...parts].join('|');
}

export class ChangeFreshness {
  /** File events seen per watched folder, and its watches. */
  private readonly events = new Map<string, number>();
  private readonly watches = new Map<string, Set<FolderWatch>>();
  private readonly computed = new Map<string, Computed>();

  /** `inner`, counting every event of a folder before passing it on (with the paths it names). */
  watching(inner: FolderWatcher): FolderWatcher {
    return {
      watch: (folder, onChange) => {
        const watch = inner.watch(folder, (paths) => {
          this.touched(folder);
          onChange(paths);
        });
        const watches = this.watches.get(folder) ?? new Set<FolderWatch>();
        this.watches.set(folder, watches.add(watch));
        let disposed = false;
        return {
          get complete() {
            return watch.complete;
          },
          focus: (paths) => watch.focus?.(paths),
          dispose: () => {
            if (!disposed) {
              disposed = true;
              watches.delete(watch);
              if (watches.size === 0 && this.watches.get(folder) === watches) {
                this.watches.delete(folder);
                this.computed.delete(folder);
              }
            }
            watch.dispose();
          },
        };
      },
    };
  }

  /** Watched, and every folder under it: a folder left unwatched (budget, no watches left) has no events to count. */
  private fullyWatched(folder: string): boolean {
    const watches = this.watches.get(folder);
    return watches !== undefined && [...watches].every((w) => w.complete !== false);
  }

  /** A file event under `folder`: what was computed before it is no longer taken as current. */
  touched(folder: string): void {
    this.events.set(folder, (this.events.get(folder) ?? 0) + 1);
  }

  /** To call before computing `cwd`'s change set; the returned function records it once it succeeded. */
  async begin(cwd: string, baseSha: string): Promise<() => void> {
    const events = this.events.get(cwd) ?? 0;
    const stamp = await gitStateStamp(cwd);
    return () => {
      // Only watched folders: what another caller computes elsewhere is not kept.
      if (stamp !== undefined && this.watches.has(cwd)) {
        this.computed.set(cwd, { baseSha, events, stamp });
      }
    };
  }

  /**
   * True when every folder of `cwd` is watched, its change set against `baseSha` was computed after its last file
   * event, and its index, HEAD and branch ref are as they were when that computation began.
   */
  async unchanged(cwd: string, baseSha: string): Promise<boolean> {
    const last = this.computed.get(cwd);
    if (!last || !this.fullyWatched(cwd) || last.baseSha !== baseSha || last.events !== (this.events.get(cwd) ?? 0)) {
      return false;
    }
    return (await gitStateStamp(cwd)) === last.stamp;
  }
}
