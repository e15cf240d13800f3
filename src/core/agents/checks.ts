/**
 * The check command's pure parts: which argv checks an agent, what its end means for the record,
 * whether a check still speaks for the folder's content, and the follow-up Fix Failing Check sends.
 */
import type { AgentCheck, AgentRecord } from '../agent';
import type { Profile } from '../clis';
import { storedLine } from '../errors';
import type { ManagerSettings, ProcessExit } from '../ports';
import { type SetupEnd, commandText } from '../worktrees';

/** Bytes of the failing check's output sent to the agent (its end: where failures are reported). */
export const fixOutputBytes = 8 * 1024;

/** The agent's profile's `checkCommand` when it has one, else the setting; undefined when neither is set. */
export function checkCommandFor(
  record: Pick<AgentRecord, 'profile'>,
  profiles: readonly Profile[],
  settings: Pick<ManagerSettings, 'checkCommand'>,
): readonly string[] | undefined {
  const own = profiles.find((p) => p.name === record.profile)?.checkCommand;
  const argv = own && own.length > 0 ? own : settings.checkCommand;
  return argv && argv.length > 0 && argv[0].trim() !== '' ? argv : undefined;
}

/**
 * The check's fields once its process has ended: passed on exit 0, failed on another code or a
 * signal (a stopped check too), error when it could not start.
 */
export function endedCheck(check: AgentCheck, end: SetupEnd, endedAt: number): AgentCheck {
  const done = { ...check, endedAt };
  if (end.outcome === 'succeeded') {
    return { ...done, state: 'passed', exitCode: 0 };
  }
  const exit: ProcessExit = end.outcome === 'failed' ? end.exit : { signal: 'SIGTERM' };
  if (exit.error !== undefined) {
    const error = storedLine('checkCommandNotStarted', { command: commandText(check.command), error: exit.error });
    return { ...done, state: 'error', error };
  }
  return {
    ...done,
    state: 'failed',
    ...(exit.exitCode !== undefined ? { exitCode: exit.exitCode } : {}),
    ...(exit.signal !== undefined ? { signal: exit.signal } : {}),
  };
}

/**
 * What a check says about the folder now: `stale` when it passed or failed on other content than
 * `tree` (the folder's content tree now); undefined when no check ran.
 */
export type CheckVerdict = AgentCheck['state'] | 'stale';

export function checkVerdict(check: AgentCheck | undefined, tree: string | undefined): CheckVerdict | undefined {
  if (!check) {
    return undefined;
  }
  if ((check.state === 'passed' || check.state === 'failed') && check.tree !== tree) {
    return 'stale';
  }
  return check.state;
}

/**
 * The follow-up Fix Failing Check sends: the command, how it ended, and the end of its output
 * (`output`, cut to its last `fixOutputBytes` bytes at a line start when it can be).
 */
export function fixPrompt(check: AgentCheck, output: string, where = 'in this folder'): string {
  const tail = lastBytes(output.trimEnd(), fixOutputBytes);
  return [
    `The check command \`${commandText(check.command)}\` ${checkEnd(check)} ${where}.`,
    'Fix the code so that the check passes. The end of its output:',
    '',
    tail === '' ? '(no output)' : tail,
  ].join('\n');
}

/** How a failed check ended, e.g. "failed with exit code 1" or "was ended by SIGTERM". */
export function checkEnd(check: Pick<AgentCheck, 'signal' | 'exitCode'>): string {
  return check.signal !== undefined
    ? `was ended by ${check.signal}`
    : `failed with exit code ${check.exitCode ?? 'unknown'}`;
}

function lastBytes(text: string, max: number): string {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) {
    return text;
  }
  // A cut inside a character would leave U+FFFD: decode from the next character start.
  let start = bytes.length - max;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) {
    start++;
  }
  const cut = new TextDecoder().decode(bytes.subarray(start));
  const newline = cut.indexOf('\n');
  return newline >= 0 && newline < cut.length - 1 ? cut.slice(newline + 1) : cut;
}
