/** Every failure the user may see carries a reason code; messages are made in one place (the UI). */
export type AgentErrorReason =
  | 'notGitRepository'
  | 'noCommits'
  | 'gitNotFound'
  | 'executableNotFound'
  | 'targetExists'
  | 'unknownProfile'
  | 'emptyPrompt'
  | 'unknownAgent'
  | 'invalidTransition'
  | 'noWorkspace'
  | 'untrustedWorkspace'
  | 'worktreeFailed'
  | 'gitFailed'
  /** Unresolved conflicts (files still holding conflict markers) block the operation. */
  | 'mergeConflicts'
  /** Uncommitted changes in a worktree would be overwritten, or swallowed into a commit. */
  | 'dirtyWorkspace'
  | 'launchFailed'
  | 'invalidProfile'
  | 'invalidPlan'
  /** The disk (or the folder's file system) is full: git or the agent got ENOSPC. */
  | 'diskFull'
  | 'cancelled';

export class AgentError extends Error {
  constructor(
    readonly reason: AgentErrorReason,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'AgentError';
  }

  static is(e: unknown, reason?: AgentErrorReason): e is AgentError {
    return e instanceof AgentError && (reason === undefined || e.reason === reason);
  }
}

/** Whether a message from git or the OS says the disk is full. */
export function isDiskFull(text: string): boolean {
  return /No space left on device|\bENOSPC\b|Disk quota exceeded|\bEDQUOT\b/i.test(text);
}
