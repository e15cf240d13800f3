import * as vscode from 'vscode';
import type { RegistryContents } from '../../node/registry/registryReader';
import { agentDescription, agentTooltip, statusIcon, statusLabel } from './presentation';
import { taskIcon, taskStateText } from './planNodes';
import { type ReadOnlyRow, readOnlyChildren, readOnlyRoots } from './readOnlyModel';
import type { ViewRow } from './agentsTreeProvider';

/** VS Code's own command: the Workspace Trust editor. */
export const manageTrustCommand = 'workbench.trust.manage';

/**
 * The Agents view in Restricted Mode: what the repository's registry records, read-only. Rows
 * have no command but the notice's (Manage Workspace Trust) and no context value a menu matches.
 * getChildren reads the contents held in memory; the caller reads the disk and calls update().
 */
export class ReadOnlyTree implements vscode.TreeDataProvider<ReadOnlyRow>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<ReadOnlyRow | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private contents: RegistryContents) {}

  update(contents: RegistryContents): void {
    this.contents = contents;
    this.emitter.fire(undefined);
  }

  getChildren(row?: ReadOnlyRow): ReadOnlyRow[] {
    return row ? readOnlyChildren(row, this.contents) : readOnlyRoots(this.contents);
  }

  getTreeItem(row: ReadOnlyRow): vscode.TreeItem {
    const item = this.item(row);
    item.contextValue = row.contextValue;
    return item;
  }

  private item(row: ReadOnlyRow): vscode.TreeItem {
    switch (row.kind) {
      case 'notice': {
        const item = new vscode.TreeItem(vscode.l10n.t('Restricted Mode: read-only, nothing runs'));
        item.description = vscode.l10n.t('Manage Workspace Trust');
        item.tooltip = vscode.l10n.t(
          'This folder is not trusted, so agents cannot be dispatched, stopped, reviewed or merged here. The agents and plan runs its repository records are listed as they were saved. Trust the folder to work with them.',
        );
        item.iconPath = new vscode.ThemeIcon('shield', new vscode.ThemeColor('list.warningForeground'));
        item.command = { command: manageTrustCommand, title: vscode.l10n.t('Manage Workspace Trust') };
        return item;
      }
      case 'problems': {
        const item = new vscode.TreeItem(vscode.l10n.t('{0} record file(s) could not be read', row.files.length));
        item.tooltip = row.files.join('\n');
        item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
        return item;
      }
      case 'plan': {
        const item = new vscode.TreeItem(row.run.plan.title, vscode.TreeItemCollapsibleState.Expanded);
        item.id = `readonly:plan:${row.run.id}`;
        const states = Object.values(row.run.scheduler.tasks).map((t) => t.state);
        const done = states.filter((s) => s === 'done' || s === 'skipped').length;
        item.description = vscode.l10n.t(
          'plan · {0}/{1} done · {2}',
          done,
          row.run.plan.tasks.length,
          vscode.l10n.t('read-only'),
        );
        item.iconPath = new vscode.ThemeIcon('checklist');
        return item;
      }
      case 'task': {
        const item = new vscode.TreeItem(row.title);
        item.id = `readonly:task:${row.runId}:${row.taskId}`;
        const agent = row.agent ? `${row.agent.profile} · ${statusLabel(row.agent)}` : undefined;
        item.description = [row.taskId, taskStateText(row.state), agent].filter(Boolean).join(' · ');
        item.iconPath = taskIcon(row.state);
        item.tooltip = row.agent ? agentTooltip(row.agent) : undefined;
        return item;
      }
      case 'agent': {
        const item = new vscode.TreeItem(row.agent.title);
        item.id = `readonly:agent:${row.agent.id}`;
        item.description = agentDescription(row.agent, Date.now());
        item.iconPath = statusIcon(row.agent.status);
        item.tooltip = agentTooltip(row.agent);
        return item;
      }
    }
  }

  /** The rows as rendered, like AgentsTreeProvider.snapshot(): for tests and the API. */
  snapshot(): ViewRow[] {
    const row = (r: ReadOnlyRow): ViewRow => {
      const item = this.getTreeItem(r);
      return {
        label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
        description: String(item.description ?? ''),
        contextValue: item.contextValue ?? '',
        children: this.getChildren(r).map(row),
      };
    };
    return this.getChildren().map(row);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
