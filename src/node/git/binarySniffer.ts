/** Binary detection for untracked files, which git's numstat does not cover. */
import * as fs from 'node:fs/promises';
import { constants } from 'node:fs';
import * as path from 'node:path';
import { binarySniffLength, looksBinary } from './changeParsers';

/** Beyond this many untracked files the rest are reported as text rather than read. */
const maxSniffedFiles = 500;
const parallelReads = 16;

async function isBinaryFile(file: string): Promise<boolean> {
  let handle: fs.FileHandle | undefined;
  try {
    // A symlink is not followed: git stores its target path, which is text.
    handle = await fs.open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const head = Buffer.alloc(binarySniffLength);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return looksBinary(head.subarray(0, bytesRead));
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/** The paths (relative to `cwd`) among `files` whose first 8000 bytes hold a NUL byte. */
export async function sniffBinaryFiles(cwd: string, files: readonly string[]): Promise<Set<string>> {
  const binary = new Set<string>();
  const todo = files.slice(0, maxSniffedFiles);
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const file = todo[next++];
      if (await isBinaryFile(path.join(cwd, file))) {
        binary.add(file);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelReads, todo.length) }, worker));
  return binary;
}
