/** Plain data describing agents; shared by every layer and returned by the public API. */
import type { AgentErrorReason } from './errors';
import type { SandboxPolicy } from './sandbox';

export type AgentStatus =
  | 'queued'
  | 'preparing'
  | 'running'
  | 'waiting-for-input'
  | 'succeeded'
  | 'failed'
  | 'stopped'
  | 'interrupted'
  | 'timed-out'
  /** Exited 0, but the CLI reports tools it was not allowed to run: the task is likely incomplete. */
  | 'needs-permission'
  /**
   * A terminal agent whose terminal did not come back after a reload: its worktree is kept, Reopen
   * in Terminal starts it again.
   */
  | 'detached'
  /**
   * Stopped on a rate or usage limit of its provider (`quota` says until when): its worktree and work
   * stay, and it resumes by itself as a follow-up once the limit resets (core/agents/quotaResumer.ts).
   */
  | 'paused'
  | 'reviewed'
  | 'merged'
  | 'discarded';

export type Isolation = 'worktree' | 'terminal';

export type FileChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'untracked';

export interface ChangedFile {
  /** Path relative to the agent's working folder, with forward slashes. */
  readonly path: string;
  readonly kind: FileChangeKind;
  /** Set for renames: the path at the base commit. */
  readonly oldPath?: string;
  readonly binary: boolean;
  /**
   * Lines added and removed against the base (git's numstat; an untracked file's lines are all
   * added). Unset for a binary file, and when not counted (records written before they were).
   */
  readonly added?: number;
  readonly removed?: number;
}

/** What a CLI with structured output (a profile's `output`) reported about its current or last run. */
export interface AgentActivity {
  /** The last tool the agent used and its main argument, e.g. "Edit src/a.ts". */
  readonly step?: string;
  readonly turns?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
  /** The agent's final answer, capped (agentEvents' resultLimit). */
  readonly result?: string;
  /** Tools the CLI refused to run, each with its main argument. */
  readonly denials?: readonly string[];
  /** The CLI's own final report says the run failed (claude's result `is_error`), whatever its exit code. */
  readonly reportedError?: true;
  /** The CLI itself ended the run at the budget it was given (claude's result `error_max_budget_usd`). */
  readonly budgetReached?: true;
}

/** Why an agent was stopped as over budget (core/agents/budgets.ts); plain JSON (registry). */
export interface OverBudget {
  /** The cap reached, in US dollars: the agent's own, or its plan's when `plan` is set. */
  readonly budgetUsd: number;
  /** What was spent when it stopped: the agent's cost, or its plan's agents' together. */
  readonly costUsd: number;
  /** The plan's budget was reached, by all its agents together. */
  readonly plan?: true;
}

/** The last run of the check command (`parallelAgents.checkCommand`) in an agent's folder; plain JSON (registry). */
export interface AgentCheck {
  /** `error`: the command could not be started (not found, refused); `error` says why. */
  readonly state: 'running' | 'passed' | 'failed' | 'error';
  /** The argv that ran, as configured. */
  readonly command: readonly string[];
  readonly startedAt: number;
  readonly endedAt?: number;
  readonly exitCode?: number;
  readonly signal?: string;
  /** Why it could not run or was ended: a stored line (`code {json}`), shown in the user's language. */
  readonly error?: string;
  /**
   * The git tree of the folder's content (tracked and untracked, not ignored) when the check
   * started: a different tree now means the check is stale.
   */
  readonly tree?: string;
  /** The check's log (one per agent, each run appended after a banner). */
  readonly logPath: string;
  /** Log position where this run's output begins. */
  readonly logOffset?: number;
}

/**
 * A review comment on lines of one of the agent's changed files (on the agent's side of its diff),
 * kept on the agent's record until the agent is forgotten. Plain JSON: it lives in the registry.
 */
