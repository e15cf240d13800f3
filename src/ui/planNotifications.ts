import * as vscode from 'vscode';
import type { AgentManager } from '../core/agents';
import { type PlanService, taskCandidates } from '../core/plans';
import { commands } from '../constants';
import type { TaskState } from '../core/plans';
import { joinPath } from '../util/paths';

/**
 * A conflict while integrating pauses the plan: say which tasks collide on which files and offer
 * the resolutions of review & merge. Also says when a plan has finished.
 */
export class PlanNotifications implements vscode.Disposable {
  private readonly seen = new Map<string, TaskState>();
  private readonly finished = new Set<string>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly plans: PlanService,
    private readonly manager: AgentManager,
  ) {
    this.subscription = plans.onDidChange(({ runId }) => this.check(runId));
  }

  private check(runId: string): void {
    const run = this.plans.find(runId);
    if (!run) {
      return;
    }
    for (const [taskId, state] of run.scheduler.states()) {
      const key = `${runId}/${taskId}`;
      if (state === 'conflicted' && this.seen.get(key) !== 'conflicted') {
        void this.conflicted(runId, taskId);
      }
      if (state === 'picking' && this.seen.get(key) !== 'picking') {
        this.picking(runId, taskId);
      }
      this.seen.set(key, state);
    }
    if (run.scheduler.finished && !this.finished.has(runId)) {
      this.finished.add(runId);
      const land = vscode.l10n.t('Land Plan');
      void vscode.window
        .showInformationMessage(
          vscode.l10n.t('Plan "{0}" is done: every task is merged into {1}.', run.plan.title, run.integrationBranch),
          land,
        )
        .then((choice) => {
          if (choice === land) {
            void vscode.commands.executeCommand('parallelAgents.landPlan', { runId });
          }
        });
    }
  }

  /** A Best of N task waits for the user: Compare opens its candidates side by side, where Pick is. */
  private picking(runId: string, taskId: string): void {
    const run = this.plans.get(runId);
    const compare = vscode.l10n.t('Compare Candidates');
    const first = taskCandidates(this.manager.list(), runId, taskId).find((r) => r.status === 'succeeded');
    void vscode.window
      .showInformationMessage(
        vscode.l10n.t(
          'Task "{0}" of plan "{1}" waits for a pick: the tasks that depend on it start once you Pick one of its candidates.',
          taskId,
          run.plan.title,
        ),
        compare,
      )
      .then((choice) => {
        if (choice === compare && first) {
          void vscode.commands.executeCommand(commands.compareCandidates, first.id);
        }
      });
  }

  private async conflicted(runId: string, taskId: string): Promise<void> {
    const run = this.plans.get(runId);
    const files = run.conflictsOf(taskId);
    const others = run.collidingTasks(taskId);
    const resolve = vscode.l10n.t('Resolve in Agent Worktree');
    const send = vscode.l10n.t('Send Conflicts to Agent');
    const skip = vscode.l10n.t('Skip Task');
    const message = vscode.l10n.t(
      'Plan "{0}" is paused: task "{1}" conflicts with {2} in {3}.',
      run.plan.title,
      taskId,
      others.length > 0 ? others.join(', ') : run.integrationBranch,
      files.join(', '),
    );
    const choice = await vscode.window.showWarningMessage(message, resolve, send, skip);
    const agentId = run.agentOf(taskId);
    if (choice === resolve && agentId) {
      const conflicts = await run.resolveInWorktree(taskId);
      const cwd = this.manager.get(agentId).cwd;
      for (const file of conflicts.slice(0, 5)) {
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(joinPath(cwd, file)), { preview: false });
      }
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Resolve the conflicts and commit in the agent\'s worktree, then run Retry Task on "{0}".',
          taskId,
        ),
      );
    } else if (choice === send && agentId) {
      await this.manager.followUp(
        agentId,
        [
          `Merge the branch ${run.integrationBranch} into your branch and resolve the conflicts in:`,
          ...files.map((f) => `- ${f}`),
          'Keep the intent of both sides, then commit the merge.',
        ].join('\n'),
      );
      void vscode.window.showInformationMessage(
        vscode.l10n.t('When the agent has finished, run Retry Task on "{0}".', taskId),
      );
    } else if (choice === skip) {
      this.plans.skip(runId, taskId);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
