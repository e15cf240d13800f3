/**
 * The English text of every AgentError code, with the values that fill its {0}, {1}…: the one table
 * errorMessages.ts translates through vscode.l10n.t, put together from one part per domain in
 * errorTexts/. Free of `vscode`, so plain tests can read it.
 */
import type { AgentError, AgentErrorCode, AgentErrorData } from '../core/errors';
import { agentTexts } from './errorTexts/agentTexts';
import { checkTexts } from './errorTexts/checkTexts';
import { commandTexts } from './errorTexts/commandTexts';
import { envTexts } from './errorTexts/envTexts';
import { budgetTexts } from './errorTexts/budgetTexts';
import { gitTexts } from './errorTexts/gitTexts';
import { remoteTexts } from './errorTexts/remoteTexts';
import { startTexts } from './errorTexts/startTexts';
import { stackTexts } from './errorTexts/stackTexts';
import { reviewTexts } from './errorTexts/reviewTexts';
import type { ErrorText, TextArg, Texts } from './errorTexts/textTemplate';

export type { ErrorText, TextArg } from './errorTexts/textTemplate';
export { l10n } from './errorTexts/textTemplate';

const texts: Texts = {
  ...gitTexts,
  ...remoteTexts,
  ...startTexts,
  ...stackTexts,
  ...agentTexts,
  ...commandTexts,
  ...reviewTexts,
  ...checkTexts,
  ...envTexts,
  ...budgetTexts,
};

/** The template and values of `code` with `data`; undefined for a code this table does not know. */
export function textOf<C extends AgentErrorCode>(code: C, data: AgentErrorData[C]): ErrorText | undefined {
  const make = texts[code] as ((data: AgentErrorData[C]) => ErrorText) | undefined;
  return make?.(data);
}

/** Whether the table has a text for `code` (the test checks every code). */
export function hasText(code: string): boolean {
  return Object.prototype.hasOwnProperty.call(texts, code);
}

/** Fills {0}, {1}… like vscode.l10n.t does; `arg` turns each value into text. */
export function fill(template: string, args: readonly TextArg[], arg: (a: TextArg) => string = plainArg): string {
  return template.replace(/\{(\d+)\}/g, (whole, n: string) => {
    const value = args[Number(n)];
    return value === undefined ? whole : arg(value);
  });
}

/** A value as English text: statuses and task states by their ids. */
export function plainArg(a: TextArg): string {
  if (typeof a !== 'object') {
    return String(a);
  }
  return 'agentStatus' in a ? a.agentStatus : 'taskState' in a ? a.taskState : fill(a.text.template, a.text.args);
}

/** The English message of an AgentError: what the user reads under an English UI. */
export function englishMessage(e: AgentError): string {
  const text = textOf(e.code, e.data);
  return text ? fill(text.template, text.args) : e.message;
}

/** `text` as kept in a record, in English: what an English UI shows (and tests read). */
export function englishStored(text: string): string {
  return renderStored(text, (t) => fill(t.template, t.args));
}

/**
 * `text` as kept in a record (an agent's error, a task's reason, a reconcile failure) with each
 * line that ends in an AgentError's message (`code {json}`) rendered by `render`; any other text,
 * such as an older record's sentence, stays as it is.
 */
export function renderStored(text: string, render: (text: ErrorText) => string): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^(.*?)\b([a-z][A-Za-z]+) (\{.*\})$/.exec(line);
      if (!m || !hasText(m[2])) {
        return line;
      }
      try {
        const text = textOf(m[2] as AgentErrorCode, JSON.parse(m[3]) as never);
        return text ? `${m[1]}${render(text)}` : line;
      } catch {
        return line;
      }
    })
    .join('\n');
}
