/** Review comments' commands: add one (a new thread's reply box), delete one, send them all to the agent. */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { pendingComments, type ReviewComments } from '../../core/review';
import type { ReviewThreads } from '../diff/reviewThreads';
import { pickAgentId } from './agentPick';
import { agentIdOf, type CommandHandler } from './commandRunner';

export interface ReviewCommentDeps {
  readonly manager: AgentManager;
  readonly review: ReviewComments;
  readonly threads: ReviewThreads;
}

export function reviewCommentCommands({ manager, review, threads }: ReviewCommentDeps): Record<string, CommandHandler> {
  return {
    [commands.addReviewComment]: (reply) => threads.addFromReply(reply as vscode.CommentReply),
    [commands.deleteReviewComment]: (comment) => {
      const agentId = threads.agentOf(comment);
      const id = (comment as { comment?: { id?: unknown } } | undefined)?.comment?.id;
      if (agentId && typeof id === 'string') {
        review.remove(agentId, id);
      }
    },
    [commands.sendReview]: async (arg?: unknown) => {
      const id = threads.agentOf(arg) ?? (await pickReviewed(manager, arg));
      const sent = await review.send(id);
      void vscode.window.setStatusBarMessage(
        vscode.l10n.t(
          '$(comment-discussion) Sent {0} review comment(s) to agent "{1}"',
          sent.count,
          manager.get(id).title,
        ),
        4000,
      );
    },
  };
}

/** The agent `arg` names, else one with pending comments (the only one is taken without asking). */
function pickReviewed(manager: AgentManager, arg: unknown): Promise<string> {
  const hasPending = (r: AgentRecord) => pendingComments(r.comments).length > 0;
  if (agentIdOf(arg) === undefined && !manager.list().some(hasPending)) {
    throw new AgentError('noPendingReview', {});
  }
  return pickAgentId(manager, arg, {
    filter: hasPending,
    describe: (r) => vscode.l10n.t('{0} pending comment(s)', pendingComments(r.comments).length),
    takeOnlyOne: true,
  });
}
