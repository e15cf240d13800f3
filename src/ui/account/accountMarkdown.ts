/**
 * The agent's account as a Markdown document, shown first in its review: what it says it did (its
 * final message) beside what it did (status, duration, changes, check, usage, its files, viewed
 * or not) and what it was asked. Free of `vscode`: `tr` translates (see accountText.ts).
 */
import { type AgentRecord, type ChangedFile, isActive } from '../../core/agent';
import { changeStats } from '../../core/landing';
import { isViewed, viewedCount } from '../../core/review';
import { l10n } from '../errorTexts/textTemplate';
import { elapsed, formatDuration, statsText, type Translate } from './accountText';

/** What the document shows that only the extension can say, already in the user's language. */
export interface AccountFacts {
  readonly now: number;
  /** The status as the user reads it, e.g. "failed (exit 1)". */
  readonly status: string;
  /** The check's command and verdict (stale included), when a check ran. */
  readonly check?: string;
  /** Why the run failed, when it says. */
  readonly error?: string;
}

/** Beyond this many files the list stops with a count (the diffs below list them all). */
export const maxFileRows = 200;

const letters: Record<ChangedFile['kind'], string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  untracked: 'U',
};

export function accountMarkdown(record: AgentRecord, facts: AccountFacts, tr: Translate): string {
  return [
    `# ${tr(l10n.t("Agent's account: {0}", record.title))}`,
    '',
    ...summary(record, facts, tr).map(([name, value]) => `- **${name}:** ${value}`),
    '',
    `## ${tr(l10n.t('Final message'))}`,
    '',
    finalMessage(record, tr),
    '',
    ...files(record, tr),
    `## ${tr(l10n.t('Task'))}`,
    '',
    ...fenced(record.prompt),
    ...(record.followUps ?? []).flatMap((followUp, i) => [
      '',
      `${tr(l10n.t('Follow-up {0}', i + 1))}:`,
      '',
      ...fenced(followUp),
    ]),
    '',
  ].join('\n');
}

/** The rows at the top: only those with something to say. */
function summary(record: AgentRecord, facts: AccountFacts, tr: Translate): [string, string][] {
  const activity = record.activity;
  const { viewed, total } = viewedCount(record);
  const tokens =
    activity?.inputTokens !== undefined || activity?.outputTokens !== undefined
      ? tr(
          l10n.t(
            '{0} in, {1} out',
            (activity.inputTokens ?? 0).toLocaleString(),
            (activity.outputTokens ?? 0).toLocaleString(),
          ),
        )
      : undefined;
  const rows: [string, string | undefined][] = [
    [tr(l10n.t('Status')), facts.status],
    [tr(l10n.t('Profile')), record.profile],
    [tr(l10n.t('Duration')), formatDuration(elapsed(record, facts.now))],
    [tr(l10n.t('Changes')), statsText(changeStats(record.changedFiles), tr)],
    [tr(l10n.t('Reviewed')), total > 0 ? tr(l10n.t('{0} of {1} files viewed', viewed, total)) : undefined],
    [tr(l10n.t('Check')), facts.check],
    [tr(l10n.t('Error')), facts.error],
    [tr(l10n.t('Turns')), activity?.turns?.toString()],
    [tr(l10n.t('Tokens')), tokens],
    [tr(l10n.t('Cost')), activity?.costUsd !== undefined ? `$${activity.costUsd.toFixed(4)}` : undefined],
    [tr(l10n.t('Denied')), activity?.denials?.join(', ')],
    [tr(l10n.t('Branch')), record.branch],
  ];
  return rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '');
}

function finalMessage(record: AgentRecord, tr: Translate): string {
  const result = record.activity?.result;
  if (result !== undefined) {
    return result;
  }
  const why = isActive(record.status)
    ? l10n.t('The agent is still working: its final message comes when it ends.')
    : l10n.t('No final message: the CLI reported none, or its profile has no output format to read it from.');
  return `_${tr(why)}_`;
}

function files(record: AgentRecord, tr: Translate): string[] {
  const list = record.changedFiles;
  if (list.length === 0) {
    return [];
  }
  const rows = list.slice(0, maxFileRows).map((file) => {
    const where = file.oldPath ? `${code(file.oldPath)} → ${code(file.path)}` : code(file.path);
    const lines =
      file.added !== undefined && file.removed !== undefined
        ? ` +${file.added} −${file.removed}`
        : file.binary
          ? ` ${tr(l10n.t('(binary)'))}`
          : '';
    const viewed = isViewed(record, file.path) ? ` ✓ ${tr(l10n.t('Viewed'))}` : '';
    return `- ${letters[file.kind]} ${where}${lines}${viewed}`;
  });
  const more = list.length - rows.length;
  return [
    `## ${tr(l10n.t('Files'))}`,
    '',
    ...rows,
    ...(more > 0 ? [`- ${tr(l10n.t('… and {0} more', more))}`] : []),
    '',
  ];
}

/** Inline code that the text's own backticks cannot end. */
function code(text: string): string {
  const fence = '`'.repeat(longestRun(text) + 1);
  return text.includes('`') ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A fenced block that the text's own backticks cannot close. */
function fenced(text: string): string[] {
  const fence = '`'.repeat(Math.max(3, longestRun(text) + 1));
  return [`${fence}text`, text, fence];
}

function longestRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
}
