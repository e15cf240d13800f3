import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { type LogOrigin, parseLogOrigin } from '../supervisor/protocol';

const readChunk = 256 * 1024;

/**
 * Follows a log from a position: reads what was appended, and when the supervisor has replaced the
 * file (a cut), reads the old file to its end and continues in the new one at the same position.
 */
export class LogTailer {
  private handle?: FileHandle;
  private ino?: number;
  private origin: LogOrigin = { cut: 0, markerLength: 0 };
  private watcher?: fs.FSWatcher;
  private decoder = new StringDecoder('utf8');
  private readonly buffer = Buffer.alloc(readChunk);
  private closed = false;

  constructor(
    private readonly logPath: string,
    private position: number,
    private readonly emit: (text: string) => void,
    private readonly wake: () => void,
  ) {}

  /** Reads everything available now; async reads of bounded size, so the host never blocks. */
  async pump(): Promise<void> {
    if (this.closed || (!this.handle && !(await this.switchTo(await openLog(this.logPath))))) {
      return;
    }
    for (;;) {
      await this.drain();
      // Pin whatever file is at the path now, before anything else: a cut cannot take it away.
      const current = await openLog(this.logPath);
      if (!current || current.ino === this.ino || this.closed) {
        await current?.handle.close().catch(() => undefined);
        return;
      }
      // A new file at the path: the one being read is complete now, so read its last bytes, then switch.
      await this.drain();
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      if (!(await this.switchTo(current))) {
        return;
      }
    }
  }

  /** The last bytes of an incomplete character, once no more output can follow. */
  finish(): void {
    this.emit(this.decoder.end());
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    void this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async drain(): Promise<void> {
    while (this.handle && !this.closed) {
      const filePos = this.origin.markerLength + (this.position - this.origin.cut);
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, filePos);
      if (bytesRead === 0 || this.closed) {
        return;
      }
      this.position += bytesRead;
      this.emit(this.decoder.write(this.buffer.subarray(0, bytesRead)));
    }
  }

  private async switchTo(file: OpenLog | undefined): Promise<boolean> {
    if (!file || this.closed) {
      await file?.handle.close().catch(() => undefined);
      return false;
    }
    this.handle = file.handle;
    this.ino = file.ino;
    this.origin = file.origin;
    if (this.position > file.origin.cut + file.size - file.origin.markerLength) {
      // A cut keeps every byte read so far, so this is another file put in the log's place.
      this.decoder = new StringDecoder('utf8');
      this.emit('\n[parallel-agents] the log file was replaced: its new content follows\n');
      this.position = file.origin.cut;
    } else if (this.position < file.origin.cut) {
      // Only when this reader fell more than half the cap behind the agent.
      this.emit(
        `\n[parallel-agents] ${file.origin.cut - this.position} bytes of output were cut before they could be shown\n`,
      );
      this.position = file.origin.cut;
    }
    this.rewatch();
    return true;
  }

  private rewatch(): void {
    this.watcher?.close();
    try {
      this.watcher = fs.watch(this.logPath, { persistent: false }, () => this.wake());
      this.watcher.on('error', () => undefined);
    } catch {
      this.watcher = undefined;
    }
  }
}

interface OpenLog {
  readonly handle: FileHandle;
  readonly ino: number;
  readonly size: number;
  readonly origin: LogOrigin;
}

/** The log opened with its size and origin (cut marker); undefined when there is none. The caller closes it. */
export async function openLog(logPath: string): Promise<OpenLog | undefined> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(logPath, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(128);
    const [{ bytesRead }, stat] = await Promise.all([handle.read(head, 0, head.length, 0), handle.stat()]);
    return { handle, ino: stat.ino, size: stat.size, origin: parseLogOrigin(head.subarray(0, bytesRead)) };
  } catch {
    await handle.close().catch(() => undefined);
    return undefined;
  }
}
