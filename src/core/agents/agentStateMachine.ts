import type { AgentStatus } from '../agent';
import { AgentError } from '../errors';

/**
 * Status moves forward; the one way back to "running" is a follow-up, a new run in the same
 * worktree, and the one way out of "discarded" is Restore Agent. "interrupted" marks a run cut by
 * a window reload; "detached" a terminal agent whose terminal did not come back after one (its
 * process may still run unseen, so it is not "interrupted"; Reopen in Terminal is its way back).
 */
const transitions: Record<AgentStatus, readonly AgentStatus[]> = {
  queued: ['preparing', 'stopped', 'failed', 'interrupted'],
  preparing: ['running', 'failed', 'stopped', 'interrupted'],
  running: [
    'waiting-for-input',
    'succeeded',
    'failed',
    'stopped',
    'interrupted',
    'timed-out',
    'needs-permission',
    'detached',
    'paused',
  ],
  'waiting-for-input': [
    'running',
    'succeeded',
    'failed',
    'stopped',
    'interrupted',
    'timed-out',
    'needs-permission',
    'detached',
    'paused',
  ],
  succeeded: ['running', 'reviewed', 'merged', 'discarded'],
  failed: ['running', 'reviewed', 'merged', 'discarded'],
  stopped: ['running', 'reviewed', 'merged', 'discarded'],
  interrupted: ['running', 'reviewed', 'merged', 'discarded'],
  'timed-out': ['running', 'reviewed', 'merged', 'discarded'],
  // A run whose CLI was denied tools: finished like the others, reviewable, and a follow-up may grant more.
  'needs-permission': ['running', 'reviewed', 'merged', 'discarded'],
  detached: ['running', 'reviewed', 'merged', 'discarded'],
  // Its resume is a follow-up (running); Stop ends the wait (stopped); Discard keeps its work saved.
  paused: ['running', 'stopped', 'failed', 'discarded'],
  reviewed: ['running', 'merged', 'discarded'],
  merged: ['discarded'],
  // Restore Agent gives a discarded agent back the status it had.
  discarded: [
    'succeeded',
    'failed',
    'stopped',
    'interrupted',
    'timed-out',
    'needs-permission',
    'detached',
    'reviewed',
    'merged',
  ],
};

export function canTransition(from: AgentStatus, to: AgentStatus): boolean {
  return transitions[from].includes(to);
}

export function assertTransition(from: AgentStatus, to: AgentStatus): void {
  if (!canTransition(from, to)) {
    throw new AgentError('invalidTransition', { from, to });
  }
}

export function allStatuses(): AgentStatus[] {
  return Object.keys(transitions) as AgentStatus[];
}
