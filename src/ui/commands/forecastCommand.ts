import * as vscode from 'vscode';
import { commands } from '../../constants';
import type { AgentManager } from '../../core/agents';
import {
  forecastRepo,
  liveBranchAgents,
  recordForecast,
  type ForecastGit,
  type RepoForecast,
} from '../../core/landing';

export interface ForecastDeps {
  readonly manager: AgentManager;
  readonly landing: ForecastGit;
  /** Branch checked out in the repository's main worktree; undefined when HEAD is detached. */
  readonly currentBranch: (repoRoot: string) => Promise<string | undefined>;
}

export interface ForecastReport {
  readonly repos: readonly RepoForecast[];
}

/** `arg` `{ quiet: true }` returns the report without any progress, pick or message. */
export async function forecastConflicts(deps: ForecastDeps, arg?: unknown): Promise<ForecastReport> {
  const quiet = !!arg && typeof arg === 'object' && (arg as { quiet?: unknown }).quiet === true;
  const groups = [...liveBranchAgents(deps.manager.list())];
  const run = () =>
    Promise.all(
      groups.map(async ([repoRoot, agents]) =>
        forecastRepo(deps.landing, repoRoot, agents, await deps.currentBranch(repoRoot)),
      ),
    );
  const repos =
    quiet || groups.length === 0
      ? await run()
      : await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Forecasting merge conflicts…') },
          run,
        );
  // The Agents view offers Ask Agent to Resolve Conflicts on the agents found in conflict.
  repos.forEach((repo) => recordForecast(deps.manager, repo));
  const report: ForecastReport = { repos };
  if (!quiet) {
    await show(deps.manager, report);
  }
  return report;
}

async function show(manager: AgentManager, report: ForecastReport): Promise<void> {
  const agentCount = report.repos.reduce((n, r) => n + r.agentIds.length, 0);
  if (agentCount === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('There are no agents with a branch to forecast.'));
    return;
  }
  if (report.repos.every((r) => r.conflicts.length === 0)) {
    void vscode.window.showInformationMessage(
      vscode.l10n.t('No conflicts: the {0} agents merge cleanly in any order.', agentCount),
    );
    return;
  }
  const titles = new Map(manager.list().map((r) => [r.id, r.title]));
  const branches = new Map(manager.list().map((r) => [r.id, r.branch ?? '']));
  const names = { title: (id: string) => titles.get(id) ?? id, branch: (id: string) => branches.get(id) ?? '' };
  const items = report.repos.flatMap((repo) => repoItems(repo, names, report.repos.length > 1));
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Forecast Conflicts'),
    placeHolder: vscode.l10n.t(
      'Forecast from the work committed on each branch; uncommitted changes are not included.',
    ),
    matchOnDetail: true,
  });
  if (picked?.resolve) {
    await vscode.commands.executeCommand(commands.resolveConflicts, picked.resolve);
  }
}

/** A row of the forecast; a conflict's row asks its agent to resolve it when picked. */
interface ForecastItem extends vscode.QuickPickItem {
  readonly resolve?: { readonly agentId: string; readonly target: string };
}

/**
 * Who resolves: the agent, against the branch; of a pair, the later agent, merging in the earlier
 * one's branch (Ask Agent to Resolve Conflicts on the other agent's row does it the other way round).
 */
function resolution(repo: RepoForecast, c: RepoForecast['conflicts'][number], branchOf: (id: string) => string) {
  if (c.otherId === undefined) {
    return repo.currentBranch === undefined ? undefined : { agentId: c.agentId, target: repo.currentBranch };
  }
  return { agentId: c.otherId, target: branchOf(c.agentId) };
}

function repoItems(
  repo: RepoForecast,
  names: { title: (id: string) => string; branch: (id: string) => string },
  namedRepo: boolean,
): ForecastItem[] {
  const title = names.title;
  const branch = repo.currentBranch ?? 'HEAD';
  const suffix = namedRepo ? ` · ${repo.repoRoot.split(/[\\/]/).pop()}` : '';
  const separator = (label: string): vscode.QuickPickItem => ({
    label: label + suffix,
    kind: vscode.QuickPickItemKind.Separator,
  });
  const items: ForecastItem[] = [];
  if (repo.conflicts.length > 0) {
    items.push(separator(vscode.l10n.t('Conflicts')));
    for (const c of repo.conflicts) {
      const [left, right] = c.otherId === undefined ? [branch, title(c.agentId)] : [title(c.agentId), title(c.otherId)];
      items.push({
        label: `$(warning) ${left} ↔ ${right}`,
        description: vscode.l10n.t('{0} files · pick to ask the agent to resolve', c.files.length),
        detail: c.files.join(', ') || vscode.l10n.t('git reported a conflict without naming files'),
        resolve: resolution(repo, c, names.branch),
      });
    }
  }
  items.push(separator(vscode.l10n.t('Suggested merge order')));
  repo.suggestion.clean.forEach((id, i) => items.push({ label: `${i + 1}. ${title(id)}` }));
  for (const n of repo.suggestion.needsResolution) {
    const others = [...(n.conflictsWithBranch ? [branch] : []), ...n.conflictsWith.map(title)].join(', ');
    items.push({ label: vscode.l10n.t('needs resolution: {0} (conflicts with {1})', title(n.id), others) });
  }
  return items;
}
