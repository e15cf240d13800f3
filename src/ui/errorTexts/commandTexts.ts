/** The texts of the codes thrown by the commands (src/ui). */
import { l10n, type Texts } from './textTemplate';

export const commandTexts = {
  cancelled: () => l10n.t('Cancelled.'),
  untrustedDispatch: () => l10n.t('Agents run code and git hooks: trust this workspace before dispatching an agent.'),
  untrustedPlan: () => l10n.t('Plans run agents and git hooks: trust this workspace first.'),
  noFolderToDispatch: () => l10n.t('Open a folder that is a git repository to dispatch an agent.'),
  noFolderForPlan: () => l10n.t('Open a folder that is a git repository to run a plan.'),
  folderNotARepository: (d) =>
    l10n.t(
      '{0} is not a git repository: an agent works on a branch of its own in a git worktree. Open a folder that is a git repository (or run git init there and make a first commit), then dispatch again.',
      d.folder,
    ),
  noFolderIsARepository: (d) =>
    l10n.t(
      'None of the workspace folders ({0}) is a git repository: an agent works on a branch of its own in a git worktree. Add a folder that is a git repository to the workspace (or run git init in one and make a first commit), then dispatch again.',
      d.folders.join(', '),
    ),
  noAgentApplies: () => l10n.t('There is no agent this applies to.'),
  notBestOfCandidate: (d) =>
    l10n.t('Agent "{0}" is not a candidate of a Best of N: dispatch one with Dispatch Best of N.', d.title),
  noResult: (d) => l10n.t('Agent "{0}" has reported no result.', d.title),
  noLog: (d) => l10n.t('Agent "{0}" has no log file: it has written no output yet, or its log was deleted.', d.title),
  notInWorktree: (d) => l10n.t('Agent "{0}" works in the workspace itself, not in a worktree.', d.title),
  terminalClosed: (d) => l10n.t('The terminal of agent "{0}" has closed.', d.title),
  noFileRow: () => l10n.t('Open a change from a file row of the Agents view.'),
  noAgentFile: () => l10n.t('Choose a file of an agent in the Agents view, or open one of its diffs.'),
  changeGone: (d) => l10n.t('{0} is no longer among the changes of agent "{1}".', d.path, d.title),
  changeNotListed: (d) => l10n.t('{0} is no longer among the changes of agent "{1}".', d.path, d.title),
  worksInWorkspace: (d) =>
    l10n.t('Agent "{0}" works in the workspace itself; use Source Control to revert its files.', d.title),
  alreadyInWorkspace: (d) => l10n.t('Agent "{0}" already works in the workspace: its changes are there.', d.title),
  unsavedEditor: (d) =>
    l10n.t("{0} has unsaved changes in an editor — save or revert them before accepting the agent's version.", d.path),
  uncommittedFiles: (d) =>
    l10n.t('Agent "{0}" has {1} uncommitted files: commit them first (pass commit: true).', d.title, d.count),
  mergeTouchesDirtyFiles: (d) =>
    l10n.t(
      'The workspace has uncommitted changes to files this merge touches ({0}) — commit or stash them, then merge again.',
      d.files.join(', '),
    ),
  resolveUncommitted: (d) =>
    l10n.t(
      'Agent "{0}" has {1} uncommitted files in its worktree, and they would end up in the merge: commit them (Commit Agent Work) or discard them, then ask again. Nothing was changed.',
      d.title,
      d.count,
    ),
  resolveMergeInProgress: (d) =>
    l10n.t(
      'The worktree of agent "{0}" already has a merge in progress: send the agent a follow-up to resolve its conflict markers, or resolve them yourself and run Commit Agent Work (git merge --abort there gives the merge up). Nothing was changed.',
      d.title,
    ),
  noForecastConflicts: () =>
    l10n.t('The last forecast found no agent with conflicts: run Forecast Conflicts first. Nothing was changed.'),
  agentHasNoConflicts: (d) =>
    l10n.t(
      'The last forecast found no conflict for agent "{0}": run Forecast Conflicts again if its branch or the workspace moved on. Nothing was changed.',
      d.title,
    ),
  noMissingAgent: () => l10n.t('No agent is missing its worktree — run Reconcile Agents first.'),
  noPlanTask: () => l10n.t('Choose a task of a plan in the Agents view.'),
  noPlanRunning: () => l10n.t('No plan is running.'),
  noPlanToRemove: () => l10n.t('There is no plan to remove.'),
  noPlanFile: () => l10n.t('No plan file found: create a *.agents.json file, or run Plan with Agent.'),
  invalidPlanFile: (d) => l10n.t('{0} is not a valid plan ({1} problems): {2}', d.name, d.count, d.problems),
  invalidAgentPlan: (d) =>
    l10n.t("The agent's plan is not valid ({0} problems); its reply is shown. Nothing was dispatched.", d.count),
} satisfies Partial<Texts>;
