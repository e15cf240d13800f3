/**
 * Accept Hunk and Revert Hunk above each change on the agent's side of an agent's diff: one pair of
 * CodeLenses per change between the file at the agent's base commit and the file in its worktree,
 * each running Accept / Revert Selected Lines (hunkCommands.ts) on exactly that change's lines.
 * Shown for a file while one of its agent diffs is open in a tab; VS Code draws CodeLenses in a
 * diff editor when `diffEditor.codeLens` is on (package.json makes that the default).
 */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { agentDiff, type HunkDeps, type LineChange } from '../../core/review';
import { BaseContentProvider } from './baseContentProvider';

export interface HunkLensDeps extends HunkDeps {
  readonly manager: AgentManager;
}

/** What a lens hands the hunk commands: 0-based agent lines, both ends included (a deletion: end = start - 1). */
export interface HunkLensArgs {
  readonly agentId: string;
  readonly path: string;
  readonly lines: readonly { readonly start: number; readonly end: number }[];
}

export class HunkLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly listeners: vscode.Disposable[];
  /** The agent diffs open in tabs, as last seen: lenses are asked for again only when they change. */
  private openDiffs = '';

  constructor(private readonly deps: HunkLensDeps) {
    const tabsChanged = () => {
      const now = [...agentDiffTabs().keys()].sort().join('\n');
      if (now !== this.openDiffs) {
        this.openDiffs = now;
        this.changed.fire();
      }
    };
    this.listeners = [
      deps.manager.onDidChangeAgent(() => this.changed.fire()),
      vscode.window.tabGroups.onDidChangeTabs(tabsChanged),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
    ];
    tabsChanged();
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const owner = agentDiffTabs().get(doc.uri.toString());
    // Unsaved edits: the commands refuse them, so the lenses would point at lines that are not on disk.
    if (!owner || doc.isDirty) {
      return [];
    }
    const record = this.deps.manager.list().find((r) => r.id === owner.agentId);
    const file = record?.changedFiles.find((f) => f.path === owner.path);
    if (!record?.worktreePath || !file || file.binary || file.kind === 'deleted') {
      return [];
    }
    const changes = await this.changesOf(record, file);
    const last = Math.max(0, doc.lineCount - 1);
    return changes.flatMap((change) => lensesOf(record.id, file.path, change, Math.min(change.agentStart, last)));
  }

  dispose(): void {
    vscode.Disposable.from(...this.listeners).dispose();
    this.changed.dispose();
  }

  /** The changes Accept / Revert Selected Lines pick from; none when the file is not text (or went away). */
  private async changesOf(record: AgentRecord, file: ChangedFile): Promise<LineChange[]> {
    try {
      return (await agentDiff(this.deps, record, file)).changes;
    } catch {
      return [];
    }
  }
}

function lensesOf(agentId: string, path: string, change: LineChange, line: number): vscode.CodeLens[] {
  const args: HunkLensArgs = { agentId, path, lines: [{ start: change.agentStart, end: change.agentEnd - 1 }] };
  const range = new vscode.Range(line, 0, line, 0);
  return [
    new vscode.CodeLens(range, {
      title: vscode.l10n.t('Accept Hunk'),
      tooltip: vscode.l10n.t('Accept this change into the workspace'),
      command: commands.acceptSelectedRanges,
      arguments: [args],
    }),
    new vscode.CodeLens(range, {
      title: vscode.l10n.t('Revert Hunk'),
      tooltip: vscode.l10n.t("Revert this change in the agent's worktree"),
      command: commands.revertSelectedRanges,
      arguments: [args],
    }),
  ];
}

/** The agent diffs open in any tab group, by the uri of their agent side. */
function agentDiffTabs(): Map<string, { agentId: string; path: string }> {
  const found = new Map<string, { agentId: string; path: string }>();
  for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
    const change = BaseContentProvider.changeOf(tab);
    if (change && tab.input instanceof vscode.TabInputTextDiff) {
      found.set(tab.input.modified.toString(), change);
    }
  }
  return found;
}
