/**
 * When an agent paused on a limit resumes: at the reset time its CLI gave (plus a margin for clocks
 * that disagree), or after a backoff of 1, 2, 4, 8, 16, then 30 minutes (capped) for each pause in a
 * row when it gave none. A run that hits the limit again right after a resume waits at least the
 * backoff of the pause before, so a reset time that is already past never spins. After
 * `maxQuotaPauses` pauses in a row the agent fails instead.
 */
import type { AgentRecord, QuotaPause } from '../agent';
import type { QuotaSignal } from '../clis';
import { storedLine } from '../errors';

export const firstBackoffMs = 60_000;
export const maxBackoffMs = 30 * 60_000;
/** Added to a reset time the CLI gave. */
export const resetMarginMs = 2_000;
/** Pauses in a row (about 4 hours of backoff) after which the agent fails rather than waits again. */
export const maxQuotaPauses = 12;

/** The wait after the `attempt`-th pause in a row (1-based) when the CLI gave no reset time. */
export function backoffMs(attempt: number): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(maxBackoffMs, firstBackoffMs * 2 ** Math.min(n - 1, 30));
}

/**
 * The pause a run that stopped on a limit starts. `previous` is the agent's last pause when this run
 * was its resume (status running with a `quota`): the count goes on from it.
 */
export function quotaPause(
  signal: QuotaSignal,
  provider: string,
  previous: QuotaPause | undefined,
  now: number,
): QuotaPause {
  const attempt = (previous?.attempt ?? 0) + 1;
  const floor = attempt > 1 ? now + backoffMs(attempt - 1) : now;
  const resumeAt =
    signal.resetAt !== undefined ? Math.max(signal.resetAt + resetMarginMs, floor) : now + backoffMs(attempt);
  const resetGiven = signal.resetAt !== undefined;
  return { provider, pausedAt: now, resumeAt, resetGiven, attempt, message: signal.message };
}

/** The follow-up a resume sends: the CLI continues its conversation (continueArgs) in the same worktree. */
export function resumePrompt(record: Pick<AgentRecord, 'quota'>): string {
  const why = record.quota?.resetGiven ? 'its limit has reset' : 'some time has passed';
  return [
    `Your previous run stopped on a rate or usage limit of the model provider; ${why}.`,
    'Continue your task from where you left off, in this same folder: keep the work already done',
    '(your files and commits so far), do not start over, and finish what remains.',
  ].join(' ');
}

/** The provider an agent counts against: the one recorded at dispatch, else its profile's name. */
export function recordProvider(record: Pick<AgentRecord, 'provider' | 'profile'>): string {
  return record.provider ?? record.profile;
}

/**
 * The status and pause fields a run's end writes: a limit hit pauses the agent (or fails it after
 * `maxQuotaPauses` in a row); any other end clears the pause count.
 */
export function quotaEnd(
  record: AgentRecord,
  end: { readonly status: AgentRecord['status']; readonly quota?: QuotaSignal; readonly error?: string },
  now: number,
): Pick<AgentRecord, 'status' | 'quota' | 'error' | 'resumeWaitingSince'> {
  // A wait for room (queueOrder.ts) ends with the run that followed it.
  const cleared = record.resumeWaitingSince === undefined ? {} : { resumeWaitingSince: undefined };
  if (end.status !== 'paused' || !end.quota) {
    return { status: end.status, quota: undefined, error: end.error, ...cleared };
  }
  const pause = quotaPause(end.quota, recordProvider(record), record.quota, now);
  if (pause.attempt > maxQuotaPauses) {
    const error = storedLine('agentQuotaGaveUp', { pauses: maxQuotaPauses, message: pause.message });
    return { status: 'failed', quota: undefined, error, ...cleared };
  }
  return { status: 'paused', quota: pause, error: undefined, ...cleared };
}
