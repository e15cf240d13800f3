/** The texts of the codes of agents and plans (src/core), and of the reasons kept in their records. */
import { l10n, type Texts } from './textTemplate';

export const agentTexts = {
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
  orphanNowHasRecord: (d) =>
    l10n.t(
      'Agent "{0}" now owns {1} (another window recorded it): it is no orphan, and nothing was changed.',
      d.title,
      d.branch,
    ),
  orphanInUse: (d) =>
    l10n.t(
      'A live process (pid {0}) is working in {1}: it is no orphan, and nothing was changed. Run Reconcile Agents again once it has ended.',
      d.pid,
      d.path,
    ),
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
  sandboxUnavailable: (d) =>
    d.missing === 'bwrap'
      ? l10n.t(
          'Profile "{0}" runs sandboxed, but bubblewrap (bwrap) was not found on PATH — install it (sudo apt install bubblewrap), or run this agent unsandboxed, with its permission prompts. Nothing was created.',
          d.profile,
        )
      : l10n.t(
          'Profile "{0}" runs sandboxed, but the sandbox is not supported on this platform ({1}) yet — run this agent unsandboxed, with its permission prompts, or remove "sandbox" from the profile. Nothing was created.',
          d.profile,
          d.platform,
        ),
  sandboxNeedsWorktree: (d) =>
    l10n.t(
      'Profile "{0}" runs sandboxed, and a sandboxed agent works only in a worktree of its own — dispatch it with worktree isolation.',
      d.profile,
    ),
  bestOfCount: (d) =>
    l10n.t('Best of N takes from {1} to {2} candidates, not {0}: nothing was dispatched.', d.count, d.min, d.max),
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
  stdinPromptInTerminal: (d) =>
    l10n.t(
      'Profile "{0}" gives the task on standard input, so it cannot run in a terminal — run it in the background, or pick another profile.',
      d.profile,
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
  taskNotPicking: (d) => l10n.t('Task "{0}" is not waiting for a pick: it is {1}.', d.taskId, { taskState: d.state }),
  notTaskCandidate: (d) =>
    l10n.t('Agent "{0}" is not a candidate of task "{1}" that succeeded: pick one that did.', d.title, d.taskId),
  planCheckFailed: (d) =>
    l10n.t(
      'the check {0} failed ({1}) after task "{2}" was merged into the integration branch, and still failed after {3} follow-ups asking its agent to fix it',
      d.command,
      d.exit,
      d.taskId,
      d.fixes,
    ),
  noSuchPlanRun: (d) => l10n.t('There is no plan run with id "{0}".', d.runId),
  planStillRunning: (d) => l10n.t('Plan "{0}" is still running ({1}): stop it first.', d.title, d.tasks.join(', ')),
  planDrivenElsewhere: (d) =>
    l10n.t(
      'Plan "{0}" is run by another open window: start, retry or skip its tasks there (Stop Plan works here too).',
      d.title,
    ),
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
  agentQuotaGaveUp: (d) =>
    l10n.t(
      "The agent stopped on its provider's rate or usage limit {0} times in a row and was resumed each time; it is not resumed again. Its work so far is kept: send a follow-up once the limit has reset. The CLI said: {1}",
      d.pauses,
      d.message,
    ),
  registryLocked: (d) =>
    l10n.t(
      'The record {0} is locked by another window for more than {1} s; if no other window is working on this repository, delete {0}.lock and try again.',
      d.file,
      d.seconds,
    ),
  landingLocked: (d) =>
    l10n.t(
      'Another window (process {0} on {1}) has been landing on {2} since {3}; gave up waiting after {4} s. Try again once it is done — if no window is landing there, delete {5}.',
      d.pid,
      d.host,
      d.repoRoot,
      d.since,
      d.seconds,
      d.lockFile,
    ),
  invalidRecordId: (d) => l10n.t('{0} is not a valid record id.', d.id),
  registryNotWritable: (d) =>
    l10n.t(
      'The registry folder {0} cannot be written ({2}), so changes to agents, starting with {1}, are not saved there. The agents are still shown and no record file was changed; make the folder writable, then reload the window.',
      d.folder,
      d.file,
      d.error,
    ),
  supervisorFailed: (d) => l10n.t('supervisor failed: {0}', d.error),
  supervisorNotStarted: (d) => l10n.t('could not start the supervisor: {0}', d.error),
  taskWaitingFor: (d) => l10n.t('waiting for {0}', d.tasks.join(', ')),
  taskBlockedBy: (d) => l10n.t('blocked by {0}', d.tasks.join(', ')),
  taskConflicted: () => l10n.t('conflicts while integrating'),
} satisfies Partial<Texts>;
