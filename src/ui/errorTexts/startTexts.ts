/** The texts of the codes of Dispatch Agent on Branch: an existing branch, a pull request's head. */
import { l10n, type Texts } from './textTemplate';

export const startTexts = {
  branchNotFound: (d) => l10n.t('There is no local branch named {0} in the repository at {1}.', d.branch, d.repoRoot),
  branchCheckedOut: (d) => {
    switch (d.where) {
      case 'current':
        return l10n.t(
          'Cannot start an agent on {0}: it is the branch checked out in {1}. Dispatch on a new branch, or switch that folder to another branch first.',
          d.branch,
          d.path,
        );
      case 'main':
        return l10n.t(
          'Cannot start an agent on {0}: it is checked out in the main worktree at {1}. Switch that worktree to another branch first.',
          d.branch,
          d.path,
        );
      default:
        return l10n.t(
          'Cannot start an agent on {0}: it is checked out in the worktree at {1}. Remove that worktree (or switch it to another branch) first.',
          d.branch,
          d.path,
        );
    }
  },
  startNeedsWorktree: () =>
    l10n.t(
      "An agent on an existing branch, a pull request or another agent's work works in a worktree of its own: choose worktree isolation.",
    ),
  invalidPullRequest: (d) => l10n.t('"{0}" is not a pull request number: give a whole number such as 42.', d.value),
  pullRequestNoRemote: (d) =>
    d.remotes.length === 0
      ? l10n.t(
          'Cannot fetch pull request #{0}: the repository at {1} has no remote. Add one (git remote add origin <url>), then try again.',
          d.number,
          d.repoRoot,
        )
      : l10n.t(
          'Cannot fetch pull request #{0}: the repository at {1} has no remote named {2} (it has {3}).',
          d.number,
          d.repoRoot,
          d.remote,
          d.remotes.join(', '),
        ),
  pullRequestNotFound: (d) =>
    l10n.t('{0} has no pull request #{1} (no ref refs/pull/{1}/head there). Nothing was created.', d.remote, d.number),
} satisfies Partial<Texts>;
