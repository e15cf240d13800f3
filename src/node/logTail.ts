/**
 * What an output view shows of an agent's log: its last bytes only, from a line start, so opening
 * costs the same for any size of log; then what is appended after them, read from the log itself
 * from the position where the tail ended, so no byte is lost or shown twice.
 */
import type { FileHandle } from 'node:fs/promises';
import { incompleteUtf8Tail } from './logReader';
import { LogTailer, openLog } from './logTailer';

/** Bytes of a log an output view shows when it opens. */
export const defaultTailBytes = 64 * 1024;

/** After a burst of wakes, one more read this much later: output announced just before it is written. */
const settleMs = 250;
/** While the log cannot be watched (no file yet, no inotify watch left), an open view reads it this often. */
const unwatchedPollMs = 1000;

export interface LogTail {
  /** The file's last bytes (at most the size asked for) from a line start, decoded: all of a smaller file. */
  readonly text: string;
  /** Bytes of output in the file before `text` (the cut marker line not counted). */
  readonly hiddenBytes: number;
  /** Log position after `text`, before an incomplete last character: where following continues. */
  readonly end: number;
}

/**
 * The last `maxBytes` of the log (fewer: it starts at a line start, or at a character when the first
 * half holds no line end); undefined when there is no log file.
 */
export async function readLogTail(logPath: string, maxBytes = defaultTailBytes): Promise<LogTail | undefined> {
  const log = await openLog(logPath);
  if (!log) {
    return undefined;
  }
  const { handle, size, origin } = log;
  try {
    const tailBytes = Math.max(4, maxBytes);
    // A cut window starts one byte early: that byte tells whether the window begins a line.
    const from = size > tailBytes ? size - tailBytes - 1 : 0;
    const window = Buffer.alloc(size - from);
    const read = window.subarray(0, await readFully(handle, window, from));
    const skip = size > tailBytes ? startOfTail(read) : 0;
    const stop = Math.max(skip, read.length - incompleteUtf8Tail(read));
    const start = from + skip;
    return {
      text: read.subarray(skip, stop).toString('utf8'),
      hiddenBytes: Math.max(0, start - origin.markerLength),
      end: origin.cut + Math.max(0, from + stop - origin.markerLength),
    };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Where the shown part of `window` (whose byte 0 precedes it) starts: after its first line end when
 * that is in its first half, else at its first character.
 */
export function startOfTail(window: Uint8Array): number {
  const newline = window.indexOf(0x0a);
  if (newline >= 0 && newline < window.length / 2) {
    return newline + 1;
  }
  let skip = 1;
  while (skip < window.length && skip < 4 && (window[skip] & 0xc0) === 0x80) {
    skip++;
  }
  return skip;
}

async function readFully(handle: FileHandle, into: Buffer, position: number): Promise<number> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) {
      break;
    }
    done += bytesRead;
  }
  return done;
}

/**
 * Follows a log from a position (a LogTail's end): every wake reads what was appended since, in
 * order, one read at a time; the file's own changes wake it too, once it exists, and while they
 * cannot be watched a slow poll does.
 */
export class LogFollower {
  private readonly tailer: LogTailer;
  private busy?: Promise<void>;
  private again = false;
  private closed = false;
  private settle?: ReturnType<typeof setTimeout>;
  private poll?: ReturnType<typeof setTimeout>;

  constructor(logPath: string, position: number, emit: (text: string) => void) {
    this.tailer = new LogTailer(
      logPath,
      position,
      (text) => {
        if (text !== '' && !this.closed) {
          emit(text);
        }
      },
      () => void this.pump(),
    );
  }

  /** Reads now, and once more shortly after: output may be announced before it reaches the file. */
  wake(): void {
    void this.pump();
    if (this.settle) {
      clearTimeout(this.settle);
    }
    this.settle = setTimeout(() => {
      this.settle = undefined;
      void this.pump();
    }, settleMs);
  }

  /** Reads everything appended so far; resolves when read (calls never overlap). */
  pump(): Promise<void> {
    if (this.closed) {
      return Promise.resolve();
    }
    if (this.busy) {
      this.again = true;
      return this.busy;
    }
    this.busy = (async () => {
      do {
        this.again = false;
        await this.tailer.pump().catch(() => undefined);
      } while (this.again && !this.closed);
      this.busy = undefined;
      clearTimeout(this.poll);
      if (!this.closed && !this.tailer.watching) {
        this.poll = setTimeout(() => void this.pump(), unwatchedPollMs);
      }
    })();
    return this.busy;
  }

  dispose(): void {
    this.closed = true;
    if (this.settle) {
      clearTimeout(this.settle);
    }
    clearTimeout(this.poll);
    this.tailer.close();
  }
}
