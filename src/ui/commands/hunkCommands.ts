import * as vscode from 'vscode';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { repoRelativePath } from '../../core/landing';
import { acceptSelectedLines, type HunkDeps, type LineSelection, revertSelectedLines } from '../../core/review';
import { joinPath, toForwardSlashes } from '../../util/paths';
import { BaseContentProvider } from '../diff/baseContentProvider';

export interface HunkCommandDeps extends HunkDeps {
  readonly manager: AgentManager;
}

interface Target {
  readonly record: AgentRecord;
  readonly file: ChangedFile;
  readonly selections: readonly LineSelection[];
}

/**
 * Accept Selected Lines into Workspace and Revert Selected Lines in Agent's Worktree: the lines
 * selected (or the change under each cursor) in the active editor of an agent's diff, either side,
 * or `{ agentId, path, lines: [{ start, end }] }` (0-based agent lines, both ends included).
 */
export function hunkCommands(deps: HunkCommandDeps) {
  const { manager } = deps;
  return {
    acceptSelectedRanges: async (arg?: unknown) => {
      const { record, file, selections } = targetOf(manager, arg);
      refuseUnsaved(record, file, 'accept');
      const outcome = await acceptSelectedLines(deps, record, file, selections);
      await manager.refreshChanges(record.id);
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t(
          '$(check) Accepted {0} change(s) of {1} from agent "{2}"',
          outcome.changes,
          file.path,
          record.title,
        ),
        4000,
      );
      return outcome;
    },
    revertSelectedRanges: async (arg?: unknown) => {
      const { record, file, selections } = targetOf(manager, arg);
      refuseUnsaved(record, file, 'revert');
      const outcome = await revertSelectedLines(deps, record, file, selections);
      await manager.refreshChanges(record.id);
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t(
          '$(discard) Reverted {0} change(s) of {1} in agent "{2}"',
          outcome.changes,
          file.path,
          record.title,
        ),
        4000,
      );
      return outcome;
    },
  };
}

function targetOf(manager: AgentManager, arg: unknown): Target {
  const o = (arg && typeof arg === 'object' ? arg : {}) as { agentId?: unknown; path?: unknown; lines?: unknown };
  if (typeof o.agentId === 'string' && typeof o.path === 'string' && Array.isArray(o.lines)) {
    const selections = (o.lines as { start?: unknown; end?: unknown }[]).flatMap((l) =>
      typeof l.start === 'number' && typeof l.end === 'number' ? [{ start: l.start, end: l.end }] : [],
    );
    return { ...changeOf(manager, o.agentId, o.path), selections };
  }
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    throw new AgentError('noAgentFile', {});
  }
  const query = BaseContentProvider.queryOf(editor.document.uri);
  // The base side of a diff names its agent; its empty side (an added or deleted file) counts as the agent's.
  const side = query?.path ? 'base' : 'agent';
  const found = query ? { agentId: query.agent, path: query.file } : agentFileAt(manager, editor.document.uri);
  if (!found) {
    throw new AgentError('noAgentFile', {});
  }
  const selections = editor.selections.map((s): LineSelection => {
    // A selection that ends at the start of a line does not take that line.
    const end = s.end.line > s.start.line && s.end.character === 0 ? s.end.line - 1 : s.end.line;
    return { start: s.start.line, end, side, whole: s.isEmpty };
  });
  return { ...changeOf(manager, found.agentId, found.path), selections };
}

function changeOf(manager: AgentManager, agentId: string, path: string): Omit<Target, 'selections'> {
  const record = manager.get(agentId);
  const file = record.changedFiles.find((f) => f.path === path);
  if (!file) {
    throw new AgentError('changeNotListed', { title: record.title, path });
  }
  return { record, file };
}

/** The agent whose changed file `uri` is: the active diff's agent first, then any agent's. */
function agentFileAt(manager: AgentManager, uri: vscode.Uri): { agentId: string; path: string } | undefined {
  if (uri.scheme !== 'file') {
    return undefined;
  }
  const fsPath = toForwardSlashes(uri.fsPath);
  const active = BaseContentProvider.changeOf(vscode.window.tabGroups.activeTabGroup.activeTab);
  const first = (r: AgentRecord) => Number(r.id === active?.agentId);
  const records = [...manager.list()].sort((a, b) => first(b) - first(a));
  for (const record of records) {
    const file = record.changedFiles.find((f) => joinPath(record.cwd, f.path) === fsPath);
    if (file) {
      return { agentId: record.id, path: file.path };
    }
  }
  return undefined;
}

/**
 * The selected lines must be the agent file's, so its editor may hold no unsaved edit; an accept
 * also leaves alone a workspace file with unsaved edits, as Accept File does.
 */
function refuseUnsaved(record: AgentRecord, file: ChangedFile, action: 'accept' | 'revert'): void {
  const dirty = (path: string) =>
    vscode.workspace.textDocuments.find((d) => d.isDirty && toForwardSlashes(d.uri.fsPath) === path);
  if (dirty(joinPath(record.cwd, file.path))) {
    throw new AgentError('unsavedAgentEditor', { path: file.path });
  }
  const workspaceFile = dirty(joinPath(record.repoRoot, repoRelativePath(record, file.oldPath ?? file.path)));
  if (action === 'accept' && record.worktreePath && workspaceFile) {
    throw new AgentError('unsavedEditor', { path: vscode.workspace.asRelativePath(workspaceFile.uri) });
  }
}
