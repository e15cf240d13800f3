/**
 * Whether a terminal agent waits for input, from what VS Code can tell. Shell integration is the one
 * signal trusted here, and not for a terminal revived after a reload (VS Code reports integration
 * there that is not really running). With no trustworthy signal the answer is "unknown": never a guess.
 */
import type { AgentRecord } from '../agent';

export type InputState = 'waiting' | 'busy' | 'unknown';

export interface TerminalSignals {
  /** VS Code reports shell integration for the terminal. */
  readonly shellIntegration: boolean;
  /** The terminal was revived by VS Code after a reload. */
  readonly revived: boolean;
  /** Commands started in the terminal (shell integration's executions) that have not ended. */
  readonly runningCommands: number;
}

export function inputState(signals: TerminalSignals): InputState {
  if (!signals.shellIntegration || signals.revived) {
    return 'unknown';
  }
  return signals.runningCommands > 0 ? 'busy' : 'waiting';
}

/** The record change an input state makes to an agent that is running; none for any other status. */
export function inputPatch(record: Pick<AgentRecord, 'status'>, state: InputState): Partial<AgentRecord> | undefined {
  if (record.status !== 'running' && record.status !== 'waiting-for-input') {
    return undefined;
  }
  if (state === 'unknown') {
    // Unknown is not "running for sure" either; it leaves a known wait only through a real signal.
    return { status: 'running', input: 'unknown' };
  }
  return { status: state === 'waiting' ? 'waiting-for-input' : 'running', input: 'tracked' };
}
