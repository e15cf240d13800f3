/**
 * What the tables of error texts are made of: a template (the English text, also its l10n key) and
 * the values of its placeholders. Free of `vscode`, so plain tests can read them.
 */
import type { AgentStatus } from '../../core/agent';
import type { AgentErrorCode, AgentErrorData } from '../../core/errors';
import type { TaskState } from '../../core/plans';

/** A value for a placeholder; a status, a task state or a text of its own is shown in the user's language. */
export type TextArg =
  | string
  | number
  | { readonly agentStatus: AgentStatus }
  | { readonly taskState: TaskState }
  | { readonly text: ErrorText };

/** A message template (the English text, which is also its l10n key) and the values of its placeholders. */
export interface ErrorText {
  readonly template: string;
  readonly args: readonly TextArg[];
}

/**
 * Marks a template for translation without translating it: errorMessages.ts does, through
 * vscode.l10n.t. The l10n test reads these calls like vscode.l10n.t calls (a literal, in both bundles).
 */
export const l10n = { t: (template: string, ...args: TextArg[]): ErrorText => ({ template, args }) };

/** Up to five names, then an ellipsis. */
export function someOf(names: readonly string[]): string {
  return `${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`;
}

/** The text of each code: every code in the whole table, some codes in a domain's part of it. */
export type Texts = { readonly [C in AgentErrorCode]: (data: AgentErrorData[C]) => ErrorText };