export interface ReviewComment {
  readonly id: string;
  /** Path relative to the agent's working folder, with forward slashes (as in changedFiles). */
  readonly path: string;
  /** 1-based, inclusive. */
  readonly startLine: number;
  readonly endLine: number;
  /** The lines commented on, without their line breaks: as written, then as sent. */
  readonly quoted: readonly string[];
  readonly body: string;
  readonly createdAt: number;
  /** When Send Review to Agent sent it; unset while it is pending. */
  readonly sentAt?: number;
  /** Set once a run that ended after `sentAt` changed the quoted lines. */
  readonly addressed?: boolean;
  /** The profile of the reviewer agent that wrote it (Review with Agent); absent when the person did. */
  readonly reviewer?: string;
  /**
   * A comment on no line of the diff (a reviewer's finding whose file or line is not in it): shown at
   * the top of `path`, sent without quoted lines, never marked addressed.
   */
  readonly general?: true;
}

/** One run of an agent's folder by a profile: the first, each follow-up, each Continue with Another Agent. */
export interface AgentRun {
  readonly profile: string;
  readonly startedAt: number;
  readonly endedAt?: number;
}

/** A candidate's place among the agents given one task by Dispatch Best of N. */
export interface BestOf {
  readonly group: string;
  readonly index: number;
  readonly of: number;
}

/** An agent's conflicts in the last forecast; plain JSON (registry). */
export interface ForecastedConflicts {
  /** The branch of the main worktree ('HEAD' when detached), when the agent conflicts with it. */
  readonly branch?: string;
  /** The other agents it conflicts with. */
  readonly agents: readonly string[];
  /** Every file in conflict, with the branch or any of the agents. */
  readonly files: readonly string[];
}

/** Why and until when an agent is paused on its provider's limit; plain JSON (registry). */
export interface QuotaPause {
  /** The provider whose limit it hit (parallelAgents.providerLimits' keys). */
  readonly provider: string;
  readonly pausedAt: number;
  /** When it resumes: the reset time the CLI gave (plus a margin), or the end of a backoff. */
  readonly resumeAt: number;
  /** True when the CLI gave the reset time; false: `resumeAt` is a backoff. */
  readonly resetGiven: boolean;
  /** Pauses in a row of this agent (1 for the first); the backoff doubles with each. */
  readonly attempt: number;
  /** The CLI's line that told (capped). */
  readonly message: string;
  /** Set by the window that is resuming it (claimed in the registry), so that one window resumes it. */
  readonly claimedAt?: number;
}

