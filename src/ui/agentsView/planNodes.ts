import * as vscode from 'vscode';
import type { PlanRun } from '../../core/plans';
import type { TaskState } from '../../core/plans';
import { storedErrorText } from '../errorMessages';
import { usd } from '../errorTexts/budgetTexts';
import type { AgentsViewModel } from './agentsViewModel';
import { AgentNode, fileNodes, type ViewNode } from './nodes';
import { statusText } from './presentation';

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
  picking: ['checklist', 'charts.yellow'],
};

/** A task state's icon, as the plan's rows show it. */
export function taskIcon(state: TaskState): vscode.ThemeIcon {
  const [icon, color] = taskIcons[state];
  return new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
}

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
    case 'picking':
      return vscode.l10n.t('waiting for a pick');
  }
}

export class PlanNode implements ViewNode {
  readonly type = 'plan';
  constructor(readonly runId: string) {}

  get id(): string {
    return `plan:${this.runId}`;
  }

  treeItem(model: AgentsViewModel): vscode.TreeItem {
    const run = model.planRun(this.runId);
    if (!run) {
      return new vscode.TreeItem(this.runId, vscode.TreeItemCollapsibleState.None);
    }
    const states = [...run.scheduler.states().values()];
    const done = states.filter((s) => s === 'done' || s === 'skipped').length;
    const status = planStatus(run);
    const elsewhere = model.planDrivenElsewhere(this.runId);
    const item = new vscode.TreeItem(run.plan.title, vscode.TreeItemCollapsibleState.Expanded);
    item.id = this.id;
    item.description = vscode.l10n.t('plan · {0}/{1} done · {2}', done, states.length, planStatusText(status));
    const spent = model.planSpent(this.runId);
    const budget = run.plan.budgetUsd;
    if (budget !== undefined || spent > 0) {
      item.description += ` · ${budget !== undefined ? vscode.l10n.t('{0} of {1}', usd(spent), usd(budget)) : usd(spent)}`;
    }
    if (elsewhere) {
      item.description += ` · ${vscode.l10n.t('in another window')}`;
    }
    item.iconPath = new vscode.ThemeIcon(
      status === 'finished' ? 'checklist' : status === 'running' ? 'run-all' : 'debug-pause',
    );
    item.tooltip = new vscode.MarkdownString(
      vscode.l10n.t(
        'Plan "{0}": integration branch `{1}` in `{2}`',
        run.plan.title,
        run.integrationBranch,
        run.integrationPath,
      ),
    );
    item.contextValue = `plan.${status}${elsewhere ? '.elsewhere' : ''}`;
    return item;
  }

  /** The tasks in the scheduler's (dependency) order. */
  children(model: AgentsViewModel): ViewNode[] {
    const run = model.planRun(this.runId);
    return run ? [...run.scheduler.states().keys()].map((taskId) => new TaskNode(this.runId, taskId)) : [];
  }

  parent(): undefined {
    return undefined;
  }
}

export class TaskNode implements ViewNode {
  readonly type = 'task';
  constructor(
    readonly runId: string,
    readonly taskId: string,
  ) {}

  get id(): string {
    return `task:${this.runId}/${this.taskId}`;
  }

  treeItem(model: AgentsViewModel): vscode.TreeItem {
    const run = model.planRun(this.runId);
    const task = run?.plan.tasks.find((t) => t.id === this.taskId);
    if (!run || !task) {
      return new vscode.TreeItem(this.taskId, vscode.TreeItemCollapsibleState.None);
    }
    const record = model.taskAgent(this.runId, this.taskId);
    const state = run.scheduler.states().get(task.id) ?? 'waiting';
    const kept = run.scheduler.reason(task.id);
    const reason = kept === undefined ? undefined : storedErrorText(kept);
    const needs = task.dependsOn?.length ? vscode.l10n.t('needs: {0}', task.dependsOn.join(', ')) : undefined;
    const agent = record ? `${record.profile} · ${statusText(record.status)}` : undefined;
    const candidates = task.bestOf ? model.taskCandidates(this.runId, task.id).length : 0;
    const item = new vscode.TreeItem(
      task.title,
      candidates > 0
        ? vscode.TreeItemCollapsibleState.Expanded
        : (record?.changedFiles.length ?? 0) > 0
          ? vscode.TreeItemCollapsibleState.Collapsed
          : vscode.TreeItemCollapsibleState.None,
    );
    item.id = this.id;
    const bestOf = task.bestOf ? vscode.l10n.t('best of {0}', task.bestOf) : undefined;
    item.description = [task.id, taskStateText(state), reason, bestOf, needs, task.bestOf ? undefined : agent]
      .filter(Boolean)
      .join(' · ');
    item.iconPath = taskIcon(state);
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${task.id}** — ${taskStateText(state)}${reason ? ` (${reason})` : ''}\n\n`);
    md.appendCodeblock(task.prompt, 'text');
    item.tooltip = md;
    item.contextValue = `planTask.${state}${model.planDrivenElsewhere(this.runId) ? '.elsewhere' : ''}`;
    return item;
  }

  /** A Best of N task's rows are its candidates (Compare, Diff, Pick on each); any other task's, its agent's files. */
  children(model: AgentsViewModel): ViewNode[] {
    const task = model.planRun(this.runId)?.plan.tasks.find((t) => t.id === this.taskId);
    return task?.bestOf
      ? model.taskCandidates(this.runId, this.taskId).map((r) => new AgentNode(r.id))
      : fileNodes(model.taskAgent(this.runId, this.taskId));
  }

  parent(): ViewNode {
    return new PlanNode(this.runId);
  }
}
