/**
 * The files the supervisor and SupervisedRunner share: the spec the runner writes for the supervisor,
 * the status file the supervisor keeps, and the cut marker at the top of a capped log. Both sides
 * import this module, so the formats cannot drift apart. Plain Node: no vscode.
 */
import * as fs from 'node:fs';
import type { SandboxLaunch } from '../core/sandbox';

/** The supervisor's one argument when its spec's path comes on stdin (SupervisedRunner.prepare). */
export const specOnStdin = '--spec-on-stdin';

export interface SupervisorSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Written to the agent's standard input, then closed; without it the input is empty. */
  readonly stdin?: string;
  /** The agent's whole environment; the supervisor's own is not merged in. */
  readonly env: Readonly<Record<string, string>>;
  readonly logPath: string;
  readonly statusPath: string;
  readonly maxLogBytes: number;
  readonly graceMs: number;
  /** After the agent exits, how long output still held open by children it left is read. Default 2000. */
  readonly drainMs?: number;
  /** A sandboxed agent: the supervisor makes its private folder and serves its proxy (node/sandbox/sandboxHost.ts). */
  readonly sandbox?: SandboxLaunch;
}

export interface StatusBase {
  readonly supervisorPid: number;
  readonly agentPid?: number;
  readonly logPath: string;
  readonly startedAt: number;
  /** The agent's working folder: a worktree an agent runs in is never taken for an orphan. */
  readonly cwd?: string;
  /** Linux: boot id and process start times, so that a reused pid is never taken for ours. */
  readonly bootId?: string;
  readonly supervisorStart?: string;
  readonly agentStart?: string;
}

/** Written by the launcher right after it spawned the supervisor, so that even a host dying at once leaves a trace. */
export interface StartingStatus extends StatusBase {
  readonly state: 'starting';
}

export interface RunningStatus extends StatusBase {
  readonly state: 'running';
  readonly agentPid: number;
}

export interface EndedStatus extends StatusBase {
  readonly state: 'ended';
  readonly exitCode?: number;
  readonly signal?: string;
  readonly error?: string;
  readonly endedAt: number;
  /** The supervisor was told to stop the agent. */
  readonly stopRequested?: boolean;
}

export type SupervisorStatus = StartingStatus | RunningStatus | EndedStatus;

// ---- Status file -------------------------------------------------------------------------------

/** Atomic: readers see the previous status or the new one, never half of one. */
export function writeStatusSync(statusPath: string, status: SupervisorStatus): void {
  const tmp = `${statusPath}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(status), { mode: 0o600 });
  fs.renameSync(tmp, statusPath);
}

export function parseStatus(text: string): SupervisorStatus | undefined {
  try {
    const value = JSON.parse(text) as Partial<SupervisorStatus> | null;
    const valid =
      value !== null &&
      typeof value === 'object' &&
      ['starting', 'running', 'ended'].includes(value.state as string) &&
      typeof value.supervisorPid === 'number' &&
      typeof value.logPath === 'string';
    return valid ? (value as SupervisorStatus) : undefined;
  } catch {
    return undefined;
  }
}

// ---- Log cut marker ----------------------------------------------------------------------------

/**
 * Where a log file begins in the agent's whole output. Log positions count every byte ever written
 * to the log, cut or not, so they stay valid across cuts: the byte after the marker is at `cut`.
 */
export interface LogOrigin {
  /** Bytes of older output cut from the front so far. */
  readonly cut: number;
  /** Length of the marker line at the top of the file (0 when nothing was cut). */
  readonly markerLength: number;
}

const markerPattern = /^\[parallel-agents\] (\d+) bytes of older output were cut here\n/;
const noCut: LogOrigin = { cut: 0, markerLength: 0 };

export function cutMarker(cut: number): string {
  return `[parallel-agents] ${cut} bytes of older output were cut here\n`;
}

/** Reads the marker at the top of an open log, if any. */
export function readLogOriginSync(fd: number): LogOrigin {
  const head = Buffer.alloc(128);
  const n = fs.readSync(fd, head, 0, head.length, 0);
  return parseLogOrigin(head.subarray(0, n));
}

export function parseLogOrigin(head: Buffer): LogOrigin {
  // latin1 maps bytes one to one, so the match length is a byte count.
  const match = markerPattern.exec(head.toString('latin1'));
  return match ? { cut: Number(match[1]), markerLength: match[0].length } : noCut;
}
