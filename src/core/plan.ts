/**
 * The plan file: parsing, validation (the rules schemas/agents-plan.schema.json states, plus those a
 * schema cannot: references between tasks, cycles, profile names), graph order, and the exchange
 * with a planning agent (the request it is sent, the JSON pulled out of its free-form reply).
 */
import type { Isolation } from './agent';
import type { Plan, PlanProblem, PlanTask } from './planTypes';

export interface PlanResult {
  /** Present only when there are no problems. */
  readonly plan?: Plan;
  readonly problems: PlanProblem[];
}

/** A line of its own in every planning request; the demo agent answers such a prompt with a plan. */
export const planRequestMarker = '[parallel-agents:plan-request]';

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
  const source = text.replace(/^\uFEFF/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(source);
  } catch (e) {
    return { problems: [{ field: '', message: jsonSyntaxMessage(source, e) }] };
  }
  return checkPlan(raw, knownProfiles);
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
  if (maxParallel !== undefined && !(typeof maxParallel === 'number' && Number.isInteger(maxParallel) && maxParallel >= 1)) {
    problems.add(undefined, 'maxParallel', `plan: maxParallel must be a positive integer, not ${JSON.stringify(maxParallel)}`);
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
    problems.add(cycle[0], `tasks[${index}].dependsOn`, `task "${cycle[0]}": dependsOn forms a cycle: ${cycle.join(' → ')}`);
  }
}

function checkTask(task: unknown, index: number, firstIndex: ReadonlyMap<string, number>, knownProfiles: readonly string[] | undefined, problems: Problems): void {
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
    problems.add(id, `${at}.isolation`, `${label}: isolation must be "worktree" or "terminal", not ${JSON.stringify(task.isolation)}`);
  }
  checkDependsOn(task.dependsOn, `${at}.dependsOn`, label, id, firstIndex, problems);
}

