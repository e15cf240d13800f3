/**
 * What the Agents view shows in Restricted Mode, as plain data (no vscode import, so it is unit
 * tested): a notice row first, then the plan runs with their tasks, then the agents that are not a
 * plan's task. Context values start with `readonly.` so that no item menu (each asks for
 * `viewItem =~ /^agent\./`, `^plan`, …) ever matches one of these rows, trusted or not.
 */
import type { AgentRecord } from '../../core/agent';
import type { PlanRunRecord, TaskState } from '../../core/plans';
import type { RegistryContents } from '../../node/registry/registryReader';

export type ReadOnlyRow =
  | { readonly kind: 'notice'; readonly contextValue: 'readonly.notice' }
  | { readonly kind: 'problems'; readonly contextValue: 'readonly.problems'; readonly files: readonly string[] }
  | { readonly kind: 'plan'; readonly contextValue: 'readonly.plan'; readonly run: PlanRunRecord }
  | {
      readonly kind: 'task';
      readonly contextValue: 'readonly.task';
      readonly runId: string;
      readonly taskId: string;
      readonly title: string;
      readonly state: TaskState;
      readonly agent?: AgentRecord;
    }
  | { readonly kind: 'agent'; readonly contextValue: 'readonly.agent'; readonly agent: AgentRecord };

export const readOnlyContextPrefix = 'readonly.';

/** The top-level rows for what the registries hold; none when they hold nothing, so the view's welcome shows. */
export function readOnlyRoots(contents: RegistryContents): ReadOnlyRow[] {
  if (contents.agents.length === 0 && contents.plans.length === 0 && contents.problems.length === 0) {
    return [];
  }
  const rows: ReadOnlyRow[] = [{ kind: 'notice', contextValue: 'readonly.notice' }];
  if (contents.problems.length > 0) {
    rows.push({ kind: 'problems', contextValue: 'readonly.problems', files: contents.problems.map((p) => p.file) });
  }
  for (const run of contents.plans) {
    rows.push({ kind: 'plan', contextValue: 'readonly.plan', run });
  }
  const planIds = new Set(contents.plans.map((p) => p.id));
  for (const agent of contents.agents) {
    // A task's agent shows under its plan; one whose plan run has no record is listed on its own.
    if (!agent.plan || !planIds.has(agent.plan.runId)) {
      rows.push({ kind: 'agent', contextValue: 'readonly.agent', agent });
    }
  }
  return rows;
}

/** The rows under `row`: a plan's tasks, in the plan's order, each with its agent when one was recorded. */
export function readOnlyChildren(row: ReadOnlyRow, contents: RegistryContents): ReadOnlyRow[] {
  if (row.kind !== 'plan') {
    return [];
  }
  const run = row.run;
  return run.plan.tasks.map((task) => ({
    kind: 'task' as const,
    contextValue: 'readonly.task' as const,
    runId: run.id,
    taskId: task.id,
    title: task.title || task.id,
    state: run.scheduler.tasks[task.id]?.state ?? 'waiting',
    agent: contents.agents.find((a) => a.plan?.runId === run.id && a.plan.taskId === task.id),
  }));
}
