import * as vscode from 'vscode';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import { commands, schemes } from '../../constants';
import { isViewed } from '../../core/review';
import { joinPath, parentDir } from '../../util/paths';
import { TaskNode } from './planNodes';
import type { AgentsViewModel } from './agentsViewModel';
import { agentDescription, agentTooltip, changeLetters, resultSummary, statusIcon } from './presentation';
import { portsBadge, portsContext } from './portsText';

/**
 * One row kind of the Agents view. A node holds keys only (ids, paths) and reads what it shows
 * from the view model each time, so a refresh never shows a stale copy. Commands get the node as
 * their argument and read those keys (`id`, `agentId` + `path`, `runId` + `taskId`, `orphan`).
 */
export interface ViewNode {
  readonly type: 'agent' | 'file' | 'plan' | 'task' | 'orphan';
  treeItem(model: AgentsViewModel): vscode.TreeItem;
  children(model: AgentsViewModel): ViewNode[];
  parent(model: AgentsViewModel): ViewNode | undefined;
}

export function fileNodes(record: AgentRecord | undefined): FileNode[] {
  return record ? record.changedFiles.map((f) => new FileNode(record.id, f.path)) : [];
}

export class AgentNode implements ViewNode {
  readonly type = 'agent';
  constructor(readonly id: string) {}

  treeItem(model: AgentsViewModel): vscode.TreeItem {
    const r = model.agent(this.id);
    if (!r) {
      // Removed between the change event and the view's read: the next refresh drops the row.
      return new vscode.TreeItem(this.id, vscode.TreeItemCollapsibleState.None);
    }
    const overlapping = model.agentsOverlapping(r.id);
    const item = new vscode.TreeItem(
      r.title,
      r.changedFiles.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = r.id;
    const ports = portsBadge(r);
    item.description =
      agentDescription(r, model.now()) +
      (ports ? ` · ${ports}` : '') +
      (overlapping.length > 0 ? ` · ⚠ ${vscode.l10n.t('overlaps')}` : '');
    item.iconPath = statusIcon(r.status);
    item.tooltip = agentTooltip(r);
    if (overlapping.length > 0) {
      item.tooltip.appendMarkdown(
        `\n\n$(warning) ${vscode.l10n.t('Changes the same files as: {0}', overlapping.join(', '))}`,
      );
    }
    // e.g. "agent.running.worktree.headless": menus match on the parts they need. A missing
    // worktree takes the status's place, so no menu that needs the folder matches.
    // A checked agent gets a last part, e.g. ".check-failed" (Fix Failing Check shows for that one only).
    // An agent holding ports gets ".ports" before it (Open in Browser).
    item.contextValue = `agent.${r.worktreeMissing ? 'missing' : r.status}.${r.isolation}.${r.mode}${portsContext(r)}${r.check ? `.check-${r.check.state}` : ''}`;
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

  children(model: AgentsViewModel): ViewNode[] {
    return fileNodes(model.agent(this.id));
  }

  parent(): undefined {
    return undefined;
  }
}

export class FileNode implements ViewNode {
  readonly type = 'file';
  constructor(
    readonly agentId: string,
    readonly path: string,
  ) {}

  get id(): string {
    return `${this.agentId}/${this.path}`;
  }

  treeItem(model: AgentsViewModel): vscode.TreeItem {
    const record = model.agent(this.agentId);
    const file = record?.changedFiles.find((f) => f.path === this.path);
    if (!record || !file) {
      return new vscode.TreeItem(this.path, vscode.TreeItemCollapsibleState.None);
    }
    // The decoration provider reads the change kind back from this URI.
    const item = new vscode.TreeItem(changeUri(this.agentId, record.cwd, file), vscode.TreeItemCollapsibleState.None);
    item.id = this.id;
    const location = file.path.includes('/') ? parentDir(file.path) : '';
    const where = file.oldPath ? `${location} ← ${file.oldPath}`.trim() : location;
    const viewed = isViewed(record, file.path);
    item.description = viewed ? `✓ ${where}`.trim() : where;
    const others = model.othersFor(this.agentId, file.path);
    const overlap = others.length > 0 ? `\n⚠ ${vscode.l10n.t('Also changed by: {0}', others.join(', '))}` : '';
    const binary = file.binary ? ` ${vscode.l10n.t('(binary)')}` : '';
    const seen = viewed ? `\n✓ ${vscode.l10n.t('Viewed')}` : '';
    item.tooltip = `${changeLetters[file.kind]} ${file.oldPath ? `${file.oldPath} → ` : ''}${file.path}${binary}${seen}${overlap}`;
    // e.g. "agentFile.modified.unviewed": file menus match /^agentFile\./, the viewed marks the last part.
    item.contextValue = `agentFile.${file.kind}.${viewed ? 'viewed' : 'unviewed'}`;
    item.command = {
      command: commands.openChange,
      title: vscode.l10n.t('Open Changes'),
      arguments: [{ agentId: this.agentId, path: file.path }],
    };
    return item;
  }

  children(): ViewNode[] {
    return [];
  }

  parent(model: AgentsViewModel): ViewNode | undefined {
    const record = model.agent(this.agentId);
    return record?.plan ? new TaskNode(record.plan.runId, record.plan.taskId) : new AgentNode(this.agentId);
  }
}

export function changeUri(agentId: string, cwd: string, file: ChangedFile): vscode.Uri {
  return vscode.Uri.from({
    scheme: schemes.change,
    path: joinPath(cwd.startsWith('/') ? cwd : `/${cwd}`, file.path),
    query: new URLSearchParams({ agent: agentId, kind: file.kind, path: file.path }).toString(),
  });
}
