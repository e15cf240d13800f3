/** The texts of the codes of budgets (see core/agents/budgets.ts), and how dollars are written in them and on rows. */
import { l10n, type Texts } from './textTemplate';

/** US dollars: cents from a dollar up, else up to 4 decimals (a run of a few cents shows its size). */
export function usd(value: number): string {
  if (value >= 1) {
    return `$${value.toFixed(2)}`;
  }
  return `$${value.toFixed(4).replace(/(\.\d\d)(\d*?)0+$/, '$1$2')}`;
}

export const budgetTexts = {
  invalidBudget: (d) =>
    l10n.t(
      'The budget in {0} must be a number of US dollars above 0, such as 2.5; it is {1}. Remove it for no budget. Nothing was created.',
      d.where,
      d.value,
    ),
  agentOverBudget: (d) =>
    l10n.t(
      'Agent "{0}" has spent {1} of its {2} budget: it gets no further run. Its work is kept: review, merge or discard it, or dispatch a new agent.',
      d.title,
      usd(d.costUsd),
      usd(d.budgetUsd),
    ),
  planOverBudget: (d) =>
    l10n.t(
      'The plan\'s agents have spent {0} of its {1} budget: "{2}" was not started. The work of its tasks is kept.',
      usd(d.costUsd),
      usd(d.budgetUsd),
      d.title,
    ),
} satisfies Partial<Texts>;
