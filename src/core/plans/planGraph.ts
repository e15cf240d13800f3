/**
 * A plan's tasks as a graph: the one topological order the scheduler and the rest of the extension
 * share, with its defensive checks (duplicate ids, unknown dependencies, cycles) as typed errors.
 */
import { AgentError } from '../errors';
import type { Plan, PlanTask } from './planTypes';

/**
 * The tasks in dependency order, ties broken by file order. Throws AgentError('invalidPlan') on
 * duplicate ids, unknown dependencies and cycles (plans are validated earlier; this guards the
 * scheduler's invariants).
 */
export function topologicalOrder(planOrTasks: Plan | readonly PlanTask[]): PlanTask[] {
  const tasks = 'tasks' in planOrTasks ? planOrTasks.tasks : planOrTasks;
  const known = new Set<string>();
  for (const task of tasks) {
    if (known.has(task.id)) {
      throw new AgentError('duplicateTaskId', { taskId: task.id });
    }
    known.add(task.id);
  }
  for (const task of tasks) {
    const unknown = (task.dependsOn ?? []).find((id) => !known.has(id));
    if (unknown !== undefined) {
      throw new AgentError('unknownDependency', { taskId: task.id, dependency: unknown });
    }
  }
  const order: PlanTask[] = [];
  const placed = new Set<string>();
  while (order.length < tasks.length) {
    const next = tasks.find((t) => !placed.has(t.id) && (t.dependsOn ?? []).every((id) => placed.has(id)));
    if (!next) {
      throw new AgentError('dependencyCycle', { cycle: findCycle(tasks, placed) });
    }
    order.push(next);
    placed.add(next.id);
  }
  return order;
}

/**
 * One cycle among the tasks not yet placed, as a path that ends where it starts. Every unplaced
 * task has an unplaced dependency, so following them must come back round.
 */
function findCycle(tasks: readonly PlanTask[], placed: ReadonlySet<string>): string[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  // Stryker disable next-line ArrayDeclaration: the cycle is cut at the first repeated id; the path's start is dropped
  const path: string[] = [];
  let current = tasks.find((t) => !placed.has(t.id)) as PlanTask;
  while (!path.includes(current.id)) {
    path.push(current.id);
    const next = (current.dependsOn ?? []).find((id) => !placed.has(id)) as string;
    current = byId.get(next) as PlanTask;
  }
  return [...path.slice(path.indexOf(current.id)), current.id];
}
