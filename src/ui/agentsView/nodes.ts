import * as vscode from 'vscode';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import { commands, schemes } from '../../constants';
import { joinPath, parentDir } from '../../util/paths';
import { agentDescription, agentTooltip, changeLetters, resultSummary, statusIcon } from './presentation';

export class AgentNode {
  readonly type = 'agent';
  constructor(public record: AgentRecord) {}

  get id(): string {
    return this.record.id;
  }

  toTreeItem(now: number, overlapping: readonly string[]): vscode.TreeItem {
    const r = this.record;
    const item = new vscode.TreeItem(
      r.title,
      r.changedFiles.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = r.id;
    item.description = agentDescription(r, now) + (overlapping.length > 0 ? ` · ⚠ ${vscode.l10n.t('overlaps')}` : '');
    item.iconPath = statusIcon(r.status);
    item.tooltip = agentTooltip(r);
    if (overlapping.length > 0) {
      item.tooltip.appendMarkdown(
        `\n\n$(warning) ${vscode.l10n.t('Changes the same files as: {0}', overlapping.join(', '))}`,
      );
    }
    // e.g. "agent.running.worktree.headless": menus match on the parts they need. A missing
    // worktree takes the status's place, so no menu that needs the folder matches.
    item.contextValue = `agent.${r.worktreeMissing ? 'missing' : r.status}.${r.isolation}.${r.mode}`;
    if (resultSummary(r) !== undefined) {
      // An agent that changed no file has its answer as its outcome: a click opens it.
      item.command = { command: commands.showResult, title: vscode.l10n.t('Show Agent Result'), arguments: [r.id] };
    }
    if (r.worktreeMissing) {
      item.description = `${item.description} · ${vscode.l10n.t('worktree missing')}`;
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
    }
    return item;
  }
}

export class FileNode {
  readonly type = 'file';
  constructor(
    readonly agentId: string,
    readonly cwd: string,
    readonly file: ChangedFile,
  ) {}

  get id(): string {
    return `${this.agentId}/${this.file.path}`;
  }

  /** The decoration provider reads the change kind back from this URI. */
  get resourceUri(): vscode.Uri {
    return changeUri(this.agentId, this.cwd, this.file);
  }

  toTreeItem(others: readonly string[]): vscode.TreeItem {
    const item = new vscode.TreeItem(this.resourceUri, vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const dir = parentDir(this.file.path);
    const location = this.file.path.includes('/') ? dir : '';
    item.description = this.file.oldPath ? `${location} ← ${this.file.oldPath}`.trim() : location;
    const overlap = others.length > 0 ? `\n⚠ ${vscode.l10n.t('Also changed by: {0}', others.join(', '))}` : '';
    item.tooltip = `${changeLetters[this.file.kind]} ${this.file.oldPath ? `${this.file.oldPath} → ` : ''}${this.file.path}${this.file.binary ? ` ${vscode.l10n.t('(binary)')}` : ''}${overlap}`;
    item.contextValue = `agentFile.${this.file.kind}`;
    item.command = {
      command: commands.openChange,
      title: vscode.l10n.t('Open Changes'),
      arguments: [{ agentId: this.agentId, path: this.file.path }],
    };
    return item;
  }
}

export type TreeNode = AgentNode | FileNode;

export function changeUri(agentId: string, cwd: string, file: ChangedFile): vscode.Uri {
  return vscode.Uri.from({
    scheme: schemes.change,
    path: joinPath(cwd.startsWith('/') ? cwd : `/${cwd}`, file.path),
    query: new URLSearchParams({ agent: agentId, kind: file.kind, path: file.path }).toString(),
  });
}
