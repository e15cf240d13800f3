/**
 * The structural rules of a plan are those of schemas/agents-plan.schema.json, the schema the editor
 * validates plan files with: the build compiles it with ajv (planSchema.generated.js), and this file
 * turns what it reports into plan problems. Rules a schema cannot state are plan.ts's.
 */
import type { Isolation } from '../agent';
import { bestOfLimits } from '../agents';
import { problemAt, type PlanProblem } from './planProblems';
import validate, { type SchemaError } from './planSchema.generated';

const facts = validate.facts;
export const planFields = facts.planFields as readonly ['$schema', 'title', 'base', 'maxParallel', 'tasks'];
export const taskFields = facts.taskFields as readonly [
  'id',
  'title',
  'prompt',
  'profile',
  'dependsOn',
  'bestOf',
  'isolation',
];
export const requiredPlanFields = facts.requiredPlanFields as readonly ['title', 'tasks'];
export const requiredTaskFields = facts.requiredTaskFields as readonly ['id', 'title', 'prompt'];
export const isolations = facts.isolations as readonly Isolation[];
export const taskIdPattern = new RegExp(facts.taskIdPattern);

/** Every rule of the schema `raw` breaks, one problem per field (the first rule broken there). */
export function schemaProblems(raw: unknown): PlanProblem[] {
  if (validate(raw)) {
    return [];
  }
  const byField = new Map<string, PlanProblem>();
  for (const error of validate.errors ?? []) {
    const problem = toProblem(error, raw);
    if (!byField.has(problem.field)) {
      byField.set(problem.field, problem);
    }
  }
  return [...byField.values()];
}

/** The keys a JSON pointer names: "/tasks/0/id" → ["tasks", "0", "id"]. */
function keysOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A JSON pointer as a field path: "/tasks/0/id" → "tasks[0].id". */
function fieldOf(pointer: string): string {
  return keysOf(pointer).reduce(
    (path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path === '' ? s : `${path}.${s}`),
    '',
  );
}

function valueAt(raw: unknown, pointer: string): unknown {
  return keysOf(pointer).reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], raw);
}

const isText = (value: unknown): boolean => typeof value === 'string' && /\S/.test(value);

function toProblem(error: SchemaError, raw: unknown): PlanProblem {
  const at = fieldOf(error.instancePath);
  const within = (name: string) => (at === '' ? name : `${at}.${name}`);
  const known = at === '' ? planFields : taskFields;
  if (error.keyword === 'required') {
    const name = error.params.missingProperty as string;
    return problemAt(within(name), 'missing', { name });
  }
  if (error.keyword === 'additionalProperties') {
    const name = error.params.additionalProperty as string;
    return problemAt(within(name), 'unknownField', { name, known });
  }
  const value = valueAt(raw, error.instancePath);
  const item = /^tasks\[\d+\]\.dependsOn\[(\d+)\]$/.exec(at);
  if (item) {
    const index = Number(item[1]);
    return isText(value)
      ? problemAt(at, 'dependencyBadId', { index, value: value as string })
      : problemAt(at, 'dependencyNotText', { index });
  }
  return valueProblem(at, error, value);
}

/** The problem of a value that breaks a rule of its own field (its type, length, pattern, range…). */
function valueProblem(at: string, error: SchemaError, value: unknown): PlanProblem {
  const name = at.replace(/^.*[.\]]/, '');
  switch (/^tasks\[\d+\]$/.test(at) ? 'task' : name) {
    case '':
      return problemAt(at, 'notAnObject', {});
    case 'task':
      return problemAt(at, 'taskNotObject', {});
    case 'base':
      return problemAt(at, 'baseNotText', {});
    case '$schema':
      return problemAt(at, 'schemaNotString', {});
    case 'maxParallel':
      return problemAt(at, 'maxParallelNotPositive', { value });
    case 'tasks':
      return error.keyword === 'minItems' ? problemAt(at, 'tasksEmpty', {}) : problemAt(at, 'tasksNotArray', {});
    case 'isolation':
      return problemAt(at, 'badIsolation', { value });
    case 'bestOf':
      return problemAt(at, 'badBestOf', { value, min: bestOfLimits.min, max: bestOfLimits.max });
    case 'dependsOn':
      if (error.keyword === 'uniqueItems') {
        const index = error.params.i as number;
        return problemAt(`${at}[${index}]`, 'repeatedDependency', { dependency: String((value as unknown[])[index]) });
      }
      return problemAt(at, 'dependsOnNotArray', {});
    case 'id':
      return isText(value) ? problemAt(at, 'badTaskId', {}) : problemAt(at, 'notText', { name });
    default:
      return problemAt(at, 'notText', { name });
  }
}
