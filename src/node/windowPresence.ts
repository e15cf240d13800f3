/**
 * Which windows are still open, told by their processes: a window is its extension host process
 * (host, pid, and on Linux the boot id and the process's start time, so a later process that got
 * the same pid is not taken for it; elsewhere a live pid is taken at its word). Plan services
 * within this very process are told apart by their instance, open until disposed.
 */
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import type { WindowId } from '../core/plans';
import type { WindowPresence } from '../core/ports';
import type { Disposable } from '../util/event';
import { bootId, pidAlive, processStart } from '../supervisor/processIdentity';

/** The instances of this process not disposed yet. */
const openHere = new Set<string>();

/** The identity of process `pid` on this host, as a window that `instance` names. */
export function processWindow(pid: number, instance: string): WindowId {
  const start = processStart(pid);
  const boot = bootId();
  return {
    host: os.hostname(),
    pid,
    ...(start === undefined ? {} : { start }),
    ...(boot === undefined ? {} : { boot }),
    instance,
  };
}

export class NodeWindowPresence implements WindowPresence, Disposable {
  readonly self: WindowId;

  /** `self`: this process with a new instance, unless told (a test plays a window by another process). */
  constructor(self?: WindowId) {
    this.self = self ?? processWindow(process.pid, randomBytes(6).toString('hex'));
    openHere.add(this.self.instance);
  }

  isAlive(window: WindowId): boolean {
    if (window.host !== os.hostname()) {
      // Its process cannot be checked from here: it counts as open, so two windows never drive one run.
      return true;
    }
    const boot = bootId();
    if (window.boot !== undefined && boot !== undefined && window.boot !== boot) {
      return false;
    }
    if (window.pid === process.pid && (window.start === undefined || window.start === processStart(process.pid))) {
      return openHere.has(window.instance);
    }
    return pidAlive(window.pid, window.start);
  }

  dispose(): void {
    openHere.delete(this.self.instance);
  }
}
