import * as vscode from 'vscode';
import type { AgentRecord, AgentStatus } from '../core/agent';
import type { AgentManager } from '../core/agents';
import { commands } from '../constants';
import { finishedText, pausedNoticeText } from './account/accountText';
import { resumeTime } from './agentsView/quotaText';
import { translate } from './errorMessages';

/**
 * Tells the user when an agent's run ends, with the next step one click away; and when it pauses on
 * its provider's limit (the first pause in a row), with when it resumes.
 */
export class FinishNotifications implements vscode.Disposable {
  private readonly last = new Map<string, AgentStatus>();
  private readonly subscription: vscode.Disposable;

  constructor(
    manager: AgentManager,
    private readonly enabled: () => boolean,
  ) {
    for (const record of manager.list()) {
      this.last.set(record.id, record.status);
    }
    this.subscription = manager.onDidChangeAgent(({ id, kind }) => {
      if (kind === 'removed') {
        this.last.delete(id);
        return;
      }
      const record = manager.get(id);
      const before = this.last.get(id);
      this.last.set(id, record.status);
      // Plan tasks are reported by their plan (PlanNotifications), not one by one.
      if (before === 'running' && before !== record.status && !record.plan && this.enabled()) {
        void this.notify(record);
      }
    });
  }

  private async notify(record: AgentRecord): Promise<void> {
    const { id, title, status } = record;
    if (status === 'succeeded') {
      const review = vscode.l10n.t('Review');
      const merge = vscode.l10n.t('Merge');
      const choice = await vscode.window.showInformationMessage(
        finishedText(record, Date.now(), translate),
        review,
        merge,
      );
      if (choice === review) {
        await vscode.commands.executeCommand(commands.reviewAll, id);
      } else if (choice === merge) {
        await vscode.commands.executeCommand(commands.merge, id);
      }
    } else if (status === 'needs-permission') {
      const show = vscode.l10n.t('Show Output');
      if (
        (await vscode.window.showWarningMessage(
          vscode.l10n.t('Agent "{0}" ended but was denied some tools: it needs permission', title),
          show,
        )) === show
      ) {
        await vscode.commands.executeCommand(commands.showOutput, id);
      }
    } else if (status === 'paused') {
      await this.notifyPaused(record);
    } else if (status === 'failed' || status === 'timed-out') {
      const show = vscode.l10n.t('Show Output');
      const message =
        status === 'failed'
          ? vscode.l10n.t('Agent "{0}" failed', title)
          : vscode.l10n.t('Agent "{0}" timed out and was stopped', title);
      if ((await vscode.window.showWarningMessage(message, show)) === show) {
        await vscode.commands.executeCommand(commands.showOutput, id);
      }
    }
  }

  private async notifyPaused(record: AgentRecord): Promise<void> {
    const now = Date.now();
    const text = pausedNoticeText(record, resumeTime(record.quota?.resumeAt ?? now, now), translate);
    if (text === undefined) {
      return;
    }
    const show = vscode.l10n.t('Show Output');
    const stop = vscode.l10n.t('Stop');
    const choice = await vscode.window.showInformationMessage(text, show, stop);
    if (choice === show) {
      await vscode.commands.executeCommand(commands.showOutput, record.id);
    } else if (choice === stop) {
      await vscode.commands.executeCommand(commands.stop, record.id);
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }
}
