/**
 * An agent reviews before you, and another agent goes on: Review with Agent (a reviewer profile's
 * findings become the agent's pending review comments), Edit Comment (the person's word on them) and
 * Continue with Another Agent (the agent's folder handed to another profile).
 */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import { type AgentRecord, isActive } from '../../core/agent';
import { type AgentManager, continuePrompt } from '../../core/agents';
import type { Profile } from '../../core/clis';
import type { AgentReviewer, ReviewComments, ReviewOutcome } from '../../core/review';
import type { ReviewThreads } from '../diff/reviewThreads';
import { pickAgentId } from './agentPick';
import { cancelled, type CommandHandler } from './commandRunner';

export interface AgentReviewDeps {
  readonly manager: AgentManager;
  readonly reviewer: AgentReviewer;
  readonly review: ReviewComments;
  readonly threads: ReviewThreads;
  readonly profiles: () => readonly Profile[];
  /** parallelAgents.reviewerProfile; '' when unset (then the user picks). */
  readonly reviewerProfile: () => string;
}

type Options = { profile?: unknown; focus?: unknown; note?: unknown };

function optionsOf(arg: unknown): Options {
  return (arg && typeof arg === 'object' ? arg : {}) as Options;
}

const finished = (r: AgentRecord) =>
  !isActive(r.status) && r.worktreePresent !== false && !r.worktreeMissing && r.changedFiles.length > 0;

export function agentReviewCommands(deps: AgentReviewDeps): Record<string, CommandHandler> {
  const { manager, reviewer, review, threads } = deps;
  return {
    [commands.reviewWithAgent]: async (arg?: unknown): Promise<ReviewOutcome> => {
      const o = optionsOf(arg);
      const id = await pickAgentId(manager, arg, { filter: finished, none: 'noAgentApplies' });
      const record = manager.get(id);
      const profile =
        typeof o.profile === 'string'
          ? o.profile
          : deps.reviewerProfile() ||
            (await pickProfile(deps.profiles(), vscode.l10n.t('Review "{0}" with which agent?', record.title)));
      const focus = typeof o.focus === 'string' ? o.focus : undefined;
      const outcome = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: vscode.l10n.t('Reviewer ({0}) reviewing agent "{1}"…', profile, record.title),
        },
        () => reviewer.review(id, { profile, ...(focus !== undefined ? { focus } : {}) }),
      );
      showReviewOutcome(manager.get(id), outcome);
      return outcome;
    },
    [commands.continueWithAgent]: async (arg?: unknown) => {
      const o = optionsOf(arg);
      const id = await pickAgentId(manager, arg, {
        filter: (r) => !isActive(r.status) && r.worktreePresent !== false && !r.worktreeMissing,
        none: 'noAgentApplies',
      });
      const record = manager.get(id);
      const others = deps.profiles().filter((p) => p.name !== record.profile);
      const profile =
        typeof o.profile === 'string'
          ? o.profile
          : await pickProfile(others, vscode.l10n.t('Continue "{0}" with which agent?', record.title));
      const note =
        typeof o.note === 'string'
          ? o.note
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Continue "{0}" with {1}', record.title, profile),
              prompt: vscode.l10n.t('Anything to add to the task (optional)?'),
              ignoreFocusOut: true,
            });
      if (note === undefined) {
        cancelled();
      }
      await manager.followUp(id, continuePrompt(record, note), profile);
    },
    [commands.editReviewComment]: async (comment?: unknown) => {
      const agentId = threads.agentOf(comment);
      const stored = (comment as { comment?: { id?: unknown; body?: unknown } } | undefined)?.comment;
      if (!agentId || typeof stored?.id !== 'string') {
        return;
      }
      const body = await vscode.window.showInputBox({
        title: vscode.l10n.t('Edit Comment'),
        value: typeof stored.body === 'string' ? stored.body : '',
        ignoreFocusOut: true,
      });
      if (body === undefined) {
        cancelled();
      }
      review.edit(agentId, stored.id, body);
    },
  };
}

async function pickProfile(profiles: readonly Profile[], title: string): Promise<string> {
  const picked = await vscode.window.showQuickPick(
    profiles.map((p) => ({ label: p.name, description: `${p.mode}${p.description ? ` · ${p.description}` : ''}` })),
    { title, ignoreFocusOut: true },
  );
  return picked?.label ?? cancelled();
}

/** Tells what the reviewer left; files it changed (put back) are warned about. Never waits. */
export function showReviewOutcome(record: AgentRecord, outcome: ReviewOutcome): void {
  const showOutput = vscode.l10n.t('Show Output');
  const openLog = (choice: string | undefined) => {
    if (choice === showOutput) {
      void vscode.window.showTextDocument(vscode.Uri.file(outcome.logPath), { preview: true });
    }
  };
  if (outcome.restored.length > 0) {
    void vscode.window
      .showWarningMessage(
        vscode.l10n.t(
          'The reviewer ({0}) changed {1} file(s) in the folder of agent "{2}" although it was told not to: {3}. They were put back as they were before the review.',
          outcome.reviewer,
          outcome.restored.length,
          record.title,
          outcome.restored.join(', '),
        ),
        showOutput,
      )
      .then(openLog);
  }
  if (outcome.empty === 'nothing') {
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          'The reviewer ({0}) found nothing to comment on in the changes of agent "{1}".',
          outcome.reviewer,
          record.title,
        ),
        showOutput,
      )
      .then(openLog);
    return;
  }
  if (outcome.empty === 'unreadable') {
    void vscode.window
      .showWarningMessage(
        vscode.l10n.t(
          "The reviewer's output ({0}) could not be read: it holds no FINDING line and no NO FINDINGS line{1}. No comment was added; Show Output has what it said.",
          outcome.reviewer,
          outcome.failed ? vscode.l10n.t(', and the reviewer did not succeed') : '',
        ),
        showOutput,
      )
      .then(openLog);
    return;
  }
  const send = vscode.l10n.t('Send Review');
  void vscode.window
    .showInformationMessage(
      vscode.l10n.t(
        'The reviewer ({0}) left {1} comment(s) on the changes of agent "{2}", {3} of them general (their place is not in the diff): keep, edit or delete them, then send the review.',
        outcome.reviewer,
        outcome.onLines + outcome.general,
        record.title,
        outcome.general,
      ),
      send,
      showOutput,
    )
    .then((choice) => {
      if (choice === send) {
        void vscode.commands.executeCommand(commands.sendReview, record.id);
      }
      openLog(choice);
    });
}
