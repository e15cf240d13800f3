/**
 * What a plan task's dispatch carries of budgets (core/agents/budgets.ts enforces them): the task's
 * own cap, which takes the place of its profile's, and the plan's cap on all its agents together,
 * carried on every task agent's `plan` marker so that the agents' side can stop them all and refuse
 * new ones. Both were checked as numbers above 0 with the plan (its schema).
 */
import type { DispatchOptions } from '../agents';
import type { Plan, PlanTask } from './planTypes';

/** The dispatch options that mark an agent as the task's, with the task's and the plan's budgets. */
export function taskMarks(runId: string, plan: Plan, task: PlanTask): Pick<DispatchOptions, 'plan' | 'budgetUsd'> {
  return {
    plan: { runId, taskId: task.id, ...(plan.budgetUsd !== undefined ? { budgetUsd: plan.budgetUsd } : {}) },
    ...(task.budgetUsd !== undefined ? { budgetUsd: task.budgetUsd } : {}),
  };
}
