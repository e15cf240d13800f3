/**
 * The plan file: parsing and validation (the rules schemas/agents-plan.schema.json states, plus those
 * a schema cannot: references between tasks, cycles, profile names), and a task's dependents. The
 * order to run tasks in is planGraph.ts's; the exchange with a planning agent is planningRequest.ts's.
 */
import { parseStrictJson } from '../../util/strictJson';
import type { Isolation } from '../agent';
import type { Plan, PlanProblem, PlanTask } from './planTypes';

export interface PlanResult {
  /** Present only when there are no problems. */
  readonly plan?: Plan;
  readonly problems: PlanProblem[];
}

export const planFields = ['$schema', 'title', 'base', 'maxParallel', 'tasks'] as const;
export const taskFields = ['id', 'title', 'prompt', 'profile', 'dependsOn', 'isolation'] as const;
export const requiredPlanFields = ['title', 'tasks'] as const;
export const requiredTaskFields = ['id', 'title', 'prompt'] as const;
export const isolations: readonly Isolation[] = ['worktree', 'terminal'];
export const taskIdPattern = /^[A-Za-z0-9._-]+$/;

type Json = Record<string, unknown>;

/**
 * JSON text → validated plan. Syntax errors name their line and column (1-based). Without
 * `knownProfiles`, profile names are only checked to be strings.
 */
export function parsePlan(text: string, knownProfiles?: readonly string[]): PlanResult {
  const parsed = parseStrictJson(text.replace(/^\uFEFF/, ''));
  if ('error' in parsed) {
    return { problems: [{ field: '', message: parsed.error }] };
  }
  return checkPlan(parsed.value, knownProfiles);
}

export function validatePlan(raw: unknown, knownProfiles: readonly string[]): PlanResult {
  return checkPlan(raw, knownProfiles);
}

class Problems {
  readonly list: PlanProblem[] = [];
  add(taskId: string | undefined, field: string, message: string): void {
    this.list.push(taskId === undefined ? { field, message } : { taskId, field, message });
  }
}

function checkPlan(raw: unknown, knownProfiles: readonly string[] | undefined): PlanResult {
  if (!isObject(raw)) {
    return { problems: [{ field: '', message: 'plan: the plan must be a JSON object' }] };
  }
  const problems = new Problems();
  unknownFields(raw, planFields, 'plan', '', undefined, problems);
  requiredText(raw, 'title', 'plan', '', undefined, problems);
  if (raw.base !== undefined && !isText(raw.base)) {
    problems.add(undefined, 'base', 'plan: base must be a non-empty string (a branch, tag or commit)');
  }
  const maxParallel = raw.maxParallel;
  if (
    maxParallel !== undefined &&
    !(typeof maxParallel === 'number' && Number.isInteger(maxParallel) && maxParallel >= 1)
  ) {
    problems.add(
      undefined,
      'maxParallel',
      `plan: maxParallel must be a positive integer, not ${JSON.stringify(maxParallel)}`,
    );
  }
  if (raw.$schema !== undefined && typeof raw.$schema !== 'string') {
    problems.add(undefined, '$schema', 'plan: $schema must be a string');
  }
  if (raw.tasks === undefined) {
    problems.add(undefined, 'tasks', 'plan: tasks is missing');
  } else if (!Array.isArray(raw.tasks)) {
    problems.add(undefined, 'tasks', 'plan: tasks must be an array of tasks');
  } else if (raw.tasks.length === 0) {
    problems.add(undefined, 'tasks', 'plan: tasks must list at least one task');
  } else {
    checkTasks(raw.tasks, knownProfiles, problems);
  }
  return problems.list.length > 0 ? { problems: problems.list } : { plan: toPlan(raw), problems: [] };
}

