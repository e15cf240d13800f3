/**
 * The comparison of the candidates of a Best of N as a Markdown document: a table with one row per
 * candidate (status, files, +/−, check, duration, turns, tokens, cost), then each candidate's final
 * message and files. Free of `vscode`: `tr` translates (see account/accountText.ts).
 */
import type { AgentRecord } from '../../core/agent';
import { changeStats } from '../../core/landing';
import { l10n } from '../errorTexts/textTemplate';
import { elapsed, formatDuration, type Translate } from '../account/accountText';

/** What only the extension can say about one candidate, already in the user's language. */
export interface CandidateFacts {
  /** The status as the user reads it, e.g. "failed (exit 1)". */
  readonly status: string;
  /** The check's verdict, when a check ran. */
  readonly check?: string;
}

/** Beyond this many files per candidate its list stops with a count. */
export const maxCandidateFiles = 50;

export function compareMarkdown(
  candidates: readonly AgentRecord[],
  facts: (record: AgentRecord) => CandidateFacts,
  now: number,
  tr: Translate,
): string {
  const first = candidates[0];
  const title = first ? first.title.replace(/ \(\d+\/\d+\)$/, '') : '';
  const header = [
    '#',
    tr(l10n.t('Profile')),
    tr(l10n.t('Status')),
    tr(l10n.t('Files')),
    '+/−',
    tr(l10n.t('Check')),
    tr(l10n.t('Duration')),
    tr(l10n.t('Turns')),
    tr(l10n.t('Tokens')),
    tr(l10n.t('Cost')),
  ];
  const rows = candidates.map((r) => row(r, facts(r), now));
  return [
    `# ${tr(l10n.t('Best of {0}: {1}', candidates.length, title))}`,
    '',
    tableRow(header),
    tableRow(header.map(() => '---')),
    ...rows.map(tableRow),
    '',
    `_${tr(l10n.t('Pick merges one candidate and discards the others; their work is saved (Restore Agent).'))}_`,
    '',
    ...candidates.flatMap((r) => section(r, tr)),
  ].join('\n');
}

function row(r: AgentRecord, facts: CandidateFacts, now: number): string[] {
  const stats = changeStats(r.changedFiles);
  const a = r.activity;
  const tokens =
    a?.inputTokens !== undefined || a?.outputTokens !== undefined
      ? `${(a.inputTokens ?? 0).toLocaleString()} / ${(a.outputTokens ?? 0).toLocaleString()}`
      : '';
  return [
    `${r.bestOf?.index ?? '?'}/${r.bestOf?.of ?? '?'}`,
    r.profile,
    facts.status,
    String(stats.files),
    stats.files === stats.uncounted ? '' : `+${stats.added} −${stats.removed}`,
    facts.check ?? '',
    formatDuration(elapsed(r, now)),
    a?.turns?.toString() ?? '',
    tokens,
    a?.costUsd !== undefined ? `$${a.costUsd.toFixed(4)}` : '',
  ];
}

function section(r: AgentRecord, tr: Translate): string[] {
  const files = r.changedFiles.slice(0, maxCandidateFiles).map((f) => {
    const lines = f.added !== undefined && f.removed !== undefined ? ` +${f.added} −${f.removed}` : '';
    return `- ${f.kind} \`${f.path.replace(/`/g, "'")}\`${lines}`;
  });
  const more = r.changedFiles.length - files.length;
  const message = r.activity?.result;
  return [
    `## ${r.bestOf?.index ?? '?'}/${r.bestOf?.of ?? '?'} · ${r.profile} · ${r.title}`,
    '',
    `### ${tr(l10n.t('Final message'))}`,
    '',
    message !== undefined ? quoted(message) : `_${tr(l10n.t('No final message.'))}_`,
    '',
    `### ${tr(l10n.t('Files'))}`,
    '',
    ...(files.length > 0 ? files : [`_${tr(l10n.t('No changed files.'))}_`]),
    ...(more > 0 ? [`- ${tr(l10n.t('… and {0} more', more))}`] : []),
    '',
  ];
}

/** A cell never breaks the table: pipes escaped, line breaks as spaces. */
function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ')).join(' | ')} |`;
}

/** The final message as a block quote: its headings cannot take over the document's. */
function quoted(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => `> ${line}`)
    .join('\n');
}
