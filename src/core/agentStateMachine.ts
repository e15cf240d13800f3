import type { AgentStatus } from './agent';
import { AgentError } from './errors';

/**
 * Status only moves forward. "interrupted" marks a run cut by a window reload;
 * "discarded" is reachable from every non-active state.
 */
const transitions: Record<AgentStatus, readonly AgentStatus[]> = {
  queued: ['preparing', 'stopped', 'failed', 'interrupted'],
  preparing: ['running', 'failed', 'stopped', 'interrupted'],
  running: ['waiting-for-input', 'succeeded', 'failed', 'stopped', 'interrupted'],
  'waiting-for-input': ['running', 'succeeded', 'failed', 'stopped', 'interrupted'],
  succeeded: ['reviewed', 'merged', 'discarded'],
  failed: ['reviewed', 'merged', 'discarded'],
  stopped: ['reviewed', 'merged', 'discarded'],
  interrupted: ['reviewed', 'merged', 'discarded'],
  reviewed: ['merged', 'discarded'],
  merged: ['discarded'],
  discarded: [],
};

export function canTransition(from: AgentStatus, to: AgentStatus): boolean {
  return transitions[from].includes(to);
}

export function assertTransition(from: AgentStatus, to: AgentStatus): void {
  if (!canTransition(from, to)) {
    throw new AgentError('invalidTransition', `An agent cannot go from "${from}" to "${to}".`);
  }
}

export function allStatuses(): AgentStatus[] {
  return Object.keys(transitions) as AgentStatus[];
}
