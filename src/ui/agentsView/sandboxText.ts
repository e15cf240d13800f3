/** A sandboxed agent on its row: "sandboxed" in the description, its policy in the tooltip. */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';

export function sandboxBadge(record: AgentRecord): string | undefined {
  return record.sandbox ? `🔒 ${vscode.l10n.t('sandboxed')}` : undefined;
}

/** The policy in one line: what it may write, what it cannot read, which hosts it reaches. */
export function sandboxRow(record: AgentRecord): string | undefined {
  const policy = record.sandbox;
  if (!policy) {
    return undefined;
  }
  const writable = ['worktree', 'git objects/refs/logs', 'private temp', ...(policy.writablePaths ?? [])].join(', ');
  const hosts = policy.allowedHosts.length > 0 ? policy.allowedHosts.join(', ') : vscode.l10n.t('none');
  return vscode.l10n.t(
    'auto-approve on; writes only: {0}; credential stores (~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc…) hidden; network only to: {1}',
    writable,
    hosts,
  );
}
