import * as vscode from 'vscode';
import {
  type AgentActivity,
  type AgentCheck,
  type AgentRecord,
  type AgentStatus,
  type FileChangeKind,
  finishedStatuses,
  isActive,
} from '../../core/agent';
import { changeStats } from '../../core/landing';
import { viewedCount } from '../../core/review';
import { elapsed, firstLine, formatDuration, statsText } from '../account/accountText';
import { storedErrorText, translate } from '../errorMessages';
import { runningClock } from './clock';
import { portsRow } from './portsText';
import { pausedLabel, pausedText, queuedText } from './quotaText';
import { sandboxRow } from './sandboxText';
import { budgetRow, overBudgetLabel, overBudgetText } from './budgetText';

const statusIcons: Record<AgentStatus, [icon: string, color?: string]> = {
  queued: ['clock', 'charts.yellow'],
  preparing: ['loading~spin', 'charts.blue'],
  running: ['sync~spin', 'charts.blue'],
  'waiting-for-input': ['question', 'charts.yellow'],
  succeeded: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  stopped: ['debug-stop', 'disabledForeground'],
  interrupted: ['warning', 'list.warningForeground'],
  'timed-out': ['watch', 'list.warningForeground'],
  'needs-permission': ['shield', 'list.warningForeground'],
  detached: ['debug-disconnect', 'list.warningForeground'],
  paused: ['debug-pause', 'charts.orange'],
  reviewed: ['eye', 'charts.purple'],
  merged: ['git-merge', 'charts.green'],
  discarded: ['trash', 'disabledForeground'],
};

export function statusIcon(status: AgentStatus): vscode.ThemeIcon {
  const [icon, color] = statusIcons[status];
  return new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
}

export function statusLabel(record: AgentRecord): string {
  switch (record.status) {
    case 'failed':
      return record.signal
        ? vscode.l10n.t('failed ({0})', record.signal)
        : record.exitCode !== undefined
          ? vscode.l10n.t('failed (exit {0})', record.exitCode)
          : statusText(record.status);
    case 'paused':
      return pausedLabel(record);
    case 'stopped':
      return overBudgetLabel(record) ?? statusText(record.status);
    default:
      return statusText(record.status);
  }
}

/** A status as the user reads it; ids such as `waiting-for-input` stay for context values and the API. */
export function statusText(status: AgentStatus): string {
  switch (status) {
    case 'queued':
      return vscode.l10n.t('queued');
    case 'preparing':
      return vscode.l10n.t('preparing');
    case 'running':
      return vscode.l10n.t('running');
    case 'waiting-for-input':
      return vscode.l10n.t('waiting for input');
    case 'succeeded':
      return vscode.l10n.t('succeeded');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'interrupted':
      return vscode.l10n.t('interrupted');
    case 'timed-out':
      return vscode.l10n.t('timed out');
    case 'needs-permission':
      return vscode.l10n.t('needs permission');
    case 'detached':
      return vscode.l10n.t('detached');
    case 'paused':
      return vscode.l10n.t('paused');
    case 'reviewed':
      return vscode.l10n.t('reviewed');
    case 'merged':
      return vscode.l10n.t('merged');
    case 'discarded':
      return vscode.l10n.t('discarded');
  }
}

export function changeKindText(kind: FileChangeKind): string {
  switch (kind) {
    case 'added':
      return vscode.l10n.t('added');
    case 'modified':
      return vscode.l10n.t('modified');
    case 'deleted':
      return vscode.l10n.t('deleted');
    case 'renamed':
      return vscode.l10n.t('renamed');
    case 'untracked':
      return vscode.l10n.t('untracked');
  }
}

const summaryLimit = 80;

/** The check's badge on the row: ✓ passed, ✗ failed, "check running", "check error". */
export function checkBadge(check: AgentCheck | undefined): string | undefined {
  switch (check?.state) {
    case undefined:
      return undefined;
    case 'passed':
      return vscode.l10n.t('✓ check');
    case 'failed':
      return vscode.l10n.t('✗ check');
    case 'running':
      return vscode.l10n.t('check running');
    case 'error':
      return vscode.l10n.t('check error');
  }
}

/** The check's line in the tooltip and the account: its command and how it ended. */
export function checkRow(check: AgentCheck | undefined): string | undefined {
  if (!check) {
    return undefined;
  }
  const command = check.command.join(' ');
  switch (check.state) {
    case 'passed':
      return vscode.l10n.t('{0} passed', command);
    case 'failed':
      return check.signal
        ? vscode.l10n.t('{0} failed ({1})', command, check.signal)
        : vscode.l10n.t('{0} failed (exit {1})', command, check.exitCode ?? '?');
    case 'running':
      return vscode.l10n.t('{0} running', command);
    case 'error':
      return check.error ? storedErrorText(check.error) : command;
  }
}

/** `queuePosition`: 1 for a queued agent that starts next (AgentManager.queuePosition). */
export function agentDescription(record: AgentRecord, now: number, queuePosition?: number): string {
  const badge = checkBadge(record.check);
  const took = elapsed(record, now);
  const clock = isActive(record.status) ? runningClock(took) : formatDuration(took);
  const status = queuePosition ? vscode.l10n.t('queued (#{0})', queuePosition) : statusLabel(record);
  const base = `${record.profile} · ${status}${badge ? ` · ${badge}` : ''} · ${clock}`;
  const activity = record.activity;
  if (record.mode === 'terminal' && record.status === 'running' && record.input !== 'tracked') {
    // VS Code cannot tell whether this terminal waits for input: say so rather than guess.
    return `${base} · ${vscode.l10n.t('input: unknown')}`;
  }
  if (isActive(record.status) && activity?.step) {
    return `${base} · ${activity.step}`;
  }
  const summary = resultSummary(record);
  const progress = reviewProgress(record);
  return [base, summary, progress].filter((part) => part !== undefined).join(' · ');
}

