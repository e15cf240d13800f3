/** The texts of the codes of accepting and reverting an agent's lines (src/core/review and its commands). */
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
} satisfies Partial<Texts>;
