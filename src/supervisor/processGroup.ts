/** The agent runs in a process group of its own, so that ending it also ends the children it started. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { delay } from '../util/async';
import { pidAlive, procStat } from './processIdentity';

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';

/** True while a live (not zombie) process belongs to process group `pgid`. */
export function groupAlive(pgid: number): boolean {
  if (isWindows) {
    return pidAlive(pgid);
  }
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // kill(-pgid, 0) also succeeds for zombies, which an init that does not reap leaves behind.
  return isLinux ? linuxGroupHasLiveProcess(pgid) : true;
}

function linuxGroupHasLiveProcess(pgid: number): boolean {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return true;
  }
  return entries.some((entry) => {
    const fields = /^\d+$/.test(entry) ? procStat(Number(entry)) : undefined;
    return fields !== undefined && Number(fields[2]) === pgid && fields[0] !== 'Z';
  });
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    if (isWindows) {
      spawn('taskkill', ['/pid', String(pgid), '/T', '/F'], { stdio: 'ignore', windowsHide: true, shell: false }).on(
        'error',
        () => undefined,
      );
    } else {
      process.kill(-pgid, signal);
    }
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * SIGTERM to the group, SIGKILL to what is left after `graceMs`; resolves when the group is gone
 * (or 2 s after SIGKILL).
 */
export async function endGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await delay(50);
  }
  if (groupAlive(pgid)) {
    signalGroup(pgid, 'SIGKILL');
    const killDeadline = Date.now() + 2000;
    while (groupAlive(pgid) && Date.now() < killDeadline) {
      await delay(25);
    }
  }
}
