/**
 * What the runner concludes from a status file the supervisor wrote: is it alive, is the agent
 * still ours, how did it end.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProcessExit } from '../core/ports';
import { groupAlive } from '../supervisor/processGroup';
import { bootId, pidAlive } from '../supervisor/processIdentity';
import { type StatusBase, type SupervisorStatus, parseStatus } from '../supervisor/protocol';

export async function readStatus(statusPath: string): Promise<SupervisorStatus | undefined> {
  try {
    return parseStatus(await fs.promises.readFile(statusPath, 'utf8'));
  } catch {
    return undefined;
  }
}

export function supervisorAlive(status: SupervisorStatus): boolean {
  return sameBoot(status) && pidAlive(status.supervisorPid, status.supervisorStart);
}

/** What names an agent's process group in a status: its leader's pid and start, and the boot. */
export type AgentGroup = Pick<StatusBase, 'agentPid' | 'agentStart' | 'bootId'>;

/**
 * The agent's process group while something of it is alive and it is still ours: same boot, and a
 * live leader is the very process the supervisor started (a group id is not reused while in use).
 */
export function ownGroup(status: AgentGroup | undefined): number | undefined {
  const pid = status?.agentPid;
  if (pid === undefined || !sameBoot(status) || (pidAlive(pid) && !pidAlive(pid, status?.agentStart))) {
    return undefined;
  }
  return groupAlive(pid) ? pid : undefined;
}

/**
 * A live process of a run that has not ended: its agent when that very process still runs, else
 * its supervisor when that one does; undefined when neither does.
 */
export function livePid(status: SupervisorStatus): number | undefined {
  if (status.state === 'ended' || !sameBoot(status)) {
    return undefined;
  }
  if (status.agentPid !== undefined && pidAlive(status.agentPid, status.agentStart)) {
    return status.agentPid;
  }
  return pidAlive(status.supervisorPid, status.supervisorStart) ? status.supervisorPid : undefined;
}

/** Pids recorded before a reboot name other processes now. */
function sameBoot(status: Pick<StatusBase, 'bootId'> | undefined): boolean {
  return status?.bootId === undefined || status.bootId === bootId();
}

export function toProcessExit(status: SupervisorStatus): ProcessExit {
  if (status.state !== 'ended') {
    return { error: 'supervisor lost' };
  }
  const stop = status.stopRequested ? { stopRequested: true } : {};
  if (status.error !== undefined) {
    return { error: status.error, ...stop };
  }
  if (status.signal !== undefined) {
    return { signal: status.signal, ...stop };
  }
  return typeof status.exitCode === 'number'
    ? { exitCode: status.exitCode, ...stop }
    : { error: 'the agent ended without an exit status', ...stop };
}

/**
 * Watches the status file through its folder (it is replaced by a rename on every write); `failed`
 * when watching is not possible or stops working. Undefined when it could not start.
 */
export function watchStatusFile(
  statusPath: string,
  on: { readonly changed: () => void; readonly failed: () => void },
): fs.FSWatcher | undefined {
  const statusFile = path.basename(statusPath);
  try {
    const watcher = fs.watch(path.dirname(statusPath), { persistent: false }, (_event, name) => {
      if (name === null || name === statusFile) {
        on.changed();
      }
    });
    watcher.on('error', on.failed);
    return watcher;
  } catch {
    on.failed();
    return undefined;
  }
}
