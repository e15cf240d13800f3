/** The texts of the codes of accepting and reverting an agent's lines and of review comments (src/core/review). */
import { l10n, type Texts } from './textTemplate';

export const reviewTexts = {
  binaryHunks: (d) =>
    l10n.t(
      '{0} is a binary file (or not UTF-8 text), so its lines cannot be taken one by one — use Accept File or Revert File in Agent. Nothing was changed.',
      d.path,
    ),
  noChangeSelected: (d) =>
    l10n.t(
      'No change of the agent is in the selected lines of {0}: select changed lines, or put the cursor in a change. Nothing was changed.',
      d.path,
    ),
  hunkNoLongerApplies: (d) =>
    l10n.t(
      "Lines {1} of {0} in the workspace are no longer as they were at the agent's base commit (edited since?), so the agent's change there cannot be applied. Nothing was changed.",
      d.path,
      d.lines,
    ),
  unsavedAgentEditor: (d) =>
    l10n.t(
      "{0} has unsaved changes on the agent's side of the diff — save or revert them first, so the selected lines are the file's.",
      d.path,
    ),
  emptyReview: (d) =>
    l10n.t(
      'Agent "{0}" has no pending review comment: comment on lines of its changed files (on the agent\'s side of a diff) first. Nothing was sent.',
      d.title,
    ),
  noPendingReview: () =>
    l10n.t(
      "No agent has a pending review comment: comment on lines of an agent's changed files (on the agent's side of a diff) first. Nothing was sent.",
    ),
  emptyComment: () => l10n.t('A review comment needs some text. Nothing was saved.'),
  reviewFileDeleted: (d) =>
    l10n.t(
      'Agent "{0}" deleted {1}, so it has no lines to comment on or to quote: comment on a file the agent kept. Nothing was changed.',
      d.title,
      d.path,
    ),
  reviewFileNotChanged: (d) =>
    l10n.t(
      '{1} is not among the files agent "{0}" changed: review comments go on lines of its changed files. Nothing was changed.',
      d.title,
      d.path,
    ),
  nothingToReview: (d) =>
    l10n.t(
      'Agent "{0}" has no changed text file in its folder (its folder is gone, or it changed only binary or deleted files), so there is nothing for a reviewer to comment on. Nothing was run.',
      d.title,
    ),
  reviewStillRunning: (d) =>
    l10n.t('A reviewer is already reviewing agent "{0}": wait for its comments. Nothing else was run.', d.title),
  reviewerNotStarted: (d) =>
    l10n.t('The reviewer (profile "{0}") could not be started: {1}. No comment was added.', d.profile, d.error),
} satisfies Partial<Texts>;
