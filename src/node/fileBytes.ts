/** FileBytes on node:fs/promises: the files the review commands read and write, byte for byte. */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { FileBytes } from '../core/review';

export class NodeFileBytes implements FileBytes {
  async read(p: string): Promise<Uint8Array | undefined> {
    try {
      return await fs.readFile(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        return undefined;
      }
      throw e;
    }
  }

  /** Writes into the existing file (its mode, owner and links stay), or creates it and its folder. */
  async write(p: string, bytes: Uint8Array): Promise<void> {
    await fs.mkdir(path.dirname(p), { recursive: true });
    await fs.writeFile(p, bytes);
  }
}
