/**
 * parallelAgents.autoReview: Review with Agent runs by itself when an agent whose run this window
 * followed succeeds (one window reviews, never each window on the repository). The reviewer is
 * parallelAgents.reviewerProfile, else the agent's own profile. Plan tasks are left to their plan.
 */
import * as vscode from 'vscode';
import type { AgentManager } from '../core/agents';
import { AgentError } from '../core/errors';
import type { Logger } from '../core/ports';
import type { AgentReviewer } from '../core/review';
import { showReviewOutcome } from './commands/agentReviewCommands';
import { reportError } from './commands/commandRunner';

export interface AutoReviewSettings {
  readonly autoReview: () => boolean;
  readonly reviewerProfile: () => string;
}

export function autoReview(
  manager: AgentManager,
  reviewer: AgentReviewer,
  settings: AutoReviewSettings,
  logger: Logger,
): vscode.Disposable {
  return manager.onDidEndRun((id) => {
    const record = manager.list().find((r) => r.id === id);
    if (!settings.autoReview() || !record || record.status !== 'succeeded' || record.plan) {
      return;
    }
    if (record.changedFiles.length === 0 || reviewer.isReviewing(id)) {
      return;
    }
    const profile = settings.reviewerProfile() || record.profile;
    logger.info(`[Review] ${id}: autoReview with ${profile}`);
    reviewer.review(id, { profile }).then(
      (outcome) => showReviewOutcome(manager.get(id), outcome),
      (e: unknown) => {
        // Forgotten meanwhile: nothing to tell.
        if (!AgentError.is(e, 'unknownAgent')) {
          reportError(e, logger);
        }
      },
    );
  });
}
