/** Dispatch Best of N: one task to N agents at once, N copies of one profile or one per chosen profile. */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import { bestOfLimits, checkBestOfCount } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { titleFromPrompt } from '../../core/naming';
import { cancelled } from '../commands/commandRunner';
import { askPrompt, askTitle, type DispatchDeps, pickProfile, rememberProfile } from '../commands/dispatchCommand';
import { checkedRepositoryFolder, pickRepositoryFolder } from '../commands/folderPick';

export interface BestOfArgs {
  readonly prompt?: string;
  /** N copies of this profile (default: the default profile)… */
  readonly profile?: string;
  readonly count?: number;
  /** …or one candidate per profile listed here. */
  readonly profiles?: readonly string[];
  readonly title?: string;
  readonly folder?: string;
}

/** Asks for whatever the arguments leave open; returns the candidates' ids. */
export async function dispatchBestOfCommand(deps: DispatchDeps, args: BestOfArgs = {}): Promise<string[]> {
  if (!vscode.workspace.isTrusted) {
    throw new AgentError('untrustedDispatch', {});
  }
  const interactive = args.prompt === undefined;
  const folder =
    args.folder !== undefined
      ? await checkedRepositoryFolder(deps.git, args.folder)
      : await pickRepositoryFolder(deps.git, {
          title: vscode.l10n.t('Dispatch Best of N: repository'),
          noFolder: 'noFolderToDispatch',
        });
  const prompt = args.prompt ?? (await askPrompt(vscode.l10n.t('Dispatch Best of N: task')));
  const profiles =
    args.profiles ??
    (interactive && args.profile === undefined && args.count === undefined
      ? await askProfiles(deps)
      : copies(args.profile ?? deps.defaultProfile(), args.count ?? 3));
  // Checked here too, before the title is asked: a wrong count is said at once.
  checkBestOfCount(profiles.length);
  const title =
    args.title ?? (interactive ? await askTitle(prompt, vscode.l10n.t('Dispatch Best of N: title')) : undefined);
  for (const profile of new Set(profiles)) {
    await rememberProfile(deps.memento, profile);
  }
  const shown = title || titleFromPrompt(prompt);
  const records = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Dispatching {0} candidates of "{1}"…', profiles.length, shown),
    },
    () => deps.manager.dispatchBestOf({ prompt, profiles, title, folder }),
  );
  const compare = vscode.l10n.t('Compare Candidates');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'Dispatched {0} candidates of "{1}". Compare them when they end, then Pick one: it is merged and the others are discarded.',
        records.length,
        shown,
      ),
      compare,
    )
    .then((choice) =>
      choice === compare ? vscode.commands.executeCommand(commands.compareCandidates, records[0].id) : undefined,
    );
  return records.map((r) => r.id);
}

function copies(profile: string, count: number): string[] {
  checkBestOfCount(count);
  return Array.from({ length: count }, () => profile);
}

/** N copies of one profile (asked, then N), or one per profile ticked in a multi-select pick. */
async function askProfiles(deps: DispatchDeps): Promise<string[]> {
  const same = { label: `$(copy) ${vscode.l10n.t('Several copies of one agent')}` };
  const each = { label: `$(checklist) ${vscode.l10n.t('One of each agent I choose')}` };
  const how = await vscode.window.showQuickPick([same, each], {
    title: vscode.l10n.t('Dispatch Best of N: candidates'),
    ignoreFocusOut: true,
  });
  if (how === same) {
    const profile = await pickProfile(deps, vscode.l10n.t('Dispatch Best of N: agent'));
    return copies(profile, await askCount());
  }
  if (how !== each) {
    cancelled();
  }
  const picked = await vscode.window.showQuickPick(
    deps.profiles().map((p) => ({ label: p.name, description: p.mode })),
    {
      title: vscode.l10n.t('Dispatch Best of N: agents'),
      placeHolder: vscode.l10n.t('Tick {0} to {1} agents: each gets the task', bestOfLimits.min, bestOfLimits.max),
      canPickMany: true,
      ignoreFocusOut: true,
    },
  );
  return picked?.map((p) => p.label) ?? cancelled();
}

async function askCount(): Promise<number> {
  const { min, max } = bestOfLimits;
  const value = await vscode.window.showInputBox({
    title: vscode.l10n.t('Dispatch Best of N: how many'),
    prompt: vscode.l10n.t('How many candidates ({0} to {1})?', min, max),
    value: '3',
    ignoreFocusOut: true,
    validateInput: (v) => {
      const n = Number(v.trim());
      return Number.isInteger(n) && n >= min && n <= max
        ? undefined
        : vscode.l10n.t('Enter a whole number from {0} to {1}.', min, max);
    },
  });
  return value === undefined ? cancelled() : Number(value.trim());
}
