import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanProblem, PlanProblemCode, PlanProblemData } from '../../src/core/plans/planProblems';
import { fill, type ErrorText, type TextArg } from '../../src/ui/errorText';
import { englishPlanProblem, planProblemText } from '../../src/ui/planProblemText';
import type { JsonSyntaxReason } from '../../src/util/strictJson';
import { repoRoot } from '../harness/paths';

// Every plan problem (and every reason a plan file is not JSON) has its words in English and Spanish,
// keyed by the English template of src/ui/planProblemText.ts; core/ keeps codes and data only.

type Strings = Record<string, string>;
const readJson = (path: string): Strings => JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as Strings;
const bundleEn = readJson('l10n/bundle.l10n.json');
const bundleEs = readJson('l10n/bundle.l10n.es.json');

/** Data for every code; TypeScript fails the build when a code has none. */
const samples: { readonly [C in PlanProblemCode]: PlanProblemData[C] } = {
  invalidJson: { line: 3, column: 13, reason: 'expectedValue' },
  notAnObject: {},
  unknownField: { name: 'titel', known: ['title', 'tasks'] },
  missing: { name: 'title' },
  notText: { name: 'prompt' },
  baseNotText: {},
  schemaNotString: {},
  maxParallelNotPositive: { value: 0 },
  tasksNotArray: {},
  tasksEmpty: {},
  taskNotObject: {},
  badTaskId: {},
  duplicateTaskId: { first: 0 },
  unknownProfile: { profile: 'gpt', known: ['demo'] },
  badIsolation: { value: 'docker' },
  badBestOf: { value: 50, min: 2, max: 10 },
  dependsOnNotArray: {},
  dependencyNotText: { index: 1 },
  dependencyBadId: { index: 0, value: 'a b' },
  dependsOnItself: {},
  unknownDependency: { dependency: 'db2' },
  repeatedDependency: { dependency: 'a' },
  dependencyCycle: { cycle: ['a', 'b', 'a'] },
  noPlanInReply: {},
};

const reasons: readonly JsonSyntaxReason[] = [
  'invalidNumber',
  'trailingComma',
  'expectedProperty',
  'valueMissing',
  'expectedValue',
  'expectedColon',
  'objectNotClosed',
  'arrayNotClosed',
  'expectedCommaInObject',
  'expectedCommaInArray',
  'textAfterEnd',
  'controlInString',
  'invalidEscape',
  'stringNotClosed',
  'unreadable',
];

/** Each problem of the samples, about a task with an id, one without, and the plan. */
function problems(): PlanProblem[] {
  const codes = Object.keys(samples) as PlanProblemCode[];
  const of = (code: PlanProblemCode, field: string, taskId?: string) =>
    ({ ...(taskId ? { taskId } : {}), field, code, data: samples[code] }) as PlanProblem;
  const syntax = reasons.map((reason) => ({ ...of('invalidJson', ''), data: { line: 1, column: 2, reason } }));
  return [
    ...codes.flatMap((code) => [of(code, 'tasks[0].title', 'a'), of(code, 'tasks[1]'), of(code, 'title')]),
    ...(syntax as PlanProblem[]),
  ];
}

/** Every template of a text, its nested texts (a label, a reason) included. */
function templates(text: ErrorText): string[] {
  const nested = text.args.flatMap((a: TextArg) => (typeof a === 'object' && 'text' in a ? templates(a.text) : []));
  return [text.template, ...nested];
}

const placeholders = (s: string) =>
  [...new Set([...s.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1])))].sort((a, b) => a - b).join();

describe('plan problems and their messages', () => {
  it('gives every code and syntax reason an English template and a Spanish translation', () => {
    const found: string[] = [];
    for (const problem of problems()) {
      const text = planProblemText(problem);
      assert.equal(placeholders(text.template), text.args.map((_, i) => i).join(), `${problem.code}: placeholders`);
      for (const template of templates(text)) {
        if (bundleEn[template] !== template) {
          found.push(`${problem.code}: ${JSON.stringify(template)} is not in l10n/bundle.l10n.json`);
        }
        const spanish = bundleEs[template];
        if (typeof spanish !== 'string' || spanish.trim() === '') {
          found.push(`${problem.code}: ${JSON.stringify(template)} has no Spanish text`);
        } else if (placeholders(spanish) !== placeholders(template)) {
          found.push(`${problem.code}: the Spanish text of ${JSON.stringify(template)} has other placeholders`);
        }
      }
      const english = englishPlanProblem(problem);
      const spanish = fill(bundleEs[text.template] ?? '', text.args, (a) =>
        typeof a === 'object' && 'text' in a ? fill(bundleEs[a.text.template] ?? '', a.text.args) : String(a),
      );
      for (const shown of [english, spanish]) {
        if (/\{\d+\}|undefined|\[object Object\]/.test(shown)) {
          found.push(`${problem.code} reads ${JSON.stringify(shown)}`);
        }
      }
    }
    assert.deepEqual(found, []);
  });

  it('names the task by its id, a task without one by its place, else the plan; in Spanish too', () => {
    const problem = (taskId: string | undefined, field: string): PlanProblem => ({
      ...(taskId ? { taskId } : {}),
      field,
      code: 'missing',
      data: { name: 'prompt' },
    });
    assert.equal(englishPlanProblem(problem('a', 'tasks[0].prompt')), 'task "a": prompt is missing');
    assert.equal(englishPlanProblem(problem(undefined, 'tasks[2].prompt')), 'tasks[2]: prompt is missing');
    assert.equal(englishPlanProblem(problem(undefined, 'prompt')), 'plan: prompt is missing');
    const text = planProblemText(problem('a', 'tasks[0].prompt'));
    const spanish = fill(bundleEs[text.template], text.args, (a) =>
      typeof a === 'object' && 'text' in a ? fill(bundleEs[a.text.template], a.text.args) : String(a),
    );
    assert.equal(spanish, 'tarea "a": falta prompt');
  });
});
