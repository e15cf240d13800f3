/** The texts of the codes of stacked agents: dispatching on top of another agent, Rebase on Parent. */
import { l10n, type Texts } from './textTemplate';

export const stackTexts = {
  stackParentUnfit: (d) => {
    switch (d.reason) {
      case 'terminal':
        return l10n.t(
          'Cannot stack an agent on "{0}": it works in the workspace, not in a worktree of its own. Dispatch a new agent instead.',
          d.title,
        );
      case 'noWorktree':
        return l10n.t(
          'Cannot stack an agent on "{0}": its worktree is gone. Restore it first (Restore Agent), or dispatch a new agent.',
          d.title,
        );
      default:
        return l10n.t(
          'Cannot stack an agent on "{0}": it was already merged or discarded. Dispatch a new agent from the current branch instead.',
          d.title,
        );
    }
  },
  notStacked: (d) => l10n.t('Agent "{0}" is not stacked on another agent: it has no parent to rebase on.', d.title),
  stackParentGone: (d) =>
    l10n.t(
      'Agent "{0}" was stacked on "{1}", which is no longer in the list: there is no parent to rebase on. Its own work is unchanged.',
      d.title,
      d.parent,
    ),
  rebaseOnParentConflict: (d) =>
    l10n.t(
      "The agent's work in {0} does not apply cleanly on top of its parent's new work. Nothing was changed. Ask Agent to Resolve merges the parent's work into its worktree and sends it the conflicts; or merge the parent first.",
      d.cwd,
    ),
  rebaseOnParentUncommitted: (d) =>
    l10n.t(
      'The worktree {0} has {1} commits of its own and uncommitted changes too: commit or revert those changes first (or ask the agent to), then rebase on the parent. Nothing was changed.',
      d.cwd,
      d.commits,
    ),
} satisfies Partial<Texts>;
