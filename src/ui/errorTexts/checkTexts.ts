/** The texts of the codes of the check command (parallelAgents.checkCommand, src/core/agents/checkRuns.ts). */
import { l10n, type Texts } from './textTemplate';

export const checkTexts = {
  noCheckCommand: (d) =>
    l10n.t(
      'No check command is set for agent "{0}": set parallelAgents.checkCommand in your user settings (an argv array such as ["npm", "test"]), or checkCommand in its profile. Nothing was run.',
      d.title,
    ),
  checkCommandNotFound: (d) =>
    l10n.t(
      'The check command {0} was not found (not on PATH, or the path does not exist). Check parallelAgents.checkCommand; nothing else was changed.',
      d.command,
    ),
  checkCommandNotStarted: (d) => l10n.t('The check command {0} could not be started: {1}', d.command, d.error),
  checkStillRunning: (d) =>
    l10n.t('The check of agent "{0}" is still running: wait for its result, then try again.', d.title),
  noFailingCheck: (d) =>
    l10n.t('The last check of agent "{0}" did not fail: there is no failure to send. Run Check first.', d.title),
  nothingToCheck: (d) =>
    l10n.t('Agent "{0}" has no folder to check any more (merged, discarded or its worktree is missing).', d.title),
} satisfies Partial<Texts>;
