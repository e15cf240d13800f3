/** FileSystemPort on node:fs/promises. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { FileSystemPort } from '../core/ports';

export class NodeFileSystem implements FileSystemPort {
  async exists(p: string): Promise<boolean> {
    try {
      await fs.access(p);
      return true;
    } catch {
      return false;
    }
  }

  async mkdirp(p: string): Promise<void> {
    await fs.mkdir(p, { recursive: true });
  }

  /** Recursive and forgiving of a folder that is already gone; retries the busy-file errors of Windows. */
  async removeDir(p: string): Promise<void> {
    const target = path.resolve(p);
    if (p.trim() === '' || target === path.parse(target).root) {
      throw new Error(`Refusing to remove ${JSON.stringify(p)}`);
    }
    await fs.rm(target, { recursive: true, force: true, maxRetries: 3, retryDelay: 100 });
  }
}
