import * as vscode from 'vscode';
import { finishedStatuses, isActive } from '../core/agent';
import type { AgentManager } from '../core/agents';
import { reviewQueue } from '../core/review';
import { commands, contextKeys } from '../constants';

/** What the status-bar item shows and does; undefined while it is hidden (for tests and the API). */
export interface StatusBarView {
  readonly text: string;
  readonly tooltip: string;
  readonly command: string;
}

/** "2 agents running" / "3 agents ready for review"; also keeps the view's context keys current. */
export class AgentsStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'parallelAgents.status',
    vscode.StatusBarAlignment.Left,
    50,
  );
  private readonly subscription: vscode.Disposable;
  private shown = false;

  constructor(private readonly manager: AgentManager) {
    this.item.name = vscode.l10n.t('Parallel Agents');
    this.subscription = manager.onDidChangeAgent(() => this.update());
    this.update();
  }

  update(): void {
    const agents = this.manager.list();
    const running = agents.filter((a) => isActive(a.status)).length;
    const ready = agents.filter((a) => finishedStatuses.has(a.status)).length;
    void vscode.commands.executeCommand('setContext', contextKeys.hasAgents, agents.length > 0);
    void vscode.commands.executeCommand('setContext', contextKeys.hasRunning, running > 0);
    if (running > 0) {
      this.item.text =
        running === 1
          ? vscode.l10n.t('$(sync~spin) 1 agent running')
          : vscode.l10n.t('$(sync~spin) {0} agents running', running);
    } else if (ready > 0) {
      this.item.text =
        ready === 1
          ? vscode.l10n.t('$(check) 1 agent ready for review')
          : vscode.l10n.t('$(check) {0} agents ready for review', ready);
    } else {
      this.item.hide();
      this.shown = false;
      return;
    }
    // With agents waiting for review and none running, a click opens the next one's changes.
    const waiting = running === 0 ? reviewQueue(agents) : [];
    this.item.command = waiting.length > 0 ? commands.nextToReview : commands.focusView;
    this.item.tooltip =
      waiting.length > 0
        ? vscode.l10n.t('Next Agent to Review: "{0}" ({1} waiting)', waiting[0].title, waiting.length)
        : vscode.l10n.t('Show the Agents view');
    this.item.show();
    this.shown = true;
  }

  view(): StatusBarView | undefined {
    const { text, tooltip, command } = this.item;
    const id = typeof command === 'string' ? command : (command?.command ?? '');
    return this.shown
      ? { text, tooltip: typeof tooltip === 'string' ? tooltip : (tooltip?.value ?? ''), command: id }
      : undefined;
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
