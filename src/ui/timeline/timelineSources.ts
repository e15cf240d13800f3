import * as vscode from 'vscode';
import type { AgentManager } from '../../core/agents';
import type { PlanRun, PlanService } from '../../core/plans';
import { barsFromAgents, computeFigures, type TimelineFigures } from '../../core/timeline';
import type { TimelineSource } from './timelinePanel';
import { TimelinePanel } from './timelinePanel';

function changes(manager: AgentManager, plans: PlanService): vscode.Event<unknown> {
  return (listener, thisArg, disposables) => {
    const subscriptions = [
      manager.onDidChangeAgent(() => listener.call(thisArg, undefined)),
      plans.onDidChange(() => listener.call(thisArg, undefined)),
    ];
    const disposable = { dispose: () => subscriptions.forEach((s) => s.dispose()) };
    disposables?.push(disposable);
    return disposable;
  };
}

/** Every agent of the window, plan tasks included, with the plans' dependencies between them. */
export function agentsSource(manager: AgentManager, plans: PlanService): TimelineSource {
  return {
    bars: () =>
      barsFromAgents(manager.list(), Date.now(), {
        dependsOn: new Map(plans.list().flatMap((run) => [...taskDependencies(run)])),
      }),
    onDidChange: changes(manager, plans),
  };
}

/** One plan run: its tasks' agents, its dependencies, and its maxParallel as the number of slots. */
export function planSource(manager: AgentManager, plans: PlanService, run: PlanRun): TimelineSource {
  return {
    bars: () =>
      barsFromAgents(
        manager.list().filter((r) => r.plan?.runId === run.id),
        Date.now(),
        { dependsOn: taskDependencies(run) },
      ),
    slots: () => run.maxParallel,
    onDidChange: changes(manager, plans),
  };
}

function taskDependencies(run: PlanRun): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const task of run.plan.tasks) {
    const agent = run.agentOf(task.id);
    if (agent) {
      map.set(
        agent,
        (task.dependsOn ?? []).map((d) => run.agentOf(d)).filter((a): a is string => a !== undefined),
      );
    }
  }
  return map;
}

/** Show Timeline: `{ runId }` for one plan, else every agent. Returns the figures shown (for tests and the API). */
export function showTimeline(
  extensionUri: vscode.Uri,
  manager: AgentManager,
  plans: PlanService,
  arg?: unknown,
): TimelineFigures {
  const runId =
    typeof arg === 'string'
      ? arg
      : ((arg as { runId?: string; run?: { id: string } } | undefined)?.runId ??
        (arg as { run?: { id: string } } | undefined)?.run?.id);
  const source = runId ? planSource(manager, plans, plans.get(runId)) : agentsSource(manager, plans);
  TimelinePanel.show(extensionUri, source);
  return computeFigures(source.bars(), Date.now(), source.slots?.());
}
