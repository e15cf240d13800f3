/**
 * Who ran an agent's folder when: each run (the first, each follow-up, each Continue with Another
 * Agent) appended with its profile and start, its end filled in when it ends. And the prompt that
 * hands a finished agent's folder to another profile.
 */
import type { AgentRecord, AgentRun } from '../agent';
import { agentCost } from './budgets';
import { setupRunId } from '../worktrees';

/** The supervisor runs a reviewer (Review with Agent) under its own id, apart from the agent's runs. */
export function reviewRunId(agentId: string): string {
  return `${agentId}.review`;
}

/** The supervisor runs the check under its own id, apart from the agent's runs. */
export function checkRunId(agentId: string): string {
  return `${agentId}.check`;
}

/** Every run of an agent the headless runner keeps apart: its own, its setup's, check's and reviewer's. */
export function runIdsOf(agentId: string): string[] {
  return [agentId, setupRunId(agentId), checkRunId(agentId), reviewRunId(agentId)];
}

/** What a new run of a finished agent clears of the last one's end. */
export const lastRunCleared = {
  exitCode: undefined,
  signal: undefined,
  error: undefined,
  errorReason: undefined,
  endedAt: undefined,
} as const;

/** At most this many runs are kept, the latest. */
const keptRuns = 50;

export function runStarted(record: AgentRecord, profile: string, at: number): { runs: readonly AgentRun[] } {
  return { runs: [...(record.runs ?? []), { profile, startedAt: at }].slice(-keptRuns) };
}

/**
 * What a new run of `record` (as it is now) writes when it starts: no progress yet (the last run's
 * answer is in the log, its cost added to spentUsd), no over-budget mark, and the run appended.
 */
export function runStartPatch(record: AgentRecord, profile: string, at: number): Partial<AgentRecord> {
  const spent = agentCost(record);
  return {
    ...runStarted(record, profile, at),
    status: 'running',
    startedAt: at,
    activity: undefined,
    ...(spent > 0 ? { spentUsd: spent } : {}),
    overBudget: undefined,
    ...(record.mode === 'terminal' ? { input: 'unknown' as const, terminalPid: undefined } : {}),
  };
}

/** The last run ended at `at`; nothing changes when it has ended already (an adopted run's second end). */
export function runEnded(record: AgentRecord, at: number): { runs?: readonly AgentRun[] } {
  const runs = record.runs ?? [];
  const last = runs[runs.length - 1];
  if (!last || last.endedAt !== undefined) {
    return {};
  }
  return { runs: [...runs.slice(0, -1), { ...last, endedAt: at }] };
}

/**
 * Continue with Another Agent: the original task, that the work so far is in the folder, and what
 * the person adds. Its lines are the task's own, so the new CLI (the demo agent too) reads them as written.
 */
export function continuePrompt(record: AgentRecord, note?: string): string {
  const extra = note?.trim();
  return [
    record.prompt,
    '',
    `Continue from the current state of the worktree: another agent (${record.profile}) began this task here; ` +
      'its work so far is in the files. Finish the task.',
    ...(extra ? ['', extra] : []),
  ].join('\n');
}
