/**
 * An agent's account in short: how long its run took, what its change set adds up to ("3 files,
 * +12 −4"), and the first line of its final message. Free of `vscode`: texts are templates that the
 * caller's `tr` translates (vscode.l10n.t in the extension, English in plain tests).
 */
import type { AgentRecord } from '../../core/agent';
import { type ChangeStats, changeStats } from '../../core/landing';
import { l10n, type ErrorText } from '../errorTexts/textTemplate';

/** Puts a template in the user's language with its placeholders filled. */
export type Translate = (text: ErrorText) => string;

/** "12s", "2m 10s", "1h 05m". */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m ${String(s).padStart(2, '0')}s` : `${s}s`;
}

/** The run's duration: from its start (or the record's creation) to its end, or to `now` while it runs. */
export function elapsed(record: Pick<AgentRecord, 'startedAt' | 'createdAt' | 'endedAt'>, now: number): number {
  return (record.endedAt ?? now) - (record.startedAt ?? record.createdAt);
}

/** "3 files, +12 −4"; "1 file"; "+12 −4 (1 not counted)" when some text file's lines are unknown. */
export function statsText(stats: ChangeStats, tr: Translate): string {
  const files = tr(stats.files === 1 ? l10n.t('1 file') : l10n.t('{0} files', stats.files));
  if (stats.files === 0 || stats.uncounted === stats.files) {
    return files;
  }
  const lines = `+${stats.added} −${stats.removed}`;
  const uncounted = stats.uncounted > 0 ? ` ${tr(l10n.t('({0} not counted)', stats.uncounted))}` : '';
  return `${files}, ${lines}${uncounted}`;
}

/** "3 files, +12 −4, 2m 10s": the agent's changes and how long its run took. */
export function finishStats(record: AgentRecord, now: number, tr: Translate): string {
  return `${statsText(changeStats(record.changedFiles), tr)}, ${formatDuration(elapsed(record, now))}`;
}

/** The first non-blank line of `text`, cut to `limit` characters with an ellipsis; undefined when there is none. */
export function firstLine(text: string | undefined, limit: number): string | undefined {
  const line = text
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) {
    return undefined;
  }
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

/** How much of the final message's first line the notification of an agent's end shows. */
export const saidLimit = 120;

/** "Agent "X" finished — 3 files, +12 −4, 2m 10s: <the first line of its final message>". */
export function finishedText(record: AgentRecord, now: number, tr: Translate): string {
  const stats = finishStats(record, now, tr);
  const said = firstLine(record.activity?.result, saidLimit);
  return tr(
    said === undefined
      ? l10n.t('Agent "{0}" finished — {1}', record.title, stats)
      : l10n.t('Agent "{0}" finished — {1}: {2}', record.title, stats, said),
  );
}

/**
 * The notice of an agent that went from running to paused on its provider's limit; `time` is its
 * resume time as the user reads it. Undefined for a record that is not paused on a limit, or a
 * later pause in a row (the user was told at the first).
 */
export function pausedNoticeText(record: AgentRecord, time: string, tr: Translate): string | undefined {
  const quota = record.status === 'paused' ? record.quota : undefined;
  if (!quota || quota.attempt > 1) {
    return undefined;
  }
  return tr(
    quota.resetGiven
      ? l10n.t(
          'Agent "{0}" paused on the limit of {1}; it resumes by itself at {2}',
          record.title,
          quota.provider,
          time,
        )
      : l10n.t(
          'Agent "{0}" paused on the limit of {1}; it tries again by itself at {2}',
          record.title,
          quota.provider,
          time,
        ),
  );
}