/** "3/8 viewed" once a file of a finished agent is viewed: how far its review has come. */
export function reviewProgress(record: AgentRecord): string | undefined {
  const { viewed, total } = viewedCount(record);
  return finishedStatuses.has(record.status) && viewed > 0 ? vscode.l10n.t('{0}/{1} viewed', viewed, total) : undefined;
}

/** A finished agent that changed no file (research, a question) is known by its answer: its first line. */
export function resultSummary(record: AgentRecord): string | undefined {
  const result = record.activity?.result;
  if (!result || record.changedFiles.length > 0 || !finishedStatuses.has(record.status)) {
    return undefined;
  }
  return firstLine(result, summaryLimit) ?? '';
}

/** Rows for what the CLI reported: step, turns, tokens, cost, denied tools. */
function activityRows(activity: AgentActivity | undefined): [string, string | undefined][] {
  if (!activity) {
    return [];
  }
  const tokens =
    activity.inputTokens !== undefined || activity.outputTokens !== undefined
      ? vscode.l10n.t(
          '{0} in, {1} out',
          (activity.inputTokens ?? 0).toLocaleString(),
          (activity.outputTokens ?? 0).toLocaleString(),
        )
      : undefined;
  return [
    [vscode.l10n.t('Step'), activity.step],
    [vscode.l10n.t('Turns'), activity.turns?.toString()],
    [vscode.l10n.t('Tokens'), tokens],
    [vscode.l10n.t('Cost'), activity.costUsd !== undefined ? `$${activity.costUsd.toFixed(4)}` : undefined],
    [vscode.l10n.t('Denied'), activity.denials?.join(', ')],
  ];
}

/** `extraRows`: more name/value rows after the record's own (the agent's cost, ui/agentsView/costText.ts). */
export function agentTooltip(
  record: AgentRecord,
  queuePosition?: number,
  extraRows: readonly [string, string | undefined][] = [],
): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${escape(record.title)}** — ${statusLabel(record)}\n\n`);
  md.appendCodeblock(record.prompt, 'text');
  (record.followUps ?? []).forEach((followUp, i) => {
    md.appendMarkdown(`${vscode.l10n.t('Follow-up {0}', i + 1)}:`);
    md.appendCodeblock(followUp, 'text');
  });
  const rows: [string, string | undefined][] = [
    [vscode.l10n.t('Profile'), record.profile],
    [vscode.l10n.t('Branch'), record.branch],
    [vscode.l10n.t('Worktree'), record.worktreePath],
    [vscode.l10n.t('Folder'), record.worktreePath ? undefined : record.cwd],
    [vscode.l10n.t('Base commit'), record.baseSha.slice(0, 12)],
    [vscode.l10n.t('Stacked on'), record.stackedOn?.title],
    [
      vscode.l10n.t('Duration'),
      record.startedAt !== undefined ? formatDuration(elapsed(record, Date.now())) : undefined,
    ],
    [
      vscode.l10n.t('Changes'),
      record.changedFiles.length > 0 ? statsText(changeStats(record.changedFiles), translate) : undefined,
    ],
    [vscode.l10n.t('Error'), errorText(record)],
    [vscode.l10n.t('Check'), checkRow(record.check)],
    [vscode.l10n.t('Ports'), portsRow(record)],
    [vscode.l10n.t('Sandbox'), sandboxRow(record)],
    [vscode.l10n.t('Budget'), budgetRow(record)],
    ...activityRows(record.activity),
    ...extraRows,
  ];
  for (const [name, value] of rows) {
    if (value) {
      md.appendMarkdown(`\n${name}: \`${value.replace(/`/g, "'")}\`  `);
    }
  }
  if (record.status === 'queued') {
    md.appendMarkdown(`\n\n$(clock) ${queuedText(record, queuePosition)}`);
  }
  for (const [icon, text] of [
    ['debug-pause', pausedText(record)],
    ['debug-stop', overBudgetText(record)],
  ]) {
    if (text) {
      md.appendMarkdown(`\n\n$(${icon}) ${escape(text)}`);
    }
  }
  if (record.status === 'needs-permission') {
    md.appendMarkdown(
      `\n\n$(shield) ${vscode.l10n.t('The agent was not allowed to run some tools, so its task may be unfinished. Send a follow-up, or give its profile the permissions it needs.')}`,
    );
  }
  if (record.activity?.result) {
    md.appendMarkdown(`\n\n${vscode.l10n.t('Result')}:`);
    md.appendCodeblock(record.activity.result, 'markdown');
  }
  return md;
}

/** A known reason or error code reads in the user's language; any other error is shown as it was recorded. */
export function errorText(record: AgentRecord): string | undefined {
  if (record.errorReason === 'diskFull') {
    return vscode.l10n.t(
      'The disk is full: the agent could not write its files. Free some space (or set parallelAgents.worktreeRoot to a folder on a disk with room), then send a follow-up or dispatch it again; its work so far is kept.',
    );
  }
  return record.error === undefined ? undefined : storedErrorText(record.error);
}

/** Text shown as itself in markdown (a title, a message holding one). */
export function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}

export const changeLetters: Record<FileChangeKind, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  untracked: 'U',
};

export const changeColors: Record<FileChangeKind, string> = {
  added: 'gitDecoration.addedResourceForeground',
  modified: 'gitDecoration.modifiedResourceForeground',
  deleted: 'gitDecoration.deletedResourceForeground',
  renamed: 'gitDecoration.renamedResourceForeground',
  untracked: 'gitDecoration.untrackedResourceForeground',
};
