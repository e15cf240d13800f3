/**
 * AgentError codes of where and how an agent starts: on an existing branch or a pull request, stacked
 * on another agent, with its worktreeEnv and ports, within its budget. Part of AgentErrorData
 * (errorCodes.ts); import the types from errors.ts.
 */
import type { Empty, Titled } from './errorCodes';

export interface StartErrorData {
  // Dispatch Agent on Branch: an existing branch or a pull request (src/core/agents/dispatchStart.ts)
  branchNotFound: { readonly branch: string; readonly repoRoot: string };
  /**
   * The branch is checked out at `path`: the worktree dispatched from (`current`), the main worktree
   * of the repository, or another one.
   */
  branchCheckedOut: { readonly branch: string; readonly path: string; readonly where: 'current' | 'main' | 'other' };
  /** An existing branch or a pull request with isolation `terminal` (the workspace folder has its own branch). */
  startNeedsWorktree: Empty;
  /** `value` as given: not a whole number above 0. */
  invalidPullRequest: { readonly value: string };
  /** `remote` was asked for (or is the default, origin) and is not among `remotes`. */
  pullRequestNoRemote: {
    readonly number: number;
    readonly repoRoot: string;
    readonly remote: string;
    readonly remotes: readonly string[];
  };
  /** The remote has no `refs/pull/<number>/head`; git's words are the detail. */
  pullRequestNotFound: { readonly number: number; readonly remote: string };
  // Stacked agents (src/core/agents/stacking.ts)
  /** The agent to stack on has no worktree of its own: it works in the workspace, it is gone, or it landed. */
  stackParentUnfit: Titled & { readonly reason: 'terminal' | 'noWorktree' | 'landed' };
  notStacked: Titled;
  /** The parent agent `parent` of the stacked agent is no longer in the list. */
  stackParentGone: Titled & { readonly parent: string };
  /** git's words are the detail; the worktree at `cwd` is as it was. `id`: the agent (for its resolve button). */
  rebaseOnParentConflict: { readonly cwd: string; readonly id?: string; readonly title?: string };
  rebaseOnParentUncommitted: { readonly cwd: string; readonly commits: number };
  // parallelAgents.worktreeEnv and portRange, src/core/agents/worktreeEnv.ts and portAllocator.ts
  worktreeEnvNotObject: Empty;
  worktreeEnvBadName: { readonly name: string };
  worktreeEnvBadValue: { readonly name: string };
  worktreeEnvBadPlaceholder: { readonly name: string; readonly placeholder: string };
  invalidPortRange: { readonly range: string };
  /** Fewer free ports in the range than the agent needs: `free` of `needed` found. */
  portRangeExhausted: { readonly range: string; readonly needed: number; readonly free: number };
  /** Open in Browser on an agent that holds no port (no `${freePort}` in its worktreeEnv, or merged/discarded). */
  agentHasNoPorts: Titled;
  // budgets, src/core/agents/budgets.ts
  /** A budget not a number above 0: `where` names the setting, profile field or option; `value`: as set (JSON). */
  invalidBudget: { readonly where: string; readonly value: string };
  /** A follow-up of an agent that has spent its budget (US dollars). */
  agentOverBudget: { readonly title: string; readonly budgetUsd: number; readonly costUsd: number };
  /** A plan task's dispatch, or a follow-up of one, once the plan's agents together spent the plan's budget. */
  planOverBudget: { readonly title: string; readonly budgetUsd: number; readonly costUsd: number };
}
