import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';

/** A resume time as the row shows it: the time of day, with the date when it is not within the next 20 hours. */
export function resumeTime(at: number, now: number): string {
  const soon = at - now < 20 * 3_600_000;
  return new Date(at).toLocaleString(undefined, {
    ...(soon ? {} : { month: 'short', day: 'numeric' }),
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** The status of a paused agent on its row: "paused: quota (resets 15:04)", or "(retry 15:04)" after a backoff. */
export function pausedLabel(record: AgentRecord, now = Date.now()): string {
  const quota = record.quota;
  if (!quota) {
    return vscode.l10n.t('paused: quota');
  }
  if (record.resumeWaitingSince !== undefined) {
    return vscode.l10n.t('paused: quota (waiting for room)');
  }
  const time = resumeTime(quota.resumeAt, now);
  return quota.resetGiven
    ? vscode.l10n.t('paused: quota (resets {0})', time)
    : vscode.l10n.t('paused: quota (retry {0})', time);
}

/** The hover's paragraph on a paused agent: what the CLI said, when it resumes and how. */
export function pausedText(record: AgentRecord, now = Date.now()): string | undefined {
  const quota = record.quota;
  if (record.status !== 'paused' || !quota) {
    return undefined;
  }
  const text = vscode.l10n.t(
    'Paused on a limit of {0}: "{1}". It resumes by itself at {2} as a follow-up in the same worktree (pause {3} in a row); its work so far is kept, and queued agents of {0} wait meanwhile. Stop or Discard cancels the resume.',
    quota.provider,
    quota.message,
    resumeTime(quota.resumeAt, now),
    quota.attempt,
  );
  const waiting =
    record.resumeWaitingSince === undefined
      ? ''
      : ` ${vscode.l10n.t(
          'Its resume time came while parallelAgents.maxConcurrentAgents or parallelAgents.providerLimits left no room: it resumes before any queued agent as soon as one ends.',
        )}`;
  return `${text}${waiting}`;
}

/** Why a queued agent waits for its provider rather than the repository's cap; undefined for the cap. */
export function providerQueuedText(record: AgentRecord): string | undefined {
  const provider = record.provider ?? record.profile;
  switch (record.queuedFor) {
    case 'provider':
      return vscode.l10n.t(
        'Queued: {0} agents are running as many as parallelAgents.providerLimits allows. It starts at its base commit when one of them ends; Stop cancels it.',
        provider,
      );
    case 'quota':
      return vscode.l10n.t(
        'Queued: an agent of {0} is paused on its limit. It starts at its base commit once that agent resumes (and there is room); Stop cancels it.',
        provider,
      );
    default:
      return undefined;
  }
}

/** Why a queued agent waits, and what happens next. */
export function queuedText(record: AgentRecord, position: number | undefined): string {
  const why =
    providerQueuedText(record) ??
    vscode.l10n.t(
      'Queued: {0} agents of this repository were running (parallelAgents.maxConcurrentAgents). It starts at its base commit when one ends; Stop cancels it.',
      record.queuedAtCap ?? '?',
    );
  return position ? `${why} ${vscode.l10n.t('Place in the queue: {0}.', position)}` : why;
}
