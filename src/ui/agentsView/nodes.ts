import * as vscode from 'vscode';
import { runsRow } from './runsText';
import { type AgentRecord, type ChangedFile, isActive } from '../../core/agent';
import { commands, schemes } from '../../constants';
import { isViewed } from '../../core/review';
import { joinPath, parentDir } from '../../util/paths';
import { TaskNode } from './planNodes';
import type { AgentsViewModel } from './agentsViewModel';
import { fileOf, RecordMemo } from './rowMemo';
import { agentDescription, agentTooltip, changeLetters, escape, resultSummary, statusIcon } from './presentation';
import { portsBadge, portsContext } from './portsText';
import { sandboxBadge } from './sandboxText';
import { costRows, usageBadge } from './costText';
import { parentRanSince } from '../../core/agents';

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

/** Whether the row's description follows the clock (a running agent's time so far). */
const ticking = (r: AgentRecord) => isActive(r.status) || r.endedAt === undefined;

function agentItem(
  r: AgentRecord,
  overlapping: readonly string[],
  now: number,
  queued?: number,
  usage?: string,
  parentRan = false,
): vscode.TreeItem {
  const item = new vscode.TreeItem(
    r.title,
    r.changedFiles.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
  );
  item.id = r.id;
  const ports = portsBadge(r);
  item.description =
    agentDescription(r, now, queued) +
    (ports ? ` · ${ports}` : '') +
    (r.sandbox ? ` · ${sandboxBadge(r)}` : '') +
    (usage ? ` · ${usage}` : '') +
    (overlapping.length > 0 ? ` · ⚠ ${vscode.l10n.t('overlaps')}` : '') +
    (parentRan ? ` · ↑ ${vscode.l10n.t('parent ran since')}` : '');
  item.iconPath = statusIcon(r.status);
  // The tooltip is built on hover (AgentsTreeProvider.resolveTreeItem): the view draws many rows, shows few tooltips.
  // e.g. "agent.running.worktree.headless": menus match on the parts they need. A missing
  // worktree takes the status's place, so no menu that needs the folder matches.
  // A checked agent gets a last part, e.g. ".check-failed" (Fix Failing Check shows for that one only).
  // An agent holding ports gets ".ports" before it (Open in Browser), a stacked one ".stacked" (Rebase on Parent),
  // and one the last forecast found in conflict ".conflicts" before those (Ask Agent to Resolve Conflicts).
  // A candidate of a Best of N gets ".bestof" right after its mode (Compare, Diff, Pick).
  const conflicts = r.forecastConflicts ? '.conflicts' : '';
  item.contextValue = `agent.${r.worktreeMissing ? 'missing' : r.status}.${r.isolation}.${r.mode}${r.bestOf ? '.bestof' : ''}${conflicts}${r.stackedOn ? '.stacked' : ''}${portsContext(r)}${r.check ? `.check-${r.check.state}` : ''}`;
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

/** Ended agents' rows, kept per version of the record; a running agent's row is built on every read. */
const agentItems = new RecordMemo<vscode.TreeItem>((r) => !ticking(r));
/** File rows, kept per version of their agent's record: path → the row and the overlap it shows. */
const fileItems = new RecordMemo<Map<string, { readonly others: string; readonly item: vscode.TreeItem }>>();

export class AgentNode implements ViewNode {
  readonly type = 'agent';
  constructor(readonly id: string) {}

  /**
   * An ended agent's row depends on its record and on the agents it overlaps only: built once per
   * version of the record (and of that list), then the same item again. A running one follows the clock.
   */
  treeItem(model: AgentsViewModel): vscode.TreeItem {
    const r = model.agent(this.id);
    if (!r) {
      // Removed between the change event and the view's read: the next refresh drops the row.
      return new vscode.TreeItem(this.id, vscode.TreeItemCollapsibleState.None);
    }
    const overlapping = model.agentsOverlapping(r.id);
    // A queued row is active, so built on every read: its place in the queue stays current.
    const queued = model.queuePosition(r.id);
    // A running row is built on every read (ticking), so its CPU and memory are current.
    const usage = usageBadge(model.costs?.usage(r.id));
    // A stacked agent's row says when its parent ran since its last snapshot of it (Rebase on Parent is due).
    const parentRan = parentRanSince(r, r.stackedOn && model.agent(r.stackedOn.id));
    const key = `${overlapping.join('\n')}${parentRan ? '\n↑' : ''}`;
    return agentItems.get(r, key, () => agentItem(r, overlapping, model.now(), queued, usage, parentRan));
  }

  /** The row's tooltip: the task, where it works, what it did, and the agents it overlaps. */
  tooltip(model: AgentsViewModel): vscode.MarkdownString | undefined {
    const r = model.agent(this.id);
    if (!r) {
      return undefined;
    }
    // Measured before (AgentsTreeProvider.resolveTreeItem), as far as it was quick.
    const disk = model.costs?.diskBytes(r);
    const costs = costRows(model.costs?.usage(r.id), disk);
    const tooltip = agentTooltip(r, model.queuePosition(r.id), [runsRow(r), ...costs]);
    if (r.stackedOn && parentRanSince(r, model.agent(r.stackedOn.id))) {
      const text = vscode.l10n.t(
        '"{0}" ran since this agent last took its work: Rebase on Parent moves this agent\'s work onto its work as it is now.',
        r.stackedOn.title,
      );
      tooltip.appendMarkdown(`\n\n$(arrow-up) ${escape(text)}`);
    }
    const overlapping = model.agentsOverlapping(r.id);
    if (overlapping.length > 0) {
      tooltip.appendMarkdown(
        `\n\n$(warning) ${vscode.l10n.t('Changes the same files as: {0}', overlapping.join(', '))}`,
      );
    }
    return tooltip;
  }

  children(model: AgentsViewModel): ViewNode[] {
    return fileNodes(model.agent(this.id));
  }

  /** A top-level row, or a candidate of a plan's Best of N task under that task's row. */
  parent(model: AgentsViewModel): ViewNode | undefined {
    const plan = model.agent(this.id)?.plan;
    return plan ? new TaskNode(plan.runId, plan.taskId) : undefined;
  }
}

/** A file row: its change (letter, colour through the URI), folder, viewed mark and overlap. */
function fileItem(record: AgentRecord, file: ChangedFile, others: readonly string[]): vscode.TreeItem {
  // The decoration provider reads the change kind back from this URI.
  const item = new vscode.TreeItem(changeUri(record.id, record.cwd, file), vscode.TreeItemCollapsibleState.None);
  item.id = `${record.id}/${file.path}`;
  const location = file.path.includes('/') ? parentDir(file.path) : '';
  const where = file.oldPath ? `${location} ← ${file.oldPath}`.trim() : location;
  const viewed = isViewed(record, file.path);
  item.description = viewed ? `✓ ${where}`.trim() : where;
  const overlap = others.length > 0 ? `\n⚠ ${vscode.l10n.t('Also changed by: {0}', others.join(', '))}` : '';
  const binary = file.binary ? ` ${vscode.l10n.t('(binary)')}` : '';
  const seen = viewed ? `\n✓ ${vscode.l10n.t('Viewed')}` : '';
  item.tooltip = `${changeLetters[file.kind]} ${file.oldPath ? `${file.oldPath} → ` : ''}${file.path}${binary}${seen}${overlap}`;
  // e.g. "agentFile.modified.unviewed": file menus match /^agentFile\./, the viewed marks the last part.
  item.contextValue = `agentFile.${file.kind}.${viewed ? 'viewed' : 'unviewed'}`;
  item.command = {
    command: commands.openChange,
    title: vscode.l10n.t('Open Changes'),
    arguments: [{ agentId: record.id, path: file.path }],
  };
  return item;
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
    const file = record ? fileOf(record, this.path) : undefined;
    if (!record || !file) {
      return new vscode.TreeItem(this.path, vscode.TreeItemCollapsibleState.None);
    }
    const others = model.othersFor(this.agentId, file.path);
    const rows = fileItems.get(record, '', () => new Map());
    const kept = rows.get(file.path);
    if (kept && kept.others === others.join('\n')) {
      return kept.item;
    }
    const item = fileItem(record, file, others);
    rows.set(file.path, { others: others.join('\n'), item });
    return item;
  }

  children(): ViewNode[] {
    return [];
  }

  parent(model: AgentsViewModel): ViewNode | undefined {
    const record = model.agent(this.agentId);
    return record?.plan && !record.bestOf
      ? new TaskNode(record.plan.runId, record.plan.taskId)
      : new AgentNode(this.agentId);
  }
}

export function changeUri(agentId: string, cwd: string, file: ChangedFile): vscode.Uri {
  return vscode.Uri.from({
    scheme: schemes.change,
    path: joinPath(cwd.startsWith('/') ? cwd : `/${cwd}`, file.path),
    query: new URLSearchParams({ agent: agentId, kind: file.kind, path: file.path }).toString(),
  });
}
