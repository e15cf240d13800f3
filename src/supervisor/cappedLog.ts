import * as fs from 'node:fs';
import * as path from 'node:path';
import { type LogOrigin, cutMarker, readLogOriginSync } from './protocol';

/**
 * The agent's log: appended to, and when it grows past `maxBytes`, rewritten (new file, then rename)
 * to roughly its newest half, starting at a line, below a marker saying how much was cut. A reader
 * holding the old file open reads it to its end, then continues in the new one.
 */
export class CappedLog {
  private fd: number | undefined;
  private size: number;
  private origin: LogOrigin;
  private readonly maxBytes: number;

  constructor(
    private readonly logPath: string,
    maxBytes: number,
  ) {
    this.maxBytes = Math.max(16 * 1024, maxBytes);
    fs.mkdirSync(path.dirname(logPath), { recursive: true });
    this.fd = fs.openSync(logPath, 'a+');
    this.size = fs.fstatSync(this.fd).size;
    this.origin = readLogOriginSync(this.fd);
    this.cutIfNeeded();
  }

  write(chunk: Buffer): void {
    if (this.fd === undefined) {
      return;
    }
    try {
      writeAll(this.fd, chunk);
      this.size += chunk.length;
      this.cutIfNeeded();
    } catch {
      // A log that cannot be written (disk full, folder gone) must not take the agent down.
      this.close();
    }
  }

  close(): void {
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
    }
  }

  private cutIfNeeded(): void {
    if (this.fd !== undefined && this.size > this.maxBytes) {
      this.cut(this.fd);
    }
  }

  private cut(fd: number): void {
    const keepFrom = this.keepFrom(fd);
    const cut = this.origin.cut + (keepFrom - this.origin.markerLength);
    const marker = Buffer.from(cutMarker(cut));
    const tmp = `${this.logPath}.${process.pid}.cut`;
    const out = fs.openSync(tmp, 'w');
    try {
      writeAll(out, marker);
      copyRange(fd, out, keepFrom, this.size);
    } finally {
      fs.closeSync(out);
    }
    fs.renameSync(tmp, this.logPath);
    fs.closeSync(fd);
    this.fd = fs.openSync(this.logPath, 'a+');
    this.size = marker.length + (this.size - keepFrom);
    this.origin = { cut, markerLength: marker.length };
  }

  /** Where the kept part starts: after the last newline before the newest half, else at a character. */
  private keepFrom(fd: number): number {
    const target = this.size - Math.floor(this.maxBytes / 2);
    const low = Math.max(this.origin.markerLength, target - Math.floor(this.maxBytes / 4));
    const window = Buffer.alloc(target - low);
    const n = fs.readSync(fd, window, 0, window.length, low);
    const newline = window.subarray(0, n).lastIndexOf(0x0a);
    if (newline >= 0) {
      return low + newline + 1;
    }
    const next = Buffer.alloc(4);
    const m = fs.readSync(fd, next, 0, 4, target);
    let skip = 0;
    while (skip < m && (next[skip] & 0xc0) === 0x80) {
      skip++;
    }
    return target + skip;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    offset += fs.writeSync(fd, bytes, offset, bytes.length - offset);
  }
}

function copyRange(from: number, to: number, start: number, end: number): void {
  const buffer = Buffer.alloc(1024 * 1024);
  for (let pos = start; pos < end; ) {
    const n = fs.readSync(from, buffer, 0, Math.min(buffer.length, end - pos), pos);
    if (n === 0) {
      break;
    }
    writeAll(to, buffer.subarray(0, n));
    pos += n;
  }
}
