import * as vscode from 'vscode';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import { AgentError } from '../../core/errors';
import { repoRelativePath } from '../../core/landing';
import { baseName, joinPath } from '../../util/paths';
import { BaseContentProvider } from './baseContentProvider';

/** Left: the file at the agent's base commit (read-only). Right: the file in the agent's folder (editable). */
export function diffSides(
  record: AgentRecord,
  file: ChangedFile,
): { left: vscode.Uri; right: vscode.Uri; title: string } {
  const sha = record.baseSha;
  // Change-set paths are relative to the agent's folder; git show wants them relative to the repository.
  const basePath =
    file.kind === 'added' || file.kind === 'untracked'
      ? undefined
      : repoRelativePath(record, file.oldPath ?? file.path);
  const owner = { repo: record.repoRoot, sha, agent: record.id, file: file.path };
  const left = BaseContentProvider.uri(joinPath(record.cwd, file.oldPath ?? file.path), { ...owner, path: basePath });
  const right =
    file.kind === 'deleted'
      ? BaseContentProvider.uri(joinPath(record.cwd, file.path), owner)
      : vscode.Uri.file(joinPath(record.cwd, file.path));
  const name = baseName(file.path);
  const title = vscode.l10n.t('{0} ({1} ↔ {2})', name, sha.slice(0, 7), record.title);
  return { left, right, title };
}

export async function openChange(record: AgentRecord, path: string): Promise<void> {
  const file = record.changedFiles.find((f) => f.path === path);
  if (!file) {
    throw new AgentError('changeGone', { title: record.title, path });
  }
  const { left, right, title } = diffSides(record, file);
  await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true });
}
