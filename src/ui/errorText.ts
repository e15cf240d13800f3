/**
 * The English text of every AgentError code, with the values that fill its {0}, {1}…: the one table
 * errorMessages.ts translates through vscode.l10n.t. Free of `vscode`, so plain tests can read it.
 */
import type { AgentStatus } from '../core/agent';
import type { AgentError, AgentErrorCode, AgentErrorData } from '../core/errors';
import type { TaskState } from '../core/plans';

/** A value for a placeholder; a status, a task state or a text of its own is shown in the user's language. */
export type TextArg =
  | string
  | number
  | { readonly agentStatus: AgentStatus }
  | { readonly taskState: TaskState }
  | { readonly text: ErrorText };

/** A message template (the English text, which is also its l10n key) and the values of its placeholders. */
export interface ErrorText {
  readonly template: string;
  readonly args: readonly TextArg[];
}

/**
 * Marks a template for translation without translating it: errorMessages.ts does, through
 * vscode.l10n.t. The l10n test reads these calls like vscode.l10n.t calls (a literal, in both bundles).
 */
export const l10n = { t: (template: string, ...args: TextArg[]): ErrorText => ({ template, args }) };

/** Up to five names, then an ellipsis. */
function someOf(names: readonly string[]): string {
  return `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
}

type Table = { readonly [C in AgentErrorCode]: (data: AgentErrorData[C]) => ErrorText };

const texts: Table = {
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
  noSuchAgent: (d) => l10n.t('There is no agent with id "{0}".', d.id),
  duplicateAgentId: (d) => l10n.t('There is already an agent with id "{0}".', d.id),
  worktreeRootDiskFull: (d) =>
    l10n.t(
      'The disk is full: the folder for worktrees, {0}, cannot be created — free some space, then try again.',
      d.path,
    ),
  worktreeRootNotCreated: (d) =>
    l10n.t('The folder for worktrees, {0}, cannot be created — check parallelAgents.worktreeRoot.', d.path),
  agentStillRunning: (d) => l10n.t('Agent "{0}" is still running — wait for it to finish or stop it first.', d.title),
  agentNotRunning: (d) => l10n.t('Agent "{0}" is not running ({1}).', d.title, { agentStatus: d.status }),
  notDetached: (d) =>
    l10n.t('Agent "{0}" is {1}: only a detached terminal agent can be reopened in a terminal.', d.title, {
      agentStatus: d.status,
    }),
  worktreeMissing: (d) =>
    l10n.t('The worktree folder of agent "{0}" is missing — restore it or forget the agent.', d.title),
  invalidTransition: (d) => l10n.t('An agent cannot go from "{0}" to "{1}".', d.from, d.to),
  noSavedWorktree: (d) => l10n.t('Agent "{0}" has no saved worktree to restore.', d.title),
  noWorktreeBranch: (d) =>
    l10n.t('Agent "{0}" has no worktree branch to land — it worked in the workspace itself.', d.title),
  workspaceDetachedHead: (d) =>
    l10n.t(
      'The workspace at {0} has no branch checked out (detached HEAD) — check out the branch to merge into.',
      d.repoRoot,
    ),
  nothingLeftToRestore: (d) =>
    l10n.t(
      'Nothing is left of agent "{0}": its branch {1} and saved work are gone. Forget it instead.',
      d.title,
      d.branch,
    ),
  unrelatedHistory: (d) =>
    l10n.t('The branch {0} shares no history with HEAD of {1}, so its changes cannot be shown.', d.branch, d.repoRoot),
  noMatchingOrphan: (d) =>
    d.key === undefined
      ? l10n.t('No orphaned worktree or branch matches (nothing given) — run Reconcile Agents first.')
      : l10n.t('No orphaned worktree or branch matches {0} — run Reconcile Agents first.', d.key),
  notMissingWorktree: (d) => l10n.t('Agent "{0}" is not missing its worktree.', d.title),
  unknownProfile: (d) => l10n.t('There is no agent profile named "{0}".', d.name),
  executableMissing: (d) =>
    l10n.t(
      '{0} does not exist or is not executable — install it or edit parallelAgents.profiles (profile "{1}").',
      d.command,
      d.profile,
    ),
  executableNotOnPath: (d) =>
    l10n.t(
      '{0} was not found on PATH — install it or edit parallelAgents.profiles (profile "{1}").',
      d.command,
      d.profile,
    ),
  emptyTask: () => l10n.t('The task is empty — describe what the agent should do.'),
  emptyFollowUp: () => l10n.t('The follow-up is empty — say what the agent should do next.'),
  nulInTask: () => l10n.t('The task contains a NUL character (\\0), which cannot be passed to an agent — remove it.'),
  nulInFollowUp: () =>
    l10n.t('The follow-up contains a NUL character (\\0), which cannot be passed to an agent — remove it.'),
  taskTooLong: (d) =>
    l10n.t(
      "The task is {0} KB; an agent's command line takes at most {1} KB — put the details in a file in the repository and refer to it.",
      d.kb,
      d.maxKb,
    ),
  followUpTooLong: (d) =>
    l10n.t(
      "The follow-up is {0} KB; an agent's command line takes at most {1} KB — put the details in a file in the repository and refer to it.",
      d.kb,
      d.maxKb,
    ),
  invalidBranchPrefix: (d) => l10n.t('parallelAgents.branchPrefix "{0}" is not a valid git branch prefix.', d.prefix),
  worktreeRootInsideRepository: (d) =>
    l10n.t(
      'parallelAgents.worktreeRoot "{0}" is inside the repository {1}: its worktrees would show up in the repository\'s status, search and file watching. Choose a folder outside it.',
      d.worktreeRoot,
      d.repoRoot,
    ),
  planTargetDetached: (d) =>
    l10n.t('The workspace at {0} has no branch checked out — check out the branch to land the plan on.', d.repoRoot),
  taskHasNoAgent: (d) => l10n.t('Task "{0}" has no agent yet.', d.taskId),
  invalidMaxParallel: (d) => l10n.t('maxParallel must be a whole number of at least 1, not {0}.', d.value),
  noSuchTask: (d) => l10n.t('The plan has no task "{0}".', d.taskId),
  taskNotRetryable: (d) => l10n.t('Task "{0}" cannot be retried while it is {1}.', d.taskId, { taskState: d.state }),
  taskNotSkippable: (d) => l10n.t('Task "{0}" cannot be skipped while it is {1}.', d.taskId, { taskState: d.state }),
  noSuchPlanRun: (d) => l10n.t('There is no plan run with id "{0}".', d.runId),
  planStillRunning: (d) => l10n.t('Plan "{0}" is still running ({1}): stop it first.', d.title, d.tasks.join(', ')),
  duplicateTaskId: (d) => l10n.t('Two tasks have the id "{0}".', d.taskId),
  unknownDependency: (d) => l10n.t('Task "{0}" depends on "{1}", which is not in the plan.', d.taskId, d.dependency),
  dependencyCycle: (d) => l10n.t('Tasks depend on each other in a cycle: {0}.', d.cycle.join(' → ')),
  setupCommandNotStarted: (d) =>
    l10n.t(
      'The setup command (parallelAgents.setupCommand) {0} could not be started: {1}; the agent was not started.',
      d.command,
      d.error,
    ),
  setupCommandKilled: (d) =>
    l10n.t(
      'The setup command (parallelAgents.setupCommand) {0} was ended by {1}; the agent was not started.',
      d.command,
      d.signal,
    ),
  setupCommandFailed: (d) =>
    l10n.t(
      'The setup command (parallelAgents.setupCommand) {0} failed with exit code {1}; the agent was not started.',
      d.command,
      d.exitCode ?? '?',
    ),
  submodulesFailed: (d) =>
    l10n.t(
      'Initialising the submodules (parallelAgents.initSubmodules) with {0} failed; the agent was not started and its worktree is kept.',
      d.command,
    ),
  worktreePrepFailed: () => l10n.t('Preparing the worktree failed:'),
  agentDiskFull: (d) =>
    l10n.t(
      'The disk is full: the agent could not write in {0} (its log says "No space left on device") — free some space (or set parallelAgents.worktreeRoot to a folder on a disk with room), then send a follow-up or dispatch it again. Its work so far is kept.',
      d.cwd,
    ),
  supervisorFailed: (d) => l10n.t('supervisor failed: {0}', d.error),
  supervisorNotStarted: (d) => l10n.t('could not start the supervisor: {0}', d.error),
  taskWaitingFor: (d) => l10n.t('waiting for {0}', d.tasks.join(', ')),
  taskBlockedBy: (d) => l10n.t('blocked by {0}', d.tasks.join(', ')),
  taskConflicted: () => l10n.t('conflicts while integrating'),
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
  noResult: (d) => l10n.t('Agent "{0}" has reported no result.', d.title),
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
  noMissingAgent: () => l10n.t('No agent is missing its worktree — run Reconcile Agents first.'),
  noPlanTask: () => l10n.t('Choose a task of a plan in the Agents view.'),
  noPlanRunning: () => l10n.t('No plan is running.'),
  noPlanToRemove: () => l10n.t('There is no plan to remove.'),
  noPlanFile: () => l10n.t('No plan file found: create a *.agents.json file, or run Plan with Agent.'),
  invalidPlanFile: (d) => l10n.t('{0} is not a valid plan ({1} problems): {2}', d.name, d.count, d.problems),
  invalidAgentPlan: (d) =>
    l10n.t("The agent's plan is not valid ({0} problems); its reply is shown. Nothing was dispatched.", d.count),
};

/** The template and values of `code` with `data`; undefined for a code this table does not know. */
export function textOf<C extends AgentErrorCode>(code: C, data: AgentErrorData[C]): ErrorText | undefined {
  const make = texts[code] as ((data: AgentErrorData[C]) => ErrorText) | undefined;
  return make?.(data);
}

/** Whether the table has a text for `code` (the test checks every code). */
export function hasText(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(texts, code);
}

/** Fills {0}, {1}… like vscode.l10n.t does; `arg` turns each value into text. */
export function fill(template: string, args: readonly TextArg[], arg: (a: TextArg) => string = plainArg): string {
  return template.replace(/\{(\d+)\}/g, (whole, n: string) => {
    const value = args[Number(n)];
    return value === undefined ? whole : arg(value);
  });
}

/** A value as English text: statuses and task states by their ids. */
export function plainArg(a: TextArg): string {
  if (typeof a !== 'object') {
    return String(a);
  }
  return 'agentStatus' in a ? a.agentStatus : 'taskState' in a ? a.taskState : fill(a.text.template, a.text.args);
}

/** The English message of an AgentError: what the user reads under an English UI. */
export function englishMessage(e: AgentError): string {
  const text = textOf(e.code, e.data);
  return text ? fill(text.template, text.args) : e.message;
}

/** `text` as kept in a record, in English: what an English UI shows (and tests read). */
export function englishStored(text: string): string {
  return renderStored(text, (t) => fill(t.template, t.args));
}

/**
 * `text` as kept in a record (an agent's error, a task's reason, a reconcile failure) with each
 * line that ends in an AgentError's message (`code {json}`) rendered by `render`; any other text,
 * such as an older record's sentence, stays as it is.
 */
export function renderStored(text: string, render: (text: ErrorText) => string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^(.*?)\b([a-z][A-Za-z]+) (\{.*\})$/.exec(line);
      if (!m || !hasText(m[2])) {
        return line;
      }
      try {
        const text = textOf(m[2] as AgentErrorCode, JSON.parse(m[3]) as never);
        return text ? `${m[1]}${render(text)}` : line;
      } catch {
        return line;
      }
    })
    .join('\n');
}
