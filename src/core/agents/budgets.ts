/**
 * Cost caps in US dollars. An agent's budget is the dispatch's own, else its profile's `budgetUsd`,
 * else `parallelAgents.defaultBudgetUsd`; a plan task's agent also carries its plan's budget, which
 * caps the sum of every agent of the plan run. A budget caps what the agent spends over all its runs
 * (follow-ups too): `spentUsd` is what its earlier runs reported, `activity.costUsd` the current run.
 * Claude Code takes the cap itself (`--max-budget-usd`, print mode only); for any other CLI that
 * reports its cost the run is stopped once the cost reaches the cap. Pure: no clock, no process.
 */
import type { AgentRecord, OverBudget } from '../agent';
import { AgentError } from '../errors';

/** Where a budget was set, named in the error when it is not a number above 0. */
export type BudgetSource =
  | { readonly kind: 'dispatch' }
  | { readonly kind: 'profile'; readonly profile: string }
  | { readonly kind: 'setting' };

/** The setting's name, as the error and README name it. */
export const defaultBudgetSetting = 'parallelAgents.defaultBudgetUsd';

function whereOf(source: BudgetSource): string {
  switch (source.kind) {
    case 'dispatch':
      return 'budgetUsd';
    case 'profile':
      return `parallelAgents.profiles "${source.profile}" budgetUsd`;
    case 'setting':
      return defaultBudgetSetting;
  }
}

/** A budget as set: undefined or null is none; anything but a finite number above 0 is refused. */
export function checkBudget(value: unknown, source: BudgetSource): number | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    const shown = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
    throw new AgentError('invalidBudget', { where: whereOf(source), value: shown });
  }
  return value;
}

/**
 * The budget of a new agent, checked before anything is created: every level set is checked (a
 * bad setting is an error even when the profile sets its own), the most specific one applies.
 */
export function agentBudget(
  override: unknown,
  profile: { readonly name: string; readonly budgetUsd?: unknown },
  setting: unknown,
): number | undefined {
  const fromSetting = checkBudget(setting, { kind: 'setting' });
  const fromProfile = checkBudget(profile.budgetUsd, { kind: 'profile', profile: profile.name });
  return checkBudget(override, { kind: 'dispatch' }) ?? fromProfile ?? fromSetting;
}

/** What the agent has spent so far: its earlier runs and the current (or last) one, as its CLI reported. */
export function agentCost(record: Pick<AgentRecord, 'spentUsd' | 'activity'>): number {
  return (record.spentUsd ?? 0) + (record.activity?.costUsd ?? 0);
}

/** What is left of the agent's budget; undefined without one. */
export function budgetLeft(record: Pick<AgentRecord, 'budgetUsd' | 'spentUsd' | 'activity'>): number | undefined {
  return record.budgetUsd === undefined ? undefined : record.budgetUsd - agentCost(record);
}

/** The agent's own budget is reached: what it spent against what it may. */
export function agentOverBudget(
  record: Pick<AgentRecord, 'budgetUsd' | 'spentUsd' | 'activity'>,
): OverBudget | undefined {
  const budget = record.budgetUsd;
  const cost = agentCost(record);
  return budget !== undefined && cost >= budget ? { budgetUsd: budget, costUsd: cost } : undefined;
}

/** The agents of a plan run, and what they spent together. */
export function planCost(records: readonly AgentRecord[], runId: string): number {
  return records.filter((r) => r.plan?.runId === runId).reduce((sum, r) => sum + agentCost(r), 0);
}

/** The plan's budget (carried by each of its task agents) is reached by all its agents together. */
export function planOverBudget(
  records: readonly AgentRecord[],
  record: Pick<AgentRecord, 'plan'>,
): OverBudget | undefined {
  const plan = record.plan;
  if (plan?.budgetUsd === undefined) {
    return undefined;
  }
  const cost = planCost(records, plan.runId);
  return cost >= plan.budgetUsd ? { budgetUsd: plan.budgetUsd, costUsd: cost, plan: true } : undefined;
}

/** A dispatch or follow-up that would start with nothing left: refused before anything is created or run. */
export function checkBudgetLeft(title: string, over: OverBudget | undefined): void {
  if (over) {
    const data = { title, budgetUsd: over.budgetUsd, costUsd: over.costUsd };
    throw new AgentError(over.plan ? 'planOverBudget' : 'agentOverBudget', data);
  }
}

/** Claude Code ends a print-mode run itself at `--max-budget-usd`; its interactive mode ignores the flag. */
export function takesBudgetFlag(command: string, args: readonly string[]): boolean {
  const file = (command.split(/[\\/]/).pop() ?? command).replace(/\.(exe|cmd|js|mjs)$/i, '');
  return file === 'claude' && args.some((a) => a === '-p' || a === '--print');
}

/** The arguments that pass what is left of the budget to a CLI that takes one (argv elements, no shell). */
export function budgetArgs(command: string, args: readonly string[], left: number | undefined): string[] {
  if (left === undefined || left <= 0 || !takesBudgetFlag(command, args)) {
    return [];
  }
  // Cents and below: a float's tail (0.30000000000000004) is not passed on.
  return ['--max-budget-usd', String(Math.max(0.0001, Math.floor(left * 10_000) / 10_000))];
}

/** What is left for the agent's next run: the smaller of its own budget's and its plan's; undefined without either. */
export function runBudgetLeft(records: readonly AgentRecord[], record: AgentRecord): number | undefined {
  const own = budgetLeft(record);
  const plan = record.plan?.budgetUsd;
  const planLeft = plan === undefined ? undefined : plan - planCost(records, record.plan!.runId);
  return own === undefined ? planLeft : planLeft === undefined ? own : Math.min(own, planLeft);
}

/**
 * The status a run's end writes when the CLI itself ended the run at the budget it was given
 * (claude's `error_max_budget_usd`): stopped as over budget, not failed; undefined otherwise.
 * `record` carries the run's final activity.
 */
export function budgetEnd(
  record: AgentRecord,
  end: { readonly activity?: AgentRecord['activity'] },
): Pick<AgentRecord, 'status' | 'overBudget' | 'error' | 'quota'> | undefined {
  if (!end.activity?.budgetReached) {
    return undefined;
  }
  const cost = agentCost(record);
  const planBudget = record.plan?.budgetUsd;
  // Given the smaller of the two caps, it stopped at its own unless only its plan has one or the plan's was smaller.
  const overPlan = planBudget !== undefined && (record.budgetUsd === undefined || planBudget < record.budgetUsd);
  const overBudget: OverBudget = overPlan
    ? { budgetUsd: planBudget, costUsd: cost, plan: true }
    : { budgetUsd: record.budgetUsd ?? cost, costUsd: cost };
  return { status: 'stopped', overBudget, error: undefined, quota: undefined };
}