export interface AgentRecord {
  readonly id: string;
  readonly title: string;
  readonly prompt: string;
  /** Follow-up prompts sent after the first, oldest first. */
  readonly followUps?: readonly string[];
  readonly profile: string;
  readonly mode: 'headless' | 'terminal';
  readonly isolation: Isolation;
  readonly status: AgentStatus;
  readonly repoRoot: string;
  /** Where the agent runs: its worktree, or the workspace folder for terminal isolation. */
  readonly cwd: string;
  readonly branch?: string;
  /**
   * Set when `branch` existed before the agent (Dispatch Agent on Branch): removing its worktree
   * (Discard, Clean Up, Forget) never deletes that branch.
   */
  readonly branchExisted?: true;
  /**
   * A stacked agent: started from a snapshot of this agent's worktree (its `baseSha`, taken at `at`, ms;
   * an older record has none: its createdAt), its diff its own work; Rebase on Parent takes a newer one.
   */
  readonly stackedOn?: { readonly id: string; readonly title: string; readonly at?: number };
  readonly worktreePath?: string;
  readonly baseSha: string;
  readonly createdAt: number;
  readonly startedAt?: number;
  readonly endedAt?: number;
  readonly exitCode?: number;
  readonly signal?: string;
  readonly error?: string;
  /** Why the run failed, when it is known (diskFull): the UI shows its translated message. */
  readonly errorReason?: AgentErrorReason;
  readonly logPath?: string;
  readonly changedFiles: readonly ChangedFile[];
  /**
   * Files the user marked viewed: path → the stamp of the agent's version then (its git blob hash,
   * `deleted` for a deletion). A file the agent changes again has another stamp and is unviewed.
   */
  readonly viewedFiles?: Readonly<Record<string, string>>;
  /** false once the worktree has been removed (after a merge or a discard). */
  readonly worktreePresent?: boolean;
  /** Where the work was saved before the worktree was removed: refs/parallel-agents/saved/<id>. */
  readonly savedRef?: string;
  /** The status a discarded agent had, given back by Restore Agent. */
  readonly statusBeforeDiscard?: AgentStatus;
  /** The branch the agent's work was merged into. */
  readonly mergedInto?: string;
  /** Set for agents that run a task of a plan; `budgetUsd`: the plan's cap on all its agents' cost together. */
  readonly plan?: { readonly runId: string; readonly taskId: string; readonly budgetUsd?: number };
  /**
   * Set on each candidate of Dispatch Best of N: the group they share, this one's place (1-based) and
   * how many there are. Pick merges one candidate and discards the others of its group.
   */
  readonly bestOf?: BestOf;
  /** Set by Reconcile Agents when the worktree folder was deleted outside VS Code (Restore or Forget it). */
  readonly worktreeMissing?: boolean;
  /** Set for an agent made from an orphaned worktree or branch by Reconcile Agents' Adopt. */
  readonly adopted?: boolean;
  /** Progress and answer of the current or last run, for profiles whose CLI prints JSON events. */
  readonly activity?: AgentActivity;
  /** The process id of a terminal agent's terminal: a terminal VS Code revives after a reload is matched by it. */
  readonly terminalPid?: number;
  /** For a running terminal agent: whether VS Code can tell that it waits for input (see inputState.ts). */
  readonly input?: 'tracked' | 'unknown';
  /** The check command's last run, when one ran (see AgentCheck). */
  readonly check?: AgentCheck;
  /** Every run in its folder, oldest first: who ran when (core/agents/runHistory.ts). */
  readonly runs?: readonly AgentRun[];
  /** Review comments on its changed files, pending or sent (core/review/reviewComments.ts). */
  readonly comments?: readonly ReviewComment[];
  /** What the last Forecast Conflicts found for it; unset when it found none (core/landing/conflictRepair.ts). */
  readonly forecastConflicts?: ForecastedConflicts;
  /**
   * Set on an agent dispatched while parallelAgents.maxConcurrentAgents agents of its repository
   * were live: the cap it found reached (it waited as `queued`, nothing created, until one ended).
   */
  readonly queuedAtCap?: number;
  /**
   * Set on a queued agent that waited for its provider rather than the repository's cap: `provider`,
   * its parallelAgents.providerLimits cap was reached; `quota`, an agent of its provider was paused.
   */
  readonly queuedFor?: 'provider' | 'quota';
  /**
   * The provider of its profile when it was dispatched (core/clis/providers.ts): what
   * parallelAgents.providerLimits counts and a quota pause holds back.
   */
  readonly provider?: string;
  /** Its cost cap in US dollars over all its runs (core/agents/budgets.ts), fixed at dispatch. */
  readonly budgetUsd?: number;
  /** What its runs before the current (or last) one cost, as their CLI reported; the current one is in `activity`. */
  readonly spentUsd?: number;
  /** Set when it was stopped on reaching its budget (or its plan's); cleared by its next run. */
  readonly overBudget?: OverBudget;
  /** Its last quota pause: kept while it resumes (the pauses in a row), cleared by a run that ends otherwise. */
  readonly quota?: QuotaPause;
  /** Paused, resume due, no room under the caps (agents/queueOrder.ts): since when. Not in quota: keeps claims. */
  readonly resumeWaitingSince?: number;
  /**
   * Its `parallelAgents.worktreeEnv` variables, index and ports, fixed at dispatch (follow-ups get the
   * same); held until it is merged or discarded (core/agents/worktreeEnv.ts).
   */
  readonly worktreeEnv?: {
    readonly index: number;
    readonly ports: Readonly<Record<string, number>>;
    readonly vars: Readonly<Record<string, string>>;
  };
  /** The sandbox policy it runs under (its profile's at dispatch); unset: unsandboxed. */
  readonly sandbox?: SandboxPolicy;
}

export const activeStatuses: ReadonlySet<AgentStatus> = new Set([
  'queued',
  'preparing',
  'running',
  'waiting-for-input',
]);
export const finishedStatuses: ReadonlySet<AgentStatus> = new Set([
  'succeeded',
  'failed',
  'stopped',
  'interrupted',
  'timed-out',
  'needs-permission',
  'detached',
]);

export function isActive(status: AgentStatus): boolean {
  return activeStatuses.has(status);
}
