import * as vscode from 'vscode';
import { commands, views } from '../../constants';
import type { AgentLanding } from '../../core/landing';
import type { AgentManager } from '../../core/agents';
import type { PlanService } from '../../core/plans';
import type { Reconciler } from '../../core/reconcile';
import type { Git, MergeStrategy } from '../../core/git';
import type { FileBytes } from '../../core/review';
import type { TerminalRunner } from '../../host/terminalRunner';
import type { AgentOutputViews } from '../outputViews';
import { type AgentCommandDeps, agentCommands } from './agentCommands';
import { checkCommands } from './checkCommands';
import { stackCommands } from './stackCommands';
import { openInBrowserCommand } from './browserCommand';
import type { CommandHandler } from './commandRunner';
import { type DispatchArgs, type DispatchDeps, dispatchCommand } from './dispatchCommand';
import { forecastConflicts } from './forecastCommand';
import { hunkCommands } from './hunkCommands';
import { landCommands } from './landCommands';
import { planCommands } from './planCommands';
import { pullRequestCommand, type PullRequestDeps } from './pullRequestCommand';
import { reconcileCommands } from './reconcileCommands';
import { resolveConflictsCommand } from './resolveConflictsCommand';
import { progressCommands } from './progressCommands';
import { reviewCommands } from './reviewCommands';
import { reviewCommentCommands } from './sendReviewCommand';
import { type AgentReviewDeps, agentReviewCommands } from './agentReviewCommands';
import { bestOfCommands } from '../bestOf/bestOfCommands';
import { type BestOfArgs, dispatchBestOfCommand } from '../bestOf/bestOfDispatch';
import type { ReviewComments } from '../../core/review';
import type { ReviewThreads } from '../diff/reviewThreads';
import type { Logger } from '../../core/ports';
import type { WorktreeSizes } from '../../core/usage';
import { showWorktreesSummary } from './worktreesCommand';

export interface CommandTableDeps {
  readonly manager: AgentManager;
  readonly plans: PlanService;
  readonly showTimeline: (arg?: unknown) => unknown;
  readonly landing: AgentLanding;
  readonly git: Git;
  readonly outputs: AgentOutputViews;
  readonly terminals: TerminalRunner;
  readonly dispatch: DispatchDeps;
  readonly strategy: () => MergeStrategy;
  readonly reconciler: Reconciler;
  /** The files Accept and Revert Selected Lines read and write. */
  readonly files: FileBytes;
  /** How Create Pull Request finds and runs gh. */
  readonly pullRequests: Pick<PullRequestDeps, 'findGh' | 'createWithGh'>;
  /** Review comments (stored on the records) and their threads in editors. */
  readonly review: ReviewComments;
  readonly reviewThreads: ReviewThreads;
  /** Review with Agent and Continue with Another Agent. */
  readonly agentReview: Pick<AgentReviewDeps, 'reviewer' | 'profiles' | 'reviewerProfile'>;
  /** Shows and selects an agent's row in the Agents view (without taking the focus). */
  readonly revealAgent: (id: string) => Thenable<void>;
  /** Which agents' change sets are still current (git.freshness). */
  readonly freshness?: AgentCommandDeps['freshness'];
  /** Where failures of work that goes on after a command returned are logged. */
  readonly logger?: Logger;
  /** The sizes of agents' worktrees (Show Worktrees Summary), cached for the window. */
  readonly worktreeSizes: WorktreeSizes;
}

/** What Try the Demo Agent asks of the demo agent: it only creates a file, so it works in any repository. */
const demoPrompt = [
  'create DEMO_AGENT.md: # Hello from the demo agent\\n\\nThe demo agent wrote this file in its own git worktree and branch.\\nReview it in the Agents view, then merge it or discard it.\\n',
  'sleep 1',
].join('\n');

/**
 * The commands that exist in Restricted Mode too (constants.ts restrictedModeCommands): they run
 * nothing, so they are registered at activation, trusted or not.
 */
export function restrictedModeCommandTable(deps: { showLog: () => void }): Record<string, CommandHandler> {
  return {
    [commands.showLog]: () => deps.showLog(),
    [commands.focusView]: () => vscode.commands.executeCommand(`${views.agents}.focus`),
  };
}

/**
 * Every other command id contributed in package.json, with its handler: registered only once the
 * workspace is trusted, since each may run git, an agent or a setup command.
 */
