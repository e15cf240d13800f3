/** Who ran an agent's folder when (AgentRecord.runs), as the row's tooltip shows it. */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';

function clock(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** One tooltip row, `demo 10:02:01–10:03:15, codex 10:05:00–…`; none for a record without runs. */
export function runsRow(record: AgentRecord): [string, string | undefined] {
  const runs = record.runs ?? [];
  const text = runs
    .map((run) => `${run.profile} ${clock(run.startedAt)}–${run.endedAt !== undefined ? clock(run.endedAt) : '…'}`)
    .join(', ');
  return [vscode.l10n.t('Runs'), text || undefined];
}
