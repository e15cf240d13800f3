/** The texts of the codes thrown by git and the files it writes (src/node). */
import { l10n, someOf, type Texts } from './textTemplate';

export const gitTexts = {
  gitNotFound: (d) =>
    l10n.t(
      'Git was not found (looked for "{0}" on the PATH). Install git, make sure VS Code sees it on its PATH, then reload the window.',
      d.binary,
    ),
  gitDiskFull: (d) =>
    l10n.t(
      'The disk is full: git could not write in {0} — free some space (or set parallelAgents.worktreeRoot to a folder on a disk with room), then try again.',
      d.cwd,
    ),
  bareRepository: (d) =>
    l10n.t(
      '{0} is a git repository that has no work tree (a bare repository, or a .git folder) — open the folder of a checkout instead.',
      d.cwd,
    ),
  notARepository: (d) =>
    l10n.t('{0} is not inside a git repository — open a folder that is a git repository, or run git init', d.folder),
  gitCommandFailed: (d) => l10n.t('{0} failed in {1}', d.command, d.cwd),
  worktreeCommandFailed: (d) => l10n.t('{0} failed in {1}', d.command, d.cwd),
  worktreeDiskFull: (d) =>
    d.freeKb === undefined
      ? l10n.t(
          'The disk is full: git could not write the worktree {0} — free some space, or set parallelAgents.worktreeRoot to a folder on a disk with room, then try again.',
          d.path,
        )
      : l10n.t(
          'The disk is full: git could not write the worktree {0} ({1} KB free) — free some space, or set parallelAgents.worktreeRoot to a folder on a disk with room, then try again.',
          d.path,
          d.freeKb,
        ),
  noCommits: (d) =>
    l10n.t('The repository at {0} has no commits yet — make a first commit, then dispatch agents.', d.repoRoot),
  invalidRefName: (d) => l10n.t('"{0}" is not a commit or branch name.', d.ref),
  unknownCommit: (d) => l10n.t('"{0}" is not a commit or branch of the repository at {1}.', d.ref, d.repoRoot),
  notAFullRef: (d) => l10n.t('Expected a full ref name under refs/, not "{0}".', d.ref),
  mergeTreeUnreadable: (d) => l10n.t('git merge-tree --stdin gave an answer that could not be read in {0}', d.repoRoot),
  mergeTreeOutputUnexpected: (d) => l10n.t('Unexpected git merge-tree output for merge {0} of {1}.', d.merge, d.count),
  mergeTreeOutputTruncated: (d) => l10n.t('The git merge-tree output ended inside merge {0} of {1}.', d.merge, d.count),
  catFileOutputUnexpected: (d) =>
    l10n.t('Unexpected git cat-file --batch output at file {0} of {1}.', d.answer, d.count),
  branchExists: (d) => l10n.t('A branch named {0} already exists.', d.branch),
  worktreeLocked: (d) => l10n.t('The worktree {0} is locked; remove it with force.', d.path),
  worktreeStillExists: (d) => l10n.t('The worktree {0} still exists on disk; it is not stale.', d.path),
  worktreeNotListed: (d) => l10n.t('The worktree {0} is not listed by git worktree list.', d.path),
  worktreeOnOtherBranch: (d) =>
    d.branch === undefined
      ? l10n.t('The worktree {0} has no branch checked out instead of {1}.', d.path, d.expected)
      : l10n.t('The worktree {0} has {1} checked out instead of {2}.', d.path, d.branch, d.expected),
  worktreeNotCreated: (d) => {
    switch (d.problem) {
      case 'notListed':
        return l10n.t('The worktree {0} was not created properly: it is not listed by git worktree list.', d.path);
      case 'locked':
        return l10n.t('The worktree {0} was not created properly: it is locked.', d.path);
      case 'prunable':
        return l10n.t('The worktree {0} was not created properly: it is prunable.', d.path);
      case 'otherBranch':
        return d.branch === undefined
          ? l10n.t(
              'The worktree {0} was not created properly: it has no branch checked out instead of {1}.',
              d.path,
              d.expected,
            )
          : l10n.t(
              'The worktree {0} was not created properly: it has {1} checked out instead of {2}.',
              d.path,
              d.branch,
              d.expected,
            );
      case 'otherHead':
        return d.head === undefined
          ? l10n.t('The worktree {0} was not created properly: its HEAD is not {1}.', d.path, d.expected)
          : l10n.t(
              'The worktree {0} was not created properly: its HEAD is {1} instead of {2}.',
              d.path,
              d.head,
              d.expected,
            );
    }
  },
  noSavedWork: (d) => l10n.t('There is no saved work at {0}.', d.ref),
  notSavedWork: (d) => l10n.t('{0} is not saved work: its commit has no parent.', d.ref),
  restoreFolderNotEmpty: (d) => l10n.t('Cannot restore into {0}: the folder exists and is not empty.', d.path),
  branchMovedSinceSave: (d) =>
    l10n.t(
      'Cannot restore the saved work on {0}: the branch now points at {1}, not at {2} where the work was saved. Rename or delete the branch, or restore onto another one.',
      d.branch,
      d.now.slice(0, 10),
      d.saved.slice(0, 10),
    ),
  fileOutsideFolder: (d) => l10n.t('{0} is not a file inside {1}.', d.path, d.cwd),
  unresolvedConflicts: (d) => l10n.t('Resolve the conflicts first; still marked: {0}.', someOf(d.files)),
  mergeWouldOverwrite: (d) =>
    l10n.t('Uncommitted changes in {0} would be overwritten by merging {1}; commit them first.', d.cwd, d.ref),
  changesWouldBeOverwritten: (d) =>
    l10n.t('Uncommitted changes in {0} would be overwritten; commit or discard them first.', d.cwd),
  detachedHead: (d) =>
    l10n.t('No branch is checked out in {0} (detached HEAD): check out the branch to land on first.', d.cwd),
  landOnItself: (d) => l10n.t('{0} is the branch checked out in {1}; it cannot be landed on itself.', d.branch, d.cwd),
  stagedChanges: (d) => l10n.t('{0} has staged changes; commit or unstage them before landing.', d.cwd),
  landingWouldOverwrite: (d) =>
    l10n.t(
      'Landing would overwrite uncommitted changes in {0}: {1}. Commit or discard them first.',
      d.cwd,
      someOf(d.files),
    ),
  rebaseWrongBranch: (d) =>
    d.branch === undefined
      ? l10n.t('{0} has no branch checked out, not {1}: cannot rebase it there.', d.cwd, d.expected)
      : l10n.t('{0} has {1} checked out, not {2}: cannot rebase it there.', d.cwd, d.branch, d.expected),
  rebaseUncommitted: (d) => l10n.t('{0} has uncommitted changes; commit them before rebasing {1}.', d.cwd, d.branch),
  refusingToRemove: (d) => l10n.t('Refusing to remove {0}.', JSON.stringify(d.path)),
  invalidAgentId: (d) => l10n.t('Invalid agent id for a file name: {0}', JSON.stringify(d.id)),
} satisfies Partial<Texts>;
