/**
 * The bytes a worktree's files take (core/usage FolderSizes): a walk of the folder that counts every
 * regular file once (hard links too), follows no symbolic link (linked folders such as a shared
 * node_modules are not the worktree's) and skips the worktree's `.git` file. It awaits every folder
 * it reads, so other work of the extension host goes on between them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FolderSizes } from '../core/usage';

export const nodeFolderSizes: FolderSizes = {
  bytes: folderBytes,
  stamp: async (dir) => (await fs.promises.stat(dir).catch(() => undefined))?.mtimeMs,
};

export async function folderBytes(dir: string): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
  const folders = [dir];
  while (folders.length > 0) {
    const folder = folders.pop()!;
    const entries = await fs.promises.readdir(folder, { withFileTypes: true }).catch((e: NodeJS.ErrnoException) => {
      if (folder === dir) {
        throw e; // the worktree itself is gone: no size, rather than 0
      }
      return [] as fs.Dirent[];
    });
    const files: string[] = [];
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (folder === dir && entry.name === '.git') {
        continue;
      }
      if (entry.isDirectory()) {
        folders.push(full);
      } else if (entry.isFile()) {
        files.push(full);
      }
    }
    const stats = await Promise.all(files.map((f) => fs.promises.lstat(f).catch(() => undefined)));
    for (const stat of stats) {
      const id = stat && `${stat.dev}:${stat.ino}`;
      if (stat && id && (stat.nlink < 2 || !seen.has(id))) {
        if (stat.nlink > 1) {
          seen.add(id);
        }
        total += stat.size;
      }
    }
  }
  return total;
}
