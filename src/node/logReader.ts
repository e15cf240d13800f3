/**
 * Reads a capped log between positions that count every byte ever written to it, cut or not (see
 * LogOrigin), so a position taken before a cut still means the same byte after it.
 */
import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { parseLogOrigin, readLogOriginSync } from '../supervisor/protocol';

/** Output read back from a log; positions count every byte ever written to it, cut or not. */
export interface LogSlice {
  readonly text: string;
  /** Position after the last byte in `text` (whole characters only): pass it to the next call. */
  readonly next: number;
  /** Bytes between the requested offset and the first byte still in the log (cut away). */
  readonly skipped: number;
  /** Position of the log's current end. */
  readonly end: number;
}

/** Bytes at the end of `bytes` that begin a UTF-8 character not yet complete. */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) {
      continue;
    }
    const needed = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return bytes.length - i < needed ? bytes.length - i : 0;
  }
  return 0;
}

export async function readLog(
  logPath: string,
  offset: number,
  end: number | undefined,
  maxBytes: number,
): Promise<LogSlice> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(logPath, 'r');
  } catch {
    return { text: '', next: offset, skipped: 0, end: 0 };
  }
  try {
    const head = Buffer.alloc(128);
    const [{ bytesRead }, stat] = await Promise.all([handle.read(head, 0, head.length, 0), handle.stat()]);
    const origin = parseLogOrigin(head.subarray(0, bytesRead));
    const logEnd = origin.cut + stat.size - origin.markerLength;
    const from = Math.max(offset, origin.cut);
    const length = Math.max(0, Math.min(maxBytes, Math.min(end ?? logEnd, logEnd) - from));
    const bytes = Buffer.alloc(length);
    const { bytesRead: n } = await handle.read(bytes, 0, length, origin.markerLength + from - origin.cut);
    const whole = n - incompleteUtf8Tail(bytes.subarray(0, n));
    return { text: bytes.subarray(0, whole).toString('utf8'), next: from + whole, skipped: from - offset, end: logEnd };
  } finally {
    await handle.close();
  }
}

/** The log position of the end of the file, before any incomplete character (created if missing). */
export function logEndSync(logPath: string): number {
  let fd: number;
  try {
    fd = fs.openSync(logPath, 'r');
  } catch {
    return 0;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const origin = readLogOriginSync(fd);
    const last = Buffer.alloc(Math.min(4, size));
    fs.readSync(fd, last, 0, last.length, size - last.length);
    return origin.cut + size - origin.markerLength - incompleteUtf8Tail(last);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The last `maxChars` characters of the log after position `from` (a run's start): at most a few
 * times `maxChars` bytes are read, whatever the log's size. Empty when there is no log.
 */
export async function readLastText(logPath: string, from: number, maxChars: number): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(logPath, 'r');
  } catch {
    return '';
  }
  try {
    const head = Buffer.alloc(128);
    const [{ bytesRead }, stat] = await Promise.all([handle.read(head, 0, head.length, 0), handle.stat()]);
    const origin = parseLogOrigin(head.subarray(0, bytesRead));
    const logEnd = origin.cut + stat.size - origin.markerLength;
    const first = Math.max(from, origin.cut);
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a 4-byte character is two units).
    const start = Math.max(first, logEnd - maxChars * 3);
    const bytes = Buffer.alloc(Math.max(0, logEnd - start));
    const { bytesRead: n } = await handle.read(bytes, 0, bytes.length, origin.markerLength + start - origin.cut);
    let skip = 0;
    // A window that begins inside a character starts at the next one.
    while (start > first && skip < Math.min(n, 3) && (bytes[skip] & 0xc0) === 0x80) {
      skip++;
    }
    return bytes.toString('utf8', skip, n).slice(-maxChars);
  } finally {
    await handle.close();
  }
}
