/**
 * The English text of every plan problem (and of each reason a plan file is not JSON), with the
 * values of its {0}, {1}…: errorMessages.ts translates it through vscode.l10n.t. Free of `vscode`,
 * so plain tests read plan problems in English through it.
 */
import type { PlanProblem, PlanProblemCode, PlanProblemData } from '../core/plans';
import type { JsonSyntaxReason } from '../util/strictJson';
import { fill, l10n, type ErrorText } from './errorText';

const syntaxReasons: { readonly [R in JsonSyntaxReason]: () => ErrorText } = {
  invalidNumber: () => l10n.t('invalid number'),
  trailingComma: () => l10n.t('a trailing comma is not allowed in JSON'),
  expectedProperty: () => l10n.t('expected a property name in double quotes'),
  valueMissing: () => l10n.t('unexpected end of the text; a value is missing'),
  expectedValue: () => l10n.t('expected a value: a string, number, object, array, true, false or null'),
  expectedColon: () => l10n.t('expected ":" after the property name'),
  objectNotClosed: () => l10n.t('unexpected end of the text; the object is not closed'),
  arrayNotClosed: () => l10n.t('unexpected end of the text; the array is not closed'),
  expectedCommaInObject: () => l10n.t('expected "," or "}" in the object'),
  expectedCommaInArray: () => l10n.t('expected "," or "]" in the array'),
  textAfterEnd: () => l10n.t('unexpected text after the end of the JSON value'),
  controlInString: () => l10n.t('a line break or control character inside a string must be escaped (e.g. \\n)'),
  invalidEscape: () => l10n.t('invalid escape in a string'),
  stringNotClosed: () => l10n.t('unexpected end of the text; a string is not closed'),
  unreadable: () => l10n.t('the text could not be read as JSON'),
};

/** What a problem is about: the plan, a task by its id, or a task without one by its place. */
type Label = { readonly text: ErrorText } | string;

type Table = { readonly [C in PlanProblemCode]: (label: Label, data: PlanProblemData[C]) => ErrorText };

const json = (value: unknown): string => JSON.stringify(value);

const texts: Table = {
  invalidJson: (_, d) => l10n.t('invalid JSON at line {0}, column {1}: {2}', d.line, d.column, { text: reasonText(d) }),
  notAnObject: (l) => l10n.t('{0}: the plan must be a JSON object', l),
  unknownField: (l, d) => l10n.t('{0}: unknown field "{1}" (known fields: {2})', l, d.name, d.known.join(', ')),
  missing: (l, d) => l10n.t('{0}: {1} is missing', l, d.name),
  notText: (l, d) => l10n.t('{0}: {1} must be a non-empty string', l, d.name),
  baseNotText: (l) => l10n.t('{0}: base must be a non-empty string (a branch, tag or commit)', l),
  schemaNotString: (l) => l10n.t('{0}: $schema must be a string', l),
  maxParallelNotPositive: (l, d) => l10n.t('{0}: maxParallel must be a positive integer, not {1}', l, json(d.value)),
  tasksNotArray: (l) => l10n.t('{0}: tasks must be an array of tasks', l),
  tasksEmpty: (l) => l10n.t('{0}: tasks must list at least one task', l),
  taskNotObject: (l) => l10n.t('{0}: a task must be an object', l),
  badTaskId: (l) => l10n.t('{0}: id may contain only letters, digits, "-", "_" and "."', l),
  duplicateTaskId: (l, d) => l10n.t('{0}: id is already used by tasks[{1}]', l, d.first),
  unknownProfile: (l, d) =>
    d.known.length > 0
      ? l10n.t('{0}: unknown profile "{1}" (known profiles: {2})', l, d.profile, d.known.join(', '))
      : l10n.t('{0}: unknown profile "{1}" (no profiles are known)', l, d.profile),
  badIsolation: (l, d) => l10n.t('{0}: isolation must be "worktree" or "terminal", not {1}', l, json(d.value)),
  badBestOf: (l, d) =>
    l10n.t('{0}: bestOf must be a whole number from {1} to {2}, not {3}', l, d.min, d.max, json(d.value)),
  dependsOnNotArray: (l) => l10n.t('{0}: dependsOn must be an array of task ids', l),
  dependencyNotText: (l, d) => l10n.t('{0}: dependsOn[{1}] must be a task id (a non-empty string)', l, d.index),
  dependencyBadId: (l, d) =>
    l10n.t(
      '{0}: dependsOn[{1}] is "{2}", which is not a task id: an id may contain only letters, digits, "-", "_" and "."',
      l,
      d.index,
      d.value,
    ),
  dependsOnItself: (l) => l10n.t('{0}: dependsOn names the task itself', l),
  unknownDependency: (l, d) => l10n.t('{0}: dependsOn names unknown task "{1}"', l, d.dependency),
  repeatedDependency: (l, d) => l10n.t('{0}: dependsOn names "{1}" more than once', l, d.dependency),
  dependencyCycle: (l, d) => l10n.t('{0}: dependsOn forms a cycle: {1}', l, d.cycle.join(' → ')),
  noPlanInReply: () => l10n.t('no plan JSON found in the reply'),
};

function reasonText(d: PlanProblemData['invalidJson']): ErrorText {
  return syntaxReasons[d.reason]();
}

function labelOf(problem: PlanProblem): Label {
  if (problem.taskId !== undefined) {
    return { text: l10n.t('task "{0}"', problem.taskId) };
  }
  // A task without an id is named by its place in the file, a JSON path: not translated.
  return /^tasks\[\d+\]/.exec(problem.field)?.[0] ?? { text: l10n.t('plan') };
}

/** The template and values of a plan problem. */
export function planProblemText(problem: PlanProblem): ErrorText {
  const make = texts[problem.code] as (label: Label, data: PlanProblem['data']) => ErrorText;
  return make(labelOf(problem), problem.data);
}

/** A plan problem in English: what an English UI shows (and tests read). */
export function englishPlanProblem(problem: PlanProblem): string {
  const text = planProblemText(problem);
  return fill(text.template, text.args);
}
