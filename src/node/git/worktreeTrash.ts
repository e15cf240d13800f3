/**
 * Removing a big worktree without waiting for its files: its folder is renamed into `.removing/`
 * next to it (one rename on the same file system), git then drops the registration of a folder
 * that is gone, and the files are deleted in the background. A deletion cut short (the window
 * closed) is finished by the next one in the same place. The files are deleted by a child process
 * (deleteApart.ts), so the extension host's own file operations never queue behind them.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../core/ports';
import { deleteFoldersApart } from '../deleteApart';

export const removingFolderName = '.removing';

export class WorktreeTrash {
  private readonly deleting = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private serial = 0;

  constructor(private readonly logger?: Logger) {}

  /**
   * Renames `target` into `.removing/` beside it; where it went, or undefined when it cannot be
   * moved (another file system, a busy folder on Windows): it is then removed in place.
   */
  async moveAside(target: string): Promise<string | undefined> {
    const bin = path.join(path.dirname(target), removingFolderName);
    const aside = path.join(bin, `${path.basename(target)}-${process.pid}-${Date.now().toString(36)}-${this.serial++}`);
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await fs.mkdir(bin, { recursive: true });
        await fs.rename(target, aside);
        return aside;
      } catch (e) {
        // ENOENT: a background deletion removed the emptied `.removing/` in between; try again.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          this.logger?.info(`[Git] ${target} is removed in place: ${(e as Error).message}`);
          return undefined;
        }
      }
    }
    return undefined;
  }

  /** Puts `aside` back at `target` (git refused to drop the registration). */
  async putBack(aside: string, target: string): Promise<void> {
    await fs.rename(aside, target);
    await fs.rmdir(path.dirname(aside)).catch(() => undefined);
  }

  /** Deletes, in the background, everything in the `.removing/` folder of `parent`, then the folder when empty. */
  empty(parent: string): void {
    const bin = path.join(parent, removingFolderName);
    const run = (async () => {
      const names = await fs.readdir(bin).catch(() => [] as string[]);
      const folders = names.map((name) => path.join(bin, name)).filter((folder) => !this.deleting.has(folder));
      folders.forEach((folder) => this.deleting.add(folder));
      try {
        // In a child process: an in-process fs.rm would hold up every file read of the extension host.
        await deleteFoldersApart(folders);
      } catch (e) {
        this.logger?.warn(`[Git] deleting the removed worktree files in ${bin} failed: ${(e as Error).message}`);
      } finally {
        folders.forEach((folder) => this.deleting.delete(folder));
      }
      // Fails while another deletion or a new rename still has something in it: that one empties it.
      await fs.rmdir(bin).catch(() => undefined);
    })();
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Resolves once every background deletion started so far has ended. */
  async settled(): Promise<void> {
    while (this.running.size > 0) {
      await Promise.all([...this.running]);
    }
  }
}
