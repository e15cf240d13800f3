import * as fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { type LogOrigin, parseLogOrigin } from '../supervisor/protocol';
import { incompleteUtf8Tail } from './logReader';

// Small enough that decoding and parsing one read (a JSON-events agent) keeps the host responsive.
const readChunk = 64 * 1024;

/**
 * Follows a log from a position: reads what was appended, and when the supervisor has replaced the
 * file (a cut), reads the old file to its end and continues in the new one at the same position.
 * Each read is decoded once, whole characters only: the bytes of a character not yet complete are
 * read again with the rest of it, so `position` is always at the start of a character.
 */
export class LogTailer {
  private handle?: FileHandle;
  private ino?: number;
  private origin: LogOrigin = { cut: 0, markerLength: 0 };
  private watcher?: fs.FSWatcher;
  private readonly buffer = Buffer.alloc(readChunk);
  private closed = false;
  private watchFailed = false;

  constructor(
    private readonly logPath: string,
    private pos: number,
    private readonly emit: (text: string) => void,
    private readonly wake: () => void,
  ) {}

  /** Log position of the next byte to read (what was emitted ends there). */
  get position(): number {
    return this.pos;
  }

  /** True while the file's changes wake this tailer; else its owner has to poll. */
  get watching(): boolean {
    return this.watcher !== undefined && !this.watchFailed;
  }

  /**
   * Reads everything available now; async reads of bounded size, so the host never blocks. `final`:
   * no more output can follow, so the bytes of an incomplete last character are emitted too (as the
   * decoder shows them).
   */
  async pump(final = false): Promise<void> {
    if (this.closed || (!this.handle && !(await this.switchTo(await openLog(this.logPath))))) {
      return;
    }
    for (;;) {
      await this.drain(final);
      // Pin whatever file is at the path now, before anything else: a cut cannot take it away.
      const current = await openLog(this.logPath);
      if (!current || current.ino === this.ino || this.closed) {
        await current?.handle.close().catch(() => undefined);
        return;
      }
      // A new file at the path: the one being read is complete now, so read its last bytes, then switch.
      await this.drain(false);
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      if (!(await this.switchTo(current))) {
        return;
      }
    }
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    void this.handle?.close().catch(() => undefined);
    this.handle = undefined;
  }

  private async drain(final: boolean): Promise<void> {
    while (this.handle && !this.closed) {
      const filePos = this.origin.markerLength + (this.pos - this.origin.cut);
      const { bytesRead } = await this.handle.read(this.buffer, 0, this.buffer.length, filePos);
      if (bytesRead === 0 || this.closed) {
        return;
      }
      // Only the read that reaches the end may give an incomplete last character whole: any other
      // read ends where the buffer does, often inside a character the next read completes.
      const atEnd = final && bytesRead < this.buffer.length;
      const whole = atEnd ? bytesRead : bytesRead - incompleteUtf8Tail(this.buffer.subarray(0, bytesRead));
      if (whole === 0) {
        return; // only the first bytes of a character so far
      }
      await nextTurn();
      if (this.closed) {
        return;
      }
      this.pos += whole;
      this.emit(this.buffer.toString('utf8', 0, whole));
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
    if (this.pos > file.origin.cut + file.size - file.origin.markerLength) {
      // A cut keeps every byte read so far, so this is another file put in the log's place.
      this.emit('\n[parallel-agents] the log file was replaced: its new content follows\n');
      this.pos = file.origin.cut;
    } else if (this.pos < file.origin.cut) {
      // Only when this reader fell more than half the cap behind the agent.
      this.emit(
        `\n[parallel-agents] ${file.origin.cut - this.pos} bytes of output were cut before they could be shown\n`,
      );
      this.pos = file.origin.cut;
    }
    this.rewatch();
    return true;
  }

  private rewatch(): void {
    this.watcher?.close();
    this.watchFailed = false;
    try {
      this.watcher = fs.watch(this.logPath, { persistent: false }, () => this.wake());
      this.watcher.on('error', () => {
        this.watchFailed = true;
        this.wake();
      });
    } catch {
      this.watcher = undefined;
    }
  }
}

/**
 * Reads of all tailers are decoded and handed on one per turn of the event loop: many agents'
 * output arriving at once (and parsed by its listeners) then delays timers and the editor's own work
 * by one read's work, not by all of theirs.
 */
const waiting: (() => void)[] = [];

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) {
      setImmediate(release);
    }
  });
}

function release(): void {
  waiting.shift()?.();
  if (waiting.length > 0) {
    setImmediate(release);
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
