/**
 * Linux: every process's /proc/<pid>/stat, read for the usage sampler (core/usage). The reads are
 * synchronous, which costs a quarter of their asynchronous form, in slices with a turn of the event
 * loop between them, so the extension host never waits more than one slice. Elsewhere there is no
 * /proc: `procTable()` is undefined and the figures are not shown.
 */
import * as fs from 'node:fs';
import { type ProcessTable, type ProcStat, parseProcStat } from '../core/usage';

const sliceSize = 64;
/** USER_HZ: the unit of /proc's CPU times, 100 on every Linux architecture. */
const ticksPerSecond = 100;

export function procTable(): ProcessTable | undefined {
  if (process.platform !== 'linux' || !fs.existsSync('/proc/self/stat')) {
    return undefined;
  }
  return { read: readProcTable, pageBytes: pageBytes(), ticksPerSecond };
}

/** Every process, or those of `pids` that still exist. */
export async function readProcTable(pids?: readonly number[]): Promise<readonly ProcStat[]> {
  const names = pids
    ? pids.map(String)
    : (await fs.promises.readdir('/proc')).filter((name) => name.charCodeAt(0) <= 57);
  const table: ProcStat[] = [];
  for (let i = 0; i < names.length; i += sliceSize) {
    if (i > 0) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const name of names.slice(i, i + sliceSize)) {
      const stat = readStat(name);
      if (stat) {
        table.push(stat);
      }
    }
  }
  return table;
}

/** One line of at most a few hundred bytes: one read into this buffer (readFileSync would stat and read twice). */
const buffer = Buffer.alloc(4096);

function readStat(pid: string): ProcStat | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(`/proc/${pid}/stat`, 'r');
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    return parseProcStat(buffer.toString('latin1', 0, n));
  } catch {
    return undefined; // ended meanwhile, or not ours to read
  } finally {
    if (fd !== undefined) {
      fs.closeSync(fd);
    }
  }
}

/**
 * The page size, in which /proc counts resident memory: this process's resident bytes over its
 * resident pages (statm), rounded to a power of two; 4096 when that cannot be read.
 */
function pageBytes(): number {
  try {
    const pages = Number(fs.readFileSync('/proc/self/statm', 'latin1').split(' ')[1]);
    const ratio = process.memoryUsage().rss / pages;
    return pages > 0 ? 2 ** Math.round(Math.log2(ratio)) : 4096;
  } catch {
    return 4096;
  }
}
