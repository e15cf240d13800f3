/** An agent's budget on its row and hover (core/agents/budgets.ts): what it spent of it, and why it stopped. */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import { usd } from '../errorTexts/budgetTexts';

/** The status of an agent stopped on reaching its budget: "stopped: over budget"; undefined for any other. */
export function overBudgetLabel(record: AgentRecord): string | undefined {
  if (record.status !== 'stopped' || !record.overBudget) {
    return undefined;
  }
  return record.overBudget.plan ? vscode.l10n.t('stopped: over plan budget') : vscode.l10n.t('stopped: over budget');
}

/** The hover's Budget row: "$0.42 of $2.00" (what it spent of its own cap); undefined without a cap. */
export function budgetRow(record: AgentRecord): string | undefined {
  if (record.budgetUsd === undefined) {
    return undefined;
  }
  const spent = (record.spentUsd ?? 0) + (record.activity?.costUsd ?? 0);
  return vscode.l10n.t('{0} of {1}', usd(spent), usd(record.budgetUsd));
}

/** The hover's paragraph on an agent stopped as over budget. */
export function overBudgetText(record: AgentRecord): string | undefined {
  const over = record.status === 'stopped' ? record.overBudget : undefined;
  if (!over) {
    return undefined;
  }
  return over.plan
    ? vscode.l10n.t(
        "Stopped: its plan's agents together spent {0} of the plan's {1} budget. No further task of the plan starts; its worktree and work are kept.",
        usd(over.costUsd),
        usd(over.budgetUsd),
      )
    : vscode.l10n.t(
        'Stopped: it spent {0} of its {1} budget (as its CLI reported). Its worktree and work are kept: review, merge or discard it.',
        usd(over.costUsd),
        usd(over.budgetUsd),
      );
}
