/** Binary detection and line counts for untracked files, which git's numstat does not cover. */
import * as fs from 'node:fs/promises';
import { constants } from 'node:fs';
import * as path from 'node:path';
import { binarySniffLength, LineCounter, looksBinary } from './changeParsers';

/** Beyond this many untracked files the rest are reported as text rather than read, their lines not counted. */
const maxSniffedFiles = 500;
/** A larger untracked text file is not read past its head: its lines are not counted. */
const maxCountedBytes = 8 * 1024 * 1024;
const chunkBytes = 1024 * 1024;
const parallelReads = 16;

export interface UntrackedContent {
  /** Paths whose first 8000 bytes hold a NUL byte. */
  readonly binary: Set<string>;
  /** Lines of the text files that were counted. */
  readonly lines: Map<string, number>;
}

type Sniffed = { readonly binary: true } | { readonly binary: false; readonly lines?: number };

async function sniffFile(file: string): Promise<Sniffed> {
  let handle: fs.FileHandle | undefined;
  try {
    // A symlink is not followed: git stores its target path, which is text.
    handle = await fs.open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const head = Buffer.allocUnsafe(binarySniffLength);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (looksBinary(head.subarray(0, bytesRead))) {
      return { binary: true };
    }
    const counter = new LineCounter();
    counter.push(head.subarray(0, bytesRead));
    if (bytesRead < binarySniffLength) {
      return { binary: false, lines: counter.lines };
    }
    const size = (await handle.stat()).size;
    if (size > maxCountedBytes) {
      return { binary: false };
    }
    // Sized to the file (it may still grow): most are read in one more call.
    const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(chunkBytes, size - bytesRead)));
    for (let position = bytesRead; ; ) {
      const chunk = await handle.read(buffer, 0, buffer.length, position);
      if (chunk.bytesRead === 0) {
        return { binary: false, lines: counter.lines };
      }
      counter.push(buffer.subarray(0, chunk.bytesRead));
      position += chunk.bytesRead;
    }
  } catch {
    return { binary: false };
  } finally {
    await handle?.close();
  }
}

/** Which of `files` (relative to `cwd`) look binary, and how many lines the others hold. */
export async function sniffUntracked(cwd: string, files: readonly string[]): Promise<UntrackedContent> {
  const result: UntrackedContent = { binary: new Set(), lines: new Map() };
  const todo = files.slice(0, maxSniffedFiles);
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const file = todo[next++];
      const sniffed = await sniffFile(path.join(cwd, file));
      if (sniffed.binary) {
        result.binary.add(file);
      } else if (sniffed.lines !== undefined) {
        result.lines.set(file, sniffed.lines);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelReads, todo.length) }, worker));
  return result;
}
