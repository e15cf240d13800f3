import * as vscode from 'vscode';
import type { PlanRun } from '../../core/planRun';
import type { PlanTask, TaskState } from '../../core/planTypes';
import { storedErrorText } from '../errorMessages';

const taskIcons: Record<TaskState, [string, string?]> = {
  waiting: ['circle-outline', 'disabledForeground'],
  queued: ['clock', 'charts.yellow'],
  running: ['sync~spin', 'charts.blue'],
  integrating: ['git-merge', 'charts.blue'],
  done: ['pass', 'testing.iconPassed'],
  failed: ['error', 'testing.iconFailed'],
  blocked: ['circle-slash', 'testing.iconFailed'],
  skipped: ['debug-step-over', 'disabledForeground'],
  conflicted: ['warning', 'list.warningForeground'],
  stopped: ['debug-stop', 'disabledForeground'],
};

export function planStatus(run: PlanRun): 'finished' | 'paused' | 'stopped' | 'running' {
  const s = run.scheduler;
  return s.finished ? 'finished' : s.stopped ? 'stopped' : s.paused ? 'paused' : 'running';
}

function planStatusText(status: ReturnType<typeof planStatus>): string {
  switch (status) {
    case 'finished':
      return vscode.l10n.t('finished');
    case 'paused':
      return vscode.l10n.t('paused');
    case 'stopped':
      return vscode.l10n.t('stopped');
    case 'running':
      return vscode.l10n.t('running');
  }
}

export function taskStateText(state: TaskState): string {
  switch (state) {
    case 'waiting':
      return vscode.l10n.t('waiting');
    case 'queued':
      return vscode.l10n.t('queued');
    case 'running':
      return vscode.l10n.t('running');
    case 'integrating':
      return vscode.l10n.t('integrating');
    case 'done':
      return vscode.l10n.t('done');
    case 'failed':
      return vscode.l10n.t('failed');
    case 'blocked':
      return vscode.l10n.t('blocked');
    case 'skipped':
      return vscode.l10n.t('skipped');
    case 'conflicted':
      return vscode.l10n.t('conflicted');
    case 'stopped':
      return vscode.l10n.t('stopped');
  }
}

export class PlanNode {
  readonly type = 'plan';
  constructor(readonly run: PlanRun) {}

  get id(): string {
    return `plan:${this.run.id}`;
  }

  toTreeItem(): vscode.TreeItem {
    const states = [...this.run.scheduler.states().values()];
    const done = states.filter((s) => s === 'done' || s === 'skipped').length;
    const status = planStatus(this.run);
    const item = new vscode.TreeItem(this.run.plan.title, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = vscode.l10n.t('plan · {0}/{1} done · {2}', done, states.length, planStatusText(status));
    item.iconPath = new vscode.ThemeIcon(
      status === 'finished' ? 'checklist' : status === 'running' ? 'run-all' : 'debug-pause',
    );
    item.tooltip = new vscode.MarkdownString(
      vscode.l10n.t(
        'Plan "{0}": integration branch `{1}` in `{2}`',
        this.run.plan.title,
        this.run.integrationBranch,
        this.run.integrationPath,
      ),
    );
    item.contextValue = `plan.${status}`;
    return item;
  }
}

export class TaskNode {
  readonly type = 'task';
  constructor(
    readonly run: PlanRun,
    readonly task: PlanTask,
  ) {}

  get id(): string {
    return `task:${this.run.id}/${this.task.id}`;
  }

  get state(): TaskState {
    return this.run.scheduler.states().get(this.task.id) ?? 'waiting';
  }

  toTreeItem(agentDescription: string | undefined, hasFiles: boolean): vscode.TreeItem {
    const state = this.state;
    const kept = this.run.scheduler.reason(this.task.id);
    const reason = kept === undefined ? undefined : storedErrorText(kept);
    const needs = this.task.dependsOn?.length ? vscode.l10n.t('needs: {0}', this.task.dependsOn.join(', ')) : undefined;
    const item = new vscode.TreeItem(
      this.task.title,
      hasFiles ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    item.description = [this.task.id, taskStateText(state), reason, needs, agentDescription]
      .filter(Boolean)
      .join(' · ');
    const [icon, color] = taskIcons[state];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${this.task.id}** — ${taskStateText(state)}${reason ? ` (${reason})` : ''}\n\n`);
    md.appendCodeblock(this.task.prompt, 'text');
    item.tooltip = md;
    item.contextValue = `planTask.${state}`;
    return item;
  }
}