export function commandTable(deps: CommandTableDeps): Record<string, CommandHandler> {
  const agent = agentCommands(deps);
  const review = reviewCommands({ manager: deps.manager, landing: deps.git });
  const progress = progressCommands(deps.manager, deps.revealAgent);
  const hunks = hunkCommands({ manager: deps.manager, git: deps.git, files: deps.files });
  const land = landCommands(deps);
  const checks = checkCommands(deps.manager);
  const stack = stackCommands(deps.dispatch);
  const bestOf = bestOfCommands({ manager: deps.manager, landing: deps.landing, merge: land.merge, plans: deps.plans });
  const reconcile = reconcileCommands({ manager: deps.manager, reconciler: deps.reconciler });
  const plan = planCommands({
    ...deps,
    profiles: deps.dispatch.profiles,
    defaultProfile: deps.dispatch.defaultProfile,
    git: deps.dispatch.git,
  });
  return {
    [commands.dispatch]: (args) => dispatchCommand(deps.dispatch, (args ?? {}) as DispatchArgs),
    [commands.dispatchOnBranch]: (args) => dispatchCommand(deps.dispatch, (args ?? {}) as DispatchArgs, true),
    [commands.tryDemo]: () =>
      dispatchCommand(deps.dispatch, {
        prompt: demoPrompt,
        profile: 'demo',
        isolation: 'worktree',
        title: vscode.l10n.t('Try the demo agent'),
      }),
    [commands.stop]: agent.stop,
    [commands.showOutput]: agent.showOutput,
    [commands.openFullLog]: agent.openFullLog,
    [commands.showResult]: agent.showResult,
    [commands.openInBrowser]: openInBrowserCommand(deps.manager),
    [commands.openWorktree]: agent.openWorktree,
    [commands.revealTerminal]: agent.revealTerminal,
    [commands.reopenTerminal]: agent.reopenTerminal,
    [commands.discard]: agent.discard,
    [commands.restore]: agent.restore,
    [commands.refresh]: agent.refresh,
    [commands.openChange]: agent.openChange,
    [commands.reviewAll]: review.reviewAll,
    [commands.showAccount]: review.showAccount,
    [commands.markViewed]: progress.markViewed,
    [commands.markUnviewed]: progress.markUnviewed,
    [commands.nextToReview]: progress.nextToReview,
    [commands.acceptFile]: review.acceptFile,
    [commands.revertFile]: review.revertFile,
    [commands.acceptSelectedRanges]: hunks.acceptSelectedRanges,
    [commands.revertSelectedRanges]: hunks.revertSelectedRanges,
    [commands.followUp]: review.followUp,
    [commands.runCheck]: checks.runCheck,
    [commands.fixFailingCheck]: checks.fixFailingCheck,
    [commands.dispatchStacked]: stack.dispatchStacked,
    [commands.rebaseOnParent]: stack.rebaseOnParent,
    [commands.openCheckLog]: checks.openCheckLog,
    [commands.commit]: land.commit,
    [commands.merge]: land.merge,
    [commands.createPullRequest]: pullRequestCommand({ ...deps.pullRequests, manager: deps.manager, git: deps.git }),
    [commands.cleanUp]: land.cleanUp,
    [commands.showWorktreesSummary]: (arg) =>
      showWorktreesSummary({ manager: deps.manager, landing: deps.landing, sizes: deps.worktreeSizes }, arg),
    [commands.forecastConflicts]: (arg) =>
      forecastConflicts(
        {
          manager: deps.manager,
          landing: deps.git,
          currentBranch: (root) => deps.git.currentBranch(root),
        },
        arg,
      ),
    [commands.resolveConflicts]: resolveConflictsCommand({ manager: deps.manager, git: deps.git, logger: deps.logger }),
    [commands.dispatchPlan]: plan.dispatchPlan,
    [commands.retryTask]: plan.retryTask,
    [commands.skipTask]: plan.skipTask,
    [commands.stopPlan]: plan.stopPlan,
    [commands.removePlan]: plan.removePlan,
    [commands.landPlan]: plan.landPlan,
    [commands.planWithAgent]: plan.planWithAgent,
    [commands.showTimeline]: (arg) => deps.showTimeline(arg),
    [commands.reconcile]: reconcile.reconcile,
    [commands.adoptOrphan]: reconcile.adoptOrphan,
    [commands.discardOrphan]: reconcile.discardOrphan,
    [commands.restoreMissing]: reconcile.restoreMissing,
    [commands.forgetAgent]: reconcile.forgetAgent,
    [commands.dispatchBestOf]: (args) => dispatchBestOfCommand(deps.dispatch, (args ?? {}) as BestOfArgs),
    [commands.compareCandidates]: bestOf.compare,
    [commands.diffCandidates]: bestOf.diff,
    [commands.pickCandidate]: bestOf.pick,
    ...reviewCommentCommands({ manager: deps.manager, review: deps.review, threads: deps.reviewThreads }),
    ...agentReviewCommands({
      ...deps.agentReview,
      manager: deps.manager,
      review: deps.review,
      threads: deps.reviewThreads,
    }),
  };
}
