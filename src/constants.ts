/** Typed ids shared by package.json contributions and code. Keep both in step (a test checks). */
export const extensionId = 'parallel-agents.parallel-agents';

export const commands = {
  dispatch: 'parallelAgents.dispatch',
  dispatchOnBranch: 'parallelAgents.dispatchOnBranch',
  dispatchStacked: 'parallelAgents.dispatchStacked',
  rebaseOnParent: 'parallelAgents.rebaseOnParent',
  tryDemo: 'parallelAgents.tryDemo',
  stop: 'parallelAgents.stop',
  showOutput: 'parallelAgents.showOutput',
  openFullLog: 'parallelAgents.openFullLog',
  showResult: 'parallelAgents.showResult',
  openInBrowser: 'parallelAgents.openInBrowser',
  showAccount: 'parallelAgents.showAccount',
  openWorktree: 'parallelAgents.openWorktree',
  revealTerminal: 'parallelAgents.revealTerminal',
  reopenTerminal: 'parallelAgents.reopenTerminal',
  discard: 'parallelAgents.discard',
  openChange: 'parallelAgents.openChange',
  refresh: 'parallelAgents.refresh',
  showLog: 'parallelAgents.showLog',
  focusView: 'parallelAgents.focus',
  reviewAll: 'parallelAgents.reviewAll',
  markViewed: 'parallelAgents.markViewed',
  markUnviewed: 'parallelAgents.markUnviewed',
  nextToReview: 'parallelAgents.nextToReview',
  acceptFile: 'parallelAgents.acceptFile',
  revertFile: 'parallelAgents.revertFile',
  acceptSelectedRanges: 'parallelAgents.acceptSelectedRanges',
  revertSelectedRanges: 'parallelAgents.revertSelectedRanges',
  followUp: 'parallelAgents.followUp',
  runCheck: 'parallelAgents.runCheck',
  fixFailingCheck: 'parallelAgents.fixFailingCheck',
  openCheckLog: 'parallelAgents.openCheckLog',
  commit: 'parallelAgents.commit',
  merge: 'parallelAgents.merge',
  createPullRequest: 'parallelAgents.createPullRequest',
  restore: 'parallelAgents.restore',
  cleanUp: 'parallelAgents.cleanUp',
  showWorktreesSummary: 'parallelAgents.showWorktreesSummary',
  forecastConflicts: 'parallelAgents.forecastConflicts',
  resolveConflicts: 'parallelAgents.resolveConflicts',
  dispatchPlan: 'parallelAgents.dispatchPlan',
  retryTask: 'parallelAgents.retryTask',
  skipTask: 'parallelAgents.skipTask',
  stopPlan: 'parallelAgents.stopPlan',
  landPlan: 'parallelAgents.landPlan',
  removePlan: 'parallelAgents.removePlan',
  planWithAgent: 'parallelAgents.planWithAgent',
  showTimeline: 'parallelAgents.showTimeline',
  reconcile: 'parallelAgents.reconcile',
  adoptOrphan: 'parallelAgents.adoptOrphan',
  discardOrphan: 'parallelAgents.discardOrphan',
  restoreMissing: 'parallelAgents.restoreMissing',
  forgetAgent: 'parallelAgents.forgetAgent',
  addReviewComment: 'parallelAgents.addReviewComment',
  deleteReviewComment: 'parallelAgents.deleteReviewComment',
  sendReview: 'parallelAgents.sendReview',
  editReviewComment: 'parallelAgents.editReviewComment',
  reviewWithAgent: 'parallelAgents.reviewWithAgent',
  continueWithAgent: 'parallelAgents.continueWithAgent',
  dispatchBestOf: 'parallelAgents.dispatchBestOf',
  compareCandidates: 'parallelAgents.compareCandidates',
  diffCandidates: 'parallelAgents.diffCandidates',
  pickCandidate: 'parallelAgents.pickCandidate',
} as const;

/** The only commands that exist in an untrusted workspace (Restricted Mode): none of them runs anything. */
export const restrictedModeCommands: readonly string[] = [commands.showLog, commands.focusView];

export const views = {
  container: 'parallelAgents',
  agents: 'parallelAgents.agents',
} as const;

export const contextKeys = {
  hasAgents: 'parallelAgents:hasAgents',
  hasRunning: 'parallelAgents:hasRunning',
  agentDiffActive: 'parallelAgents:agentDiffActive',
} as const;

export const settings = {
  section: 'parallelAgents',
  profiles: 'profiles',
  defaultProfile: 'defaultProfile',
  branchPrefix: 'branchPrefix',
  worktreeRoot: 'worktreeRoot',
  notifyOnFinish: 'notifyOnFinish',
  mergeStrategy: 'mergeStrategy',
  maxParallel: 'maxParallel',
  maxConcurrentAgents: 'maxConcurrentAgents',
  providerLimits: 'providerLimits',
  defaultBudgetUsd: 'defaultBudgetUsd',
  agentTimeoutMinutes: 'agentTimeoutMinutes',
  maxLogMegabytes: 'maxLogMegabytes',
  setupCommand: 'setupCommand',
  checkCommand: 'checkCommand',
  symlinkFolders: 'symlinkFolders',
  initSubmodules: 'initSubmodules',
  worktreePool: 'worktreePool',
  worktreeEnv: 'worktreeEnv',
  portRange: 'portRange',
  reviewerProfile: 'reviewerProfile',
  autoReview: 'autoReview',
} as const;

export const schemes = {
  base: 'parallel-agents-base',
  change: 'parallel-agents-change',
  account: 'parallel-agents-account',
  /** The comparison of the candidates of a Best of N (ui/bestOf/compareDocument.ts). */
  bestOf: 'parallel-agents-bestof',
} as const;

/**
 * workspaceState keys. Agents and plan runs live in the repository's registry now; their keys are
 * read once, to move the records an earlier version kept there (host/migratingStore.ts).
 */
export const stateKeys = {
  agents: 'parallelAgents.agents.v1',
  plans: 'parallelAgents.plans.v1',
  lastProfiles: 'parallelAgents.lastProfiles',
} as const;
