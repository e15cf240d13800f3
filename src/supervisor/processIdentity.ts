/**
 * Whether a pid still names the process we recorded. Pids are reused, so on Linux a process is
 * identified by the boot id together with its start time; elsewhere a live pid is taken at its word.
 */
import * as fs from 'node:fs';

const isLinux = process.platform === 'linux';

let cachedBootId: string | undefined | null = null;

export function bootId(): string | undefined {
  if (cachedBootId === null) {
    try {
      cachedBootId = isLinux ? fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() : undefined;
    } catch {
      cachedBootId = undefined;
    }
  }
  return cachedBootId;
}

/** Fields of /proc/<pid>/stat after the command name: state ppid pgrp ...; undefined if unreadable. */
export function procStat(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Linux: the process's start time in clock ticks since boot (with the boot id, its identity). */
export function processStart(pid: number): string | undefined {
  return isLinux ? procStat(pid)?.[19] : undefined;
}

/** Alive, not a zombie, and (when `start` is known) the very process that started then. */
export function pidAlive(pid: number, start?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') {
      return false;
    }
  }
  if (!isLinux) {
    return true;
  }
  const fields = procStat(pid);
  return fields !== undefined && fields[0] !== 'Z' && (start === undefined || fields[19] === start);
}