function checkProfile(profile: unknown, field: string, label: string, id: string | undefined, knownProfiles: readonly string[] | undefined, problems: Problems): void {
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

function checkDependsOn(dependsOn: unknown, field: string, label: string, id: string | undefined, firstIndex: ReadonlyMap<string, number>, problems: Problems): void {
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
    const valid = Array.isArray(deps) ? deps.filter((d): d is string => typeof d === 'string' && d !== id && firstIndex.has(d)) : [];
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
  const start = cycle.reduce((best, id, i) => ((firstIndex.get(id) as number) < (firstIndex.get(cycle[best]) as number) ? i : best), 0);
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}

/** Builds the plan from raw JSON that passed every check. */
function toPlan(raw: Json): Plan {
  const tasks = (raw.tasks as Json[]).map((t): PlanTask => ({
    id: t.id as string,
    title: t.title as string,
    prompt: t.prompt as string,
    ...(t.profile !== undefined ? { profile: t.profile as string } : {}),
    ...(t.dependsOn !== undefined ? { dependsOn: [...(t.dependsOn as string[])] } : {}),
    ...(t.isolation !== undefined ? { isolation: t.isolation as Isolation } : {}),
  }));
  return {
    title: raw.title as string,
    ...(raw.base !== undefined ? { base: raw.base as string } : {}),
    ...(raw.maxParallel !== undefined ? { maxParallel: raw.maxParallel as number } : {}),
    tasks,
  };
}

function requiredText(obj: Json, key: string, label: string, prefix: string, id: string | undefined, problems: Problems): string | undefined {
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

function unknownFields(obj: Json, known: readonly string[], label: string, prefix: string, id: string | undefined, problems: Problems): void {
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

/** Tasks in dependency order; among tasks ready at the same time, file order. Needs a valid plan. */
export function topologicalOrder(plan: Plan): PlanTask[] {
  const placed = new Set<string>();
  const order: PlanTask[] = [];
  while (order.length < plan.tasks.length) {
    const next = plan.tasks.find((t) => !placed.has(t.id) && (t.dependsOn ?? []).every((d) => placed.has(d)));
    if (!next) {
      const stuck = plan.tasks.filter((t) => !placed.has(t.id)).map((t) => t.id);
      throw new Error(`topologicalOrder: tasks ${stuck.join(', ')} wait on a cycle or an unknown task (validate the plan first)`);
    }
    order.push(next);
    placed.add(next.id);
  }
  return order;
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

/**
 * The plan JSON in a planning agent's reply: the last ```json fenced block that parses and has a
 * "tasks" array; else the largest balanced {...} that does (a prompt quoting ``` cuts a fence
 * short); else the last fenced block that parses at all, so validation can say what is wrong.
 */
export function extractPlanJson(reply: string): string | undefined {
  const fenced = [...reply.matchAll(/```json[^\n]*\n([\s\S]*?)```/gi)].map((m) => m[1].trim()).filter((text) => parses(text) !== undefined);
  const fencedPlans = fenced.filter((text) => hasTasks(parses(text)));
  return fencedPlans[fencedPlans.length - 1] ?? largestBalancedPlan(reply) ?? fenced[fenced.length - 1];
}

function largestBalancedPlan(reply: string): string | undefined {
  let best: string | undefined;
  let end = -1;
  for (let start = reply.indexOf('{'); start !== -1; start = reply.indexOf('{', start + 1)) {
    if (start < end) {
      continue; // inside a candidate already taken, so no larger one starts here
    }
    const close = matchingBrace(reply, start);
    const candidate = close === undefined ? undefined : reply.slice(start, close + 1);
    if (candidate !== undefined && hasTasks(parses(candidate))) {
      end = close as number;
      best = best === undefined || candidate.length > best.length ? candidate : best;
    }
  }
  return best;
}

function parses(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function hasTasks(parsed: { value: unknown } | undefined): boolean {
  return parsed !== undefined && isObject(parsed.value) && Array.isArray(parsed.value.tasks);
}

/** Index of the `}` closing the `{` at `start`, skipping braces inside JSON strings. */
function matchingBrace(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') {
        i++;
      } else if (c === '"') {
        inString = false;
      }
    } else if (c === '"') {
      inString = true;
    } else if (c === '{' || c === '}') {
      depth += c === '{' ? 1 : -1;
      if (depth === 0) {
        return i;
      }
    }
  }
  return undefined;
}

const descriptionStart = '--- change description ---';
const descriptionEnd = '--- end of change description ---';
const profilesLine = 'Agent profiles you may name in "profile":';

/** The request sent to a planning agent; readPlanningRequest() reads it back. */
export function planningPrompt(description: string, profiles: readonly string[]): string {
  return [
    planRequestMarker,
    'Break the change described below into a plan of tasks for coding agents that work in parallel.',
    'Do not change any files. Reply with the plan only.',
    '',
    'Rules:',
    '- Each task is done by a separate agent in its own git worktree. It starts from the work of the tasks it depends on and sees nothing else.',
    '- Make tasks as independent as possible, so they can run at the same time; give them separate files where you can.',
    '- "dependsOn" lists the id of every task whose work a task needs. No cycles. Tasks without dependencies start first.',
    '- Each "prompt" is self-contained: its agent sees only that prompt and the repository, not this description or the other tasks. Name the files, functions and behaviour to change, and how to check the result.',
    '- "id": short and unique; letters, digits, "-", "_" and "." only (e.g. "api-client"). "title": one short line.',
    '- Usually 2 to 8 tasks.',
    ...(profiles.length > 0 ? [`- ${profilesLine} ${profiles.join(', ')}. Leave "profile" out to use the default.`] : []),
    '',
    'The plan is JSON of this shape ("maxParallel", "base", "profile" and "isolation" ("worktree" or "terminal") are optional):',
    '{',
    '  "title": "Short title of the whole change",',
    '  "tasks": [',
    '    { "id": "db", "title": "Add the users table", "prompt": "Self-contained instructions...", "dependsOn": [] },',
    '    { "id": "api", "title": "Users API", "prompt": "Self-contained instructions...", "dependsOn": ["db"] }',
    '  ]',
    '}',
    '',
    'Reply with exactly ONE ```json fenced block that holds the plan, and nothing else.',
    '',
    descriptionStart,
    description.trim(),
    descriptionEnd,
    '',
  ].join('\n');
}

/** The description and profiles of a prompt made by planningPrompt(); undefined for any other prompt. */
export function readPlanningRequest(prompt: string): { description: string; profiles: string[] } | undefined {
  const lines = prompt.split(/\r?\n/).map((l) => l.trim());
  const start = lines.indexOf(descriptionStart);
  const end = lines.lastIndexOf(descriptionEnd);
  if (!lines.includes(planRequestMarker) || start === -1 || end < start) {
    return undefined;
  }
  const listed = lines.find((l) => l.startsWith(`- ${profilesLine} `));
  const profiles = listed === undefined ? [] : listed.slice(profilesLine.length + 3).replace(/\. Leave .*$/, '').split(', ');
  return { description: prompt.split(/\r?\n/).slice(start + 1, end).join('\n').trim(), profiles };
}

function jsonSyntaxMessage(text: string, e: unknown): string {
  const located = locateJsonError(text);
  if (!located) {
    return `invalid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  const before = text.slice(0, located.offset);
  const line = before.split('\n').length;
  const column = located.offset - before.lastIndexOf('\n');
  return `invalid JSON at line ${line}, column ${column}: ${located.reason}`;
}

class JsonSyntaxError extends Error {
  constructor(readonly offset: number, readonly reason: string) {
    super(reason);
  }
}

/** Where JSON.parse failed: its own messages give no position for some errors (V8: "Unexpected token"). */
function locateJsonError(text: string): { offset: number; reason: string } | undefined {
  try {
    new JsonScanner(text).document();
    return undefined;
  } catch (e) {
    return e instanceof JsonSyntaxError ? { offset: e.offset, reason: e.reason } : undefined;
  }
}

class JsonScanner {
  private pos = 0;
  constructor(private readonly text: string) {}

  document(): void {
    this.value();
    this.space();
    if (this.pos < this.text.length) {
      this.fail('unexpected text after the end of the JSON value');
    }
  }

  private value(): void {
    this.space();
    const c = this.text[this.pos];
    if (c === '{' || c === '[') {
      this.members(c === '{' ? '}' : ']');
    } else if (c === '"') {
      this.string();
    } else if (/[-0-9]/.test(c ?? '')) {
      this.token(/-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\d.])/y, 'invalid number');
    } else if (c === undefined) {
      this.fail('unexpected end of the text; a value is missing');
    } else {
      this.token(/(?:true|false|null)\b/y, 'expected a value: a string, number, object, array, true, false or null');
    }
  }

  private members(close: '}' | ']'): void {
    const what = close === '}' ? 'object' : 'array';
    this.pos++;
    this.space();
    if (this.text[this.pos] === close) {
      this.pos++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.pos] === close) {
        this.fail(`a trailing comma is not allowed in JSON`);
      }
      if (close === '}') {
        if (this.text[this.pos] !== '"') {
          this.fail('expected a property name in double quotes');
        }
        this.string();
        this.space();
        this.expect(':', 'expected ":" after the property name');
      }
      this.value();
      this.space();
      const c = this.text[this.pos];
      this.pos++;
      if (c === close) {
        return;
      }
      if (c !== ',') {
        this.pos--;
        this.fail(c === undefined ? `unexpected end of the text; the ${what} is not closed` : `expected "," or "${close}" in the ${what}`);
      }
    }
  }

  private string(): void {
    for (this.pos++; this.pos < this.text.length; this.pos++) {
      const c = this.text[this.pos];
      if (c === '"') {
        this.pos++;
        return;
      }
      if (c < ' ') {
        this.fail('a line break or control character inside a string must be escaped (e.g. \\n)');
      }
      if (c === '\\') {
        this.pos++;
        this.token(/["\\/bfnrt]|u[0-9a-fA-F]{4}/y, 'invalid escape in a string');
        this.pos--;
      }
    }
    this.fail('unexpected end of the text; a string is not closed');
  }

  private token(pattern: RegExp, reason: string): void {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) {
      this.fail(reason);
    }
    this.pos = pattern.lastIndex;
  }

  private expect(char: string, reason: string): void {
    if (this.text[this.pos] !== char) {
      this.fail(reason);
    }
    this.pos++;
  }

  private space(): void {
    while (/[ \t\n\r]/.test(this.text[this.pos] ?? '')) {
      this.pos++;
    }
  }

  private fail(reason: string): never {
    throw new JsonSyntaxError(this.pos, reason);
  }
}
