// Finding real processes from a test (Linux /proc): which git runs in a folder, a process's
// children and command line. Used to kill the real git or agent from outside.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor as poll } from '../harness/waitFor';

/** The NUL-separated command line of `pid` ('' once it is gone). */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

function pids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

function parentOf(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces and parentheses: fields after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every descendant of `pid`, children first. */
export function childrenOf(pid: number): number[] {
  const direct = pids().filter((p) => parentOf(p) === pid);
  return direct.flatMap((child) => [child, ...childrenOf(child)]);
}

/** Live git processes whose working folder is `dir`. */
export function gitProcessesIn(dir: string): number[] {
  const wanted = fs.realpathSync(dir);
  return pids().filter((pid) => {
    try {
      return (
        path.basename(fs.readlinkSync(`/proc/${pid}/exe`)) === 'git' && fs.readlinkSync(`/proc/${pid}/cwd`) === wanted
      );
    } catch {
      return false;
    }
  });
}

/** Polls `probe` every `everyMs` until it returns something truthy; fails after `timeoutMs`. */
export function waitFor<T>(probe: () => T | undefined | false, timeoutMs: number, everyMs = 50): Promise<T> {
  return poll('a process state', probe, { timeoutMs, everyMs });
}

/** `count` files of `bytes` pseudo-random hex each, in folders of 100: a repository whose checkout takes a while. */
export function manyFiles(count: number, bytes: number): Record<string, string> {
  const files: Record<string, string> = {};
  let seed = 12345;
  for (let i = 0; i < count; i++) {
    let text = '';
    while (text.length < bytes) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      text += seed.toString(16).padStart(8, '0');
    }
    files[`d${Math.floor(i / 100)}/f${i}.txt`] = `${text.slice(0, bytes)}\n`;
  }
  return files;
}