function checkTasks(tasks: readonly unknown[], knownProfiles: readonly string[] | undefined, problems: Problems): void {
  const firstIndex = new Map<string, number>();
  tasks.forEach((task, index) => {
    const id = isObject(task) && isText(task.id) ? task.id : undefined;
    if (id !== undefined && !firstIndex.has(id)) {
      firstIndex.set(id, index);
    }
  });
  tasks.forEach((task, index) => checkTask(task, index, firstIndex, knownProfiles, problems));
  for (const cycle of findCycles(tasks, firstIndex)) {
    const index = firstIndex.get(cycle[0]) as number;
    problems.add(
      cycle[0],
      `tasks[${index}].dependsOn`,
      `task "${cycle[0]}": dependsOn forms a cycle: ${cycle.join(' → ')}`,
    );
  }
}

function checkTask(
  task: unknown,
  index: number,
  firstIndex: ReadonlyMap<string, number>,
  knownProfiles: readonly string[] | undefined,
  problems: Problems,
): void {
  const at = `tasks[${index}]`;
  if (!isObject(task)) {
    problems.add(undefined, at, `${at}: a task must be an object`);
    return;
  }
  const id = typeof task.id === 'string' && task.id !== '' ? task.id : undefined;
  const label = id === undefined ? at : `task "${id}"`;
  unknownFields(task, taskFields, label, `${at}.`, id, problems);
  if (requiredText(task, 'id', label, `${at}.`, id, problems) !== undefined) {
    if (!taskIdPattern.test(task.id as string)) {
      problems.add(id, `${at}.id`, `${label}: id may contain only letters, digits, "-", "_" and "."`);
    } else if (firstIndex.get(task.id as string) !== index) {
      problems.add(id, `${at}.id`, `${label}: id is already used by tasks[${firstIndex.get(task.id as string)}]`);
    }
  }
  requiredText(task, 'title', label, `${at}.`, id, problems);
  requiredText(task, 'prompt', label, `${at}.`, id, problems);
  checkProfile(task.profile, `${at}.profile`, label, id, knownProfiles, problems);
  if (task.isolation !== undefined && !isolations.includes(task.isolation as Isolation)) {
    problems.add(
      id,
      `${at}.isolation`,
      `${label}: isolation must be "worktree" or "terminal", not ${JSON.stringify(task.isolation)}`,
    );
  }
  checkDependsOn(task.dependsOn, `${at}.dependsOn`, label, id, firstIndex, problems);
}

function checkProfile(
  profile: unknown,
  field: string,
  label: string,
  id: string | undefined,
  knownProfiles: readonly string[] | undefined,
  problems: Problems,
): void {
  if (profile === undefined) {
    return;
  }
  if (!isText(profile)) {
    problems.add(id, field, `${label}: profile must be a non-empty string`);
  } else if (knownProfiles && !knownProfiles.includes(profile)) {
    const known = knownProfiles.length > 0 ? `known profiles: ${knownProfiles.join(', ')}` : 'no profiles are known';
    problems.add(id, field, `${label}: unknown profile "${profile}" (${known})`);
  }
}

function checkDependsOn(
  dependsOn: unknown,
  field: string,
  label: string,
  id: string | undefined,
  firstIndex: ReadonlyMap<string, number>,
  problems: Problems,
): void {
  if (dependsOn === undefined) {
    return;
  }
  if (!Array.isArray(dependsOn)) {
    problems.add(id, field, `${label}: dependsOn must be an array of task ids`);
    return;
  }
  dependsOn.forEach((dep: unknown, j) => {
    if (!isText(dep)) {
      problems.add(id, `${field}[${j}]`, `${label}: dependsOn[${j}] must be a task id (a non-empty string)`);
    } else if (dep === id) {
      problems.add(id, `${field}[${j}]`, `${label}: dependsOn names the task itself`);
    } else if (!firstIndex.has(dep)) {
      problems.add(id, `${field}[${j}]`, `${label}: dependsOn names unknown task "${dep}"`);
    } else if (dependsOn.indexOf(dep) !== j) {
      problems.add(id, `${field}[${j}]`, `${label}: dependsOn names "${dep}" more than once`);
    }
  });
}

