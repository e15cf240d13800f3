import * as vscode from 'vscode';
import type { AgentRecord, ChangedFile } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { repoRelativePath } from '../../core/landing';
import { reviewOrder } from '../../core/review';
import type { LandingGit } from '../../core/git';
import { joinPath, parentDir } from '../../util/paths';
import { AccountDocuments } from '../account/accountDocument';
import { BaseContentProvider } from '../diff/baseContentProvider';
import { diffSides } from '../diff/openChange';
import { pickAgentId } from './agentPick';
import { cancelled } from './commandRunner';

export interface ReviewDeps {
  readonly manager: AgentManager;
  readonly landing: Pick<LandingGit, 'restoreFile'>;
}

/**
 * A file command's target: a file row, `{ agentId, path }`, or (from the diff editor's title) the
 * active agent diff.
 */
function fileOf(manager: AgentManager, arg: unknown): { record: AgentRecord; file: ChangedFile } {
  const o = (arg && typeof arg === 'object' ? arg : {}) as {
    agentId?: unknown;
    path?: unknown;
    file?: { path?: unknown };
  };
  const agentId = typeof o.agentId === 'string' ? o.agentId : undefined;
  const path = typeof o.path === 'string' ? o.path : typeof o.file?.path === 'string' ? o.file.path : undefined;
  const target =
    agentId && path
      ? { agentId, path }
      : BaseContentProvider.changeOf(vscode.window.tabGroups.activeTabGroup.activeTab);
  if (!target) {
    throw new AgentError('noAgentFile', {});
  }
  const record = manager.get(target.agentId);
  const file = record.changedFiles.find((f) => f.path === target.path);
  if (!file) {
    throw new AgentError('changeNotListed', { title: record.title, path: target.path });
  }
  return { record, file };
}

/** Agents with something to review: changed files, or a run that is over. */
function pickFinished(manager: AgentManager, arg: unknown): Promise<string> {
  return pickAgentId(manager, arg, { filter: (r) => r.changedFiles.length > 0 || r.status !== 'running' });
}

export function reviewCommands({ manager, landing }: ReviewDeps) {
  return {
    reviewAll: async (arg?: unknown) => {
      const id = await pickFinished(manager, arg);
      const record = manager.get(id);
      if (record.changedFiles.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Agent "{0}" has not changed any file.', record.title));
        return;
      }
      // The agent's account on top (no original: nothing to compare it with), then the files not
      // viewed yet, so the editor opens at the first of them.
      const resources = [
        AccountDocuments.reviewEntry(record),
        ...reviewOrder(record).map((file) => {
          const { left, right } = diffSides(record, file);
          return [right, left, right];
        }),
      ];
      await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Agent: {0}', record.title), resources);
    },
    acceptFile: async (arg?: unknown) => {
      const { record, file } = fileOf(manager, arg);
      await acceptFile(record, file);
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t('$(check) Accepted {0} from agent "{1}"', file.path, record.title),
        4000,
      );
    },
    revertFile: async (arg?: unknown) => {
      const { record, file } = fileOf(manager, arg);
      if (!record.worktreePath) {
        throw new AgentError('worksInWorkspace', { title: record.title });
      }
      await landing.restoreFile(record.cwd, record.baseSha, file.oldPath ?? file.path);
      if (file.oldPath) {
        await landing.restoreFile(record.cwd, record.baseSha, file.path);
      }
      await manager.refreshChanges(record.id);
    },
    showAccount: async (arg?: unknown) => {
      const id = await pickAgentId(manager, arg);
      await vscode.window.showTextDocument(AccountDocuments.uri(manager.get(id)), { preview: true });
    },
    followUp: async (arg?: unknown) => {
      const o = (arg && typeof arg === 'object' ? arg : {}) as { prompt?: unknown };
      const id = await pickFinished(manager, arg);
      const record = manager.get(id);
      const prompt =
        typeof o.prompt === 'string'
          ? o.prompt
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Send Follow-up to "{0}"', record.title),
              prompt: vscode.l10n.t('What should the agent do next, in the same worktree?'),
              ignoreFocusOut: true,
              validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('Describe the next step.') : undefined),
            });
      if (prompt === undefined) {
        cancelled();
      }
      await manager.followUp(id, prompt);
    },
  };
}

/** Writes the agent's version of one file into the main worktree (added, modified, deleted, renamed). */
async function acceptFile(record: AgentRecord, file: ChangedFile): Promise<void> {
  if (!record.worktreePath) {
    throw new AgentError('alreadyInWorkspace', { title: record.title });
  }
  const target = (p: string) => vscode.Uri.file(joinPath(record.repoRoot, repoRelativePath(record, p)));
  const dirty = vscode.workspace.textDocuments.find(
    (d) => d.isDirty && [file.path, file.oldPath].some((p) => p && d.uri.fsPath === target(p).fsPath),
  );
  if (dirty) {
    throw new AgentError('unsavedEditor', { path: vscode.workspace.asRelativePath(dirty.uri) });
  }
  if (file.kind !== 'deleted') {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(joinPath(record.cwd, file.path)));
    await vscode.workspace.fs.createDirectory(vscode.Uri.file(parentDir(target(file.path).fsPath)));
    await vscode.workspace.fs.writeFile(target(file.path), bytes);
  }
  const removed = file.kind === 'deleted' ? file.path : file.kind === 'renamed' ? file.oldPath : undefined;
  if (removed) {
    await vscode.workspace.fs.delete(target(removed), { useTrash: false }).then(undefined, (e: unknown) => {
      if (!(e instanceof vscode.FileSystemError && e.code === 'FileNotFound')) {
        throw e;
      }
    });
  }
}
