/**
 * Stops running agents that reach their budget (core/agents/budgets.ts) from the cost their CLI
 * reports: an agent over its own budget, and every agent of a plan run that this window runs once
 * the plan's agents together reach the plan's budget. The record says why (`overBudget`) before the
 * stop is asked, so the run's end finds it; the worktree and work stay, as with any Stop.
 */
import type { OverBudget } from '../agent';
import type { Logger } from '../ports';
import type { AgentRecords } from './agentRecords';
import { agentOverBudget, planOverBudget } from './budgets';

export class BudgetWatch {
  constructor(
    private readonly records: AgentRecords,
    private readonly logger: Logger,
    /** Stops the run of an agent this window runs; undefined when it runs none. */
    private readonly stopRun: (id: string) => Promise<void> | undefined,
  ) {}

  /** After a report of the agent's cost (its progress, or its run's end). */
  check(id: string): void {
    if (!this.records.has(id)) {
      return;
    }
    const record = this.records.get(id);
    const own = agentOverBudget(record);
    if (own) {
      this.stop(id, own);
    }
    const plan = planOverBudget(this.records.list(), record);
    if (plan) {
      const runId = record.plan?.runId;
      for (const other of this.records.list().filter((r) => r.plan?.runId === runId)) {
        this.stop(other.id, plan);
      }
    }
  }

  private stop(id: string, over: OverBudget): void {
    const record = this.records.get(id);
    if (record.overBudget || (record.status !== 'running' && record.status !== 'waiting-for-input')) {
      return;
    }
    const stopping = this.stopRun(id);
    if (!stopping) {
      return; // another window runs it: that window's watch stops it
    }
    this.records.update(id, { overBudget: over });
    const what = over.plan ? "its plan's budget" : 'its budget';
    this.logger.info(`[Budgets] ${id} reached ${what} ($${over.costUsd} of $${over.budgetUsd}): stopping it`);
    stopping.catch((e: Error) => this.logger.warn(`[Budgets] stopping ${id} failed: ${e.message}`));
  }
}
