import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentLanding, MergeResult } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import type { MergeStrategy } from '../../core/git';
import { joinPath } from '../../util/paths';
import { statusText } from '../agentsView/presentation';
import { pickAgentId } from './agentPick';
import { confirmCheckBeforeMerge } from './checkCommands';
import { cancelled } from './commandRunner';

export interface LandDeps {
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly strategy: () => MergeStrategy;
}

interface MergeArgs {
  readonly strategy?: MergeStrategy;
  readonly message?: string;
  /** Without dialogs: commit uncommitted agent work first when true, refuse otherwise. */
  readonly commit?: boolean;
  readonly confirm?: boolean;
  /** No "Merged … Remove Worktree" message after a merge (Pick says what it did itself). */
  readonly quietOnMerge?: boolean;
}

/** Agents with a branch whose work can be committed or merged now. */
function landable(r: AgentRecord): unknown {
  return r.branch && r.worktreePresent !== false && !['running', 'preparing', 'merged', 'discarded'].includes(r.status);
}

function pickLandable(manager: AgentManager, arg: unknown): Promise<string> {
  return pickAgentId(manager, arg, { filter: landable, describe: (r) => `${r.branch} · ${statusText(r.status)}` });
}

export function landCommands({ manager, landing, strategy }: LandDeps) {
  const commitWork = async (id: string, message?: string): Promise<string | undefined> => {
    const record = manager.get(id);
    const text =
      message ??
      (await vscode.window.showInputBox({
        title: vscode.l10n.t('Commit Agent Work'),
        prompt: vscode.l10n.t('Commit message'),
        value: record.title,
        ignoreFocusOut: true,
      }));
    if (!text?.trim()) {
      cancelled();
    }
    return landing.commit(id, text);
  };

  return {
    commit: async (arg?: unknown) => {
      const id = await pickLandable(manager, arg);
      const o = (arg && typeof arg === 'object' ? arg : {}) as { message?: string };
      const sha = await commitWork(id, o.message);
      if (!sha) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Agent "{0}" has nothing to commit.', manager.get(id).title),
        );
      }
      return sha;
    },
    merge: async (arg?: unknown): Promise<MergeResult> => {
      const id = await pickLandable(manager, arg);
      const o = (arg && typeof arg === 'object' ? arg : {}) as MergeArgs;
      const interactive = o.confirm !== false;
      if (interactive) {
        await confirmCheckBeforeMerge(manager, id);
      }
      const record = manager.get(id);
      const how = o.strategy ?? strategy();
      const message =
        o.message ?? (how === 'merge' ? `Merge agent "${record.title}" (${record.branch})` : record.title);
      let result = await landing.merge(id, how, message);
      if (result.kind === 'uncommitted') {
        const commitFirst = vscode.l10n.t('Commit and Merge');
        const ok = interactive
          ? (await vscode.window.showWarningMessage(
              vscode.l10n.t(
                'Agent "{0}" has {1} uncommitted files. Commit them to its branch first?',
                record.title,
                result.files,
              ),
              { modal: true },
              commitFirst,
            )) === commitFirst
          : o.commit === true;
        if (!ok) {
          if (!interactive) {
            throw new AgentError('uncommittedFiles', { title: record.title, count: result.files });
          }
          cancelled();
        }
        await commitWork(id, interactive ? undefined : record.title);
        result = await landing.merge(id, how, message);
      }
      if (result.kind === 'dirtyMain' && interactive) {
        const stash = vscode.l10n.t('Stash My Changes and Merge');
        const detail = vscode.l10n.t(
          'Your uncommitted changes to {0} would be overwritten. They can be stashed (git stash) and the merge run; get them back later with git stash pop.',
          result.files.join(', '),
        );
        if (
          (await vscode.window.showWarningMessage(
            vscode.l10n.t('The workspace has uncommitted changes to files this merge touches.'),
            { modal: true, detail },
            stash,
          )) !== stash
        ) {
          cancelled();
        }
        await landing.stashBlockingChanges(id, result.files);
        result = await landing.merge(id, how, message);
      }
      if (!interactive || (result.kind === 'merged' && o.quietOnMerge)) {
        return result;
      }
      await report(result, id);
      return result;
    },
    cleanUp: async () => {
      const repoRoots = manager.list().map((r) => r.repoRoot);
      const { removed } = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Cleaning up agents…') },
        () => landing.cleanUp(),
      );
      const keep = { label: vscode.l10n.t('Keep all saved work'), days: 0 };
      const ages = [
        keep,
        ...[7, 30, 90].map((days) => ({
          label: vscode.l10n.t('Also delete saved work older than {0} days', days),
          days,
        })),
      ];
      const age = await vscode.window.showQuickPick(ages, {
        title:
          removed === 0
            ? vscode.l10n.t('No merged or discarded agents to remove')
            : vscode.l10n.t('Removed {0} merged or discarded agents', removed),
        placeHolder: vscode.l10n.t(
          'Their work stays saved under refs/parallel-agents/saved/ unless you choose otherwise',
        ),
      });
      if (age && age.days > 0) {
        const deleted = await landing.deleteSavedWork(repoRoots, age.days * 24 * 3600 * 1000, Date.now());
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Deleted {0} saved work refs older than {1} days.', deleted, age.days),
        );
      }
    },
  };

  async function report(result: MergeResult, id: string): Promise<void> {
    const record = manager.get(id);
    switch (result.kind) {
      case 'dirtyMain':
        throw new AgentError('mergeTouchesDirtyFiles', { files: result.files });
      case 'conflicts': {
        const resolve = vscode.l10n.t('Resolve in Agent Worktree');
        const send = vscode.l10n.t('Send Conflicts to Agent');
        const detail = vscode.l10n.t('Nothing was changed. Conflicting files:\n{0}', result.files.join('\n'));
        const choice = await vscode.window.showWarningMessage(
          vscode.l10n.t('Merging agent "{0}" into {1} would conflict.', record.title, result.target),
          { modal: true, detail },
          resolve,
          send,
        );
        if (choice === resolve) {
          const conflicts = await landing.resolveInWorktree(id);
          for (const file of conflicts.slice(0, 5)) {
            await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(joinPath(record.cwd, file)), {
              preview: false,
            });
          }
        } else if (choice === send) {
          await landing.sendConflictsToAgent(id, result.files);
        }
        return;
      }
      case 'merged': {
        const remove = vscode.l10n.t('Remove Worktree');
        const choice = await vscode.window.showInformationMessage(
          vscode.l10n.t('Merged agent "{0}" into {1}.', record.title, result.target),
          remove,
        );
        if (choice === remove) {
          await landing.removeMergedWorktree(id);
        }
        return;
      }
      default:
        return;
    }
  }
}