/**
 * Each cycle once, found by depth-first search in file order: every back edge closes one cycle.
 * A cycle is written from its task that comes first in the file, following dependsOn.
 */
function findCycles(tasks: readonly unknown[], firstIndex: ReadonlyMap<string, number>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [id, index] of firstIndex) {
    const deps = (tasks[index] as Json).dependsOn;
    const valid = Array.isArray(deps)
      ? deps.filter((d): d is string => typeof d === 'string' && d !== id && firstIndex.has(d))
      : [];
    edges.set(id, [...new Set(valid)]);
  }
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const cycles = new Map<string, string[]>();
  const visit = (id: string): void => {
    state.set(id, 'open');
    path.push(id);
    for (const dep of edges.get(id) ?? []) {
      if (state.get(dep) === 'open') {
        const cycle = rotateToFirst(path.slice(path.indexOf(dep)), firstIndex);
        cycles.set(cycle.join('\u0000'), [...cycle, cycle[0]]);
      } else if (!state.has(dep)) {
        visit(dep);
      }
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const id of firstIndex.keys()) {
    if (!state.has(id)) {
      visit(id);
    }
  }
  return [...cycles.values()];
}

function rotateToFirst(cycle: readonly string[], firstIndex: ReadonlyMap<string, number>): string[] {
  const start = cycle.reduce(
    (best, id, i) => ((firstIndex.get(id) as number) < (firstIndex.get(cycle[best]) as number) ? i : best),
    0,
  );
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}

/** Builds the plan from raw JSON that passed every check. */
function toPlan(raw: Json): Plan {
  const tasks = (raw.tasks as Json[]).map(
    (t): PlanTask => ({
      id: t.id as string,
      title: t.title as string,
      prompt: t.prompt as string,
      ...(t.profile !== undefined ? { profile: t.profile as string } : {}),
      ...(t.dependsOn !== undefined ? { dependsOn: [...(t.dependsOn as string[])] } : {}),
      ...(t.isolation !== undefined ? { isolation: t.isolation as Isolation } : {}),
    }),
  );
  return {
    title: raw.title as string,
    ...(raw.base !== undefined ? { base: raw.base as string } : {}),
    ...(raw.maxParallel !== undefined ? { maxParallel: raw.maxParallel as number } : {}),
    tasks,
  };
}

function requiredText(
  obj: Json,
  key: string,
  label: string,
  prefix: string,
  id: string | undefined,
  problems: Problems,
): string | undefined {
  const value = obj[key];
  if (value === undefined) {
    problems.add(id, `${prefix}${key}`, `${label}: ${key} is missing`);
  } else if (!isText(value)) {
    problems.add(id, `${prefix}${key}`, `${label}: ${key} must be a non-empty string`);
  } else {
    return value;
  }
  return undefined;
}

function unknownFields(
  obj: Json,
  known: readonly string[],
  label: string,
  prefix: string,
  id: string | undefined,
  problems: Problems,
): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) {
      problems.add(id, `${prefix}${key}`, `${label}: unknown field "${key}" (known fields: ${known.join(', ')})`);
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Tasks that depend on `id` directly (or, with `transitive`, through other tasks too), in file order. */
export function dependentsOf(plan: Plan, id: string, options: { readonly transitive?: boolean } = {}): PlanTask[] {
  const found = new Set<string>();
  let frontier = [id];
  while (frontier.length > 0) {
    const next = plan.tasks.filter((t) => !found.has(t.id) && (t.dependsOn ?? []).some((d) => frontier.includes(d)));
    next.forEach((t) => found.add(t.id));
    frontier = options.transitive ? next.map((t) => t.id) : [];
  }
  return plan.tasks.filter((t) => found.has(t.id));
}
