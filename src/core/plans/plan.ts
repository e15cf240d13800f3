/**
 * The plan file: parsing and validation (the rules of schemas/agents-plan.schema.json, checked by
 * planSchema.ts, plus those a schema cannot state: references between tasks, cycles, profile
 * names), and a task's dependents. The order to run tasks in is planGraph.ts's; the exchange with a
 * planning agent is planningRequest.ts's.
 */
import { parseStrictJson } from '../../util/strictJson';
import type { Isolation } from '../agent';
import { problemAt, type PlanProblem } from './planProblems';
import { schemaProblems } from './planSchema';
import type { Plan, PlanTask } from './planTypes';

export {
  isolations,
  planFields,
  requiredPlanFields,
  requiredTaskFields,
  taskFields,
  taskIdPattern,
} from './planSchema';

export interface PlanResult {
  /** Present only when there are no problems. */
  readonly plan?: Plan;
  readonly problems: PlanProblem[];
}

type Json = Record<string, unknown>;

/**
 * JSON text → validated plan. A syntax error names its line and column (1-based). Without
 * `knownProfiles`, profile names are not checked.
 */
export function parsePlan(text: string, knownProfiles?: readonly string[]): PlanResult {
  const parsed = parseStrictJson(text.replace(/^\uFEFF/, ''));
  if ('error' in parsed) {
    return { problems: [problemAt('', 'invalidJson', parsed.error)] };
  }
  return checkPlan(parsed.value, knownProfiles);
}

export function validatePlan(raw: unknown, knownProfiles: readonly string[]): PlanResult {
  return checkPlan(raw, knownProfiles);
}

/**
 * The schema's problems and those between tasks, plan-level first, then task by task in file
 * order, each in the order of `fieldOrder`; cycles last.
 */
function checkPlan(raw: unknown, knownProfiles: readonly string[] | undefined): PlanResult {
  const structural = schemaProblems(raw);
  const tasks = isObject(raw) && Array.isArray(raw.tasks) ? (raw.tasks as unknown[]) : [];
  const broken = new Set(structural.map((p) => p.field));
  const firstIndex = new Map<string, number>();
  tasks.forEach((task, index) => {
    const id = isObject(task) && isText(task.id) ? task.id : undefined;
    if (id !== undefined && !firstIndex.has(id)) {
      firstIndex.set(id, index);
    }
  });
  const between = tasks.flatMap((task, index) =>
    isObject(task) ? taskProblems(task, `tasks[${index}]`, index, firstIndex, knownProfiles, broken) : [],
  );
  const cycles = findCycles(tasks, firstIndex).map((cycle) =>
    problemAt(`tasks[${firstIndex.get(cycle[0])}].dependsOn`, 'dependencyCycle', { cycle }),
  );
  const problems = [...sortedByField([...structural, ...between]), ...cycles].map((p) => withTaskId(p, tasks));
  return problems.length > 0 ? { problems } : { plan: toPlan(raw as Json), problems: [] };
}

/** What a schema cannot see in one task: its id used before, unknown profiles, its dependencies. */
function taskProblems(
  task: Json,
  at: string,
  index: number,
  firstIndex: ReadonlyMap<string, number>,
  knownProfiles: readonly string[] | undefined,
  broken: ReadonlySet<string>,
): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const id = task.id;
  if (typeof id === 'string' && !broken.has(`${at}.id`) && firstIndex.get(id) !== index) {
    problems.push(problemAt(`${at}.id`, 'duplicateTaskId', { first: firstIndex.get(id) as number }));
  }
  const profile = task.profile;
  if (
    knownProfiles &&
    typeof profile === 'string' &&
    !broken.has(`${at}.profile`) &&
    !knownProfiles.includes(profile)
  ) {
    problems.push(problemAt(`${at}.profile`, 'unknownProfile', { profile, known: knownProfiles }));
  }
  const deps: unknown[] = Array.isArray(task.dependsOn) ? task.dependsOn : [];
  deps.forEach((dependency, j) => {
    const field = `${at}.dependsOn[${j}]`;
    if (typeof dependency !== 'string' || broken.has(field)) {
      return;
    }
    if (dependency === id) {
      problems.push(problemAt(field, 'dependsOnItself', {}));
    } else if (!firstIndex.has(dependency)) {
      problems.push(problemAt(field, 'unknownDependency', { dependency }));
    }
  });
  return problems;
}

/** The order problems are listed in within the plan and within a task; unknown fields come first. */
const fieldOrder = {
  plan: ['title', 'base', 'maxParallel', '$schema', 'tasks'],
  task: ['id', 'title', 'prompt', 'profile', 'isolation', 'bestOf', 'dependsOn'],
};

/** "tasks[2].dependsOn[1]" → [rank of tasks, 2, rank of dependsOn, 1]; a stable sort keeps ties in order. */
function sortKey(field: string): number[] {
  const m = /^([^.[]*)(?:\[(\d+)\](?:\.([^.[]*))?(?:\[(\d+)\])?)?$/.exec(field);
  if (field === '') {
    return [-1];
  }
  if (!m) {
    return [0];
  }
  const rank = (order: readonly string[], name: string | undefined) =>
    name === undefined ? -1 : order.indexOf(name) + 1;
  return [rank(fieldOrder.plan, m[1]), Number(m[2] ?? -1), rank(fieldOrder.task, m[3]), Number(m[4] ?? -1)];
}

function sortedByField(problems: readonly PlanProblem[]): PlanProblem[] {
  const keyed = problems.map((p) => ({ p, key: sortKey(p.field) }));
  keyed.sort((a, b) => {
    const i = a.key.findIndex((k, n) => k !== b.key[n]);
    return i === -1 ? 0 : a.key[i] - (b.key[i] ?? -1);
  });
  return keyed.map((k) => k.p);
}

/** Names the task of a problem about `tasks[i]…` when that task has a (non-empty) string id. */
function withTaskId(problem: PlanProblem, tasks: readonly unknown[]): PlanProblem {
  const index = /^tasks\[(\d+)\]/.exec(problem.field)?.[1];
  const task = index === undefined ? undefined : tasks[Number(index)];
  const id = isObject(task) ? task.id : undefined;
  return typeof id === 'string' && id !== '' ? { taskId: id, ...problem } : problem;
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
      ...(t.bestOf !== undefined ? { bestOf: t.bestOf as number } : {}),
    }),
  );
  return {
    title: raw.title as string,
    ...(raw.base !== undefined ? { base: raw.base as string } : {}),
    ...(raw.maxParallel !== undefined ? { maxParallel: raw.maxParallel as number } : {}),
    tasks,
  };
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
