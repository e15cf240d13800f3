/** The texts of the codes of Create Pull Request: remotes, the push, the pull request. */
import { l10n, type Texts } from './textTemplate';

export const remoteTexts = {
  noRemote: (d) =>
    l10n.t(
      'Cannot push {0}: the repository at {1} has no remote. Add one (git remote add origin <url>), then try again.',
      d.branch,
      d.repoRoot,
    ),
  remoteAmbiguous: (d) =>
    l10n.t(
      'Cannot tell which remote to push {0} to: none of {1} is its upstream or named origin. Set its upstream (git branch --set-upstream-to) or push it once yourself, then try again.',
      d.branch,
      d.remotes.join(', '),
    ),
  pushUncommitted: (d) =>
    l10n.t(
      'Agent "{0}" has {1} uncommitted files: run Commit Agent Work first, then Create Pull Request.',
      d.title,
      d.count,
    ),
  pullRequestFailed: (d) =>
    l10n.t(
      '{0} could not open a pull request for {1}; the branch is pushed. Show Log has its words.',
      d.tool,
      d.branch,
    ),
} satisfies Partial<Texts>;
