import * as vscode from 'vscode';
import type { AgentRecord, AgentStatus, FileChangeKind } from '../../core/agent';

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

export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m ${String(s).padStart(2, '0')}s` : `${s}s`;
}

export function elapsed(record: AgentRecord, now: number): number {
  const start = record.startedAt ?? record.createdAt;
  return (record.endedAt ?? now) - start;
}

export function agentDescription(record: AgentRecord, now: number): string {
  return `${record.profile} · ${statusLabel(record)} · ${formatElapsed(elapsed(record, now))}`;
}

export function agentTooltip(record: AgentRecord): vscode.MarkdownString {
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
    [vscode.l10n.t('Error'), record.error],
  ];
  for (const [name, value] of rows) {
    if (value) {
      md.appendMarkdown(`\n${name}: \`${value.replace(/`/g, "'")}\`  `);
    }
  }
  return md;
}

function escape(text: string): string {
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
