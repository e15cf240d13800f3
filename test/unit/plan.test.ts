import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import {
  dependentsOf,
  isolations,
  parsePlan,
  planFields,
  requiredPlanFields,
  requiredTaskFields,
  taskFields,
  taskIdPattern,
  validatePlan,
} from '../../src/core/plans/plan';
import { topologicalOrder } from '../../src/core/plans/planGraph';
import {
  extractPlanJson,
  planningPrompt,
  planRequestMarker,
  readPlanningRequest,
  replyText,
} from '../../src/core/plans/planningRequest';
import type { PlanProblem } from '../../src/core/plans/planProblems';
import type { Plan } from '../../src/core/plans/planTypes';
import { englishPlanProblem } from '../../src/ui/planProblemText';

// Compiled to out/test/unit/; the schema lives at the repository root.
const schemaPath = path.resolve(__dirname, '../../../schemas/agents-plan.schema.json');
const profiles = ['demo', 'claude'];

type Raw = Record<string, unknown>;

function task(id: string, extra: Raw = {}): Raw {
  return { id, title: `Task ${id}`, prompt: `do ${id}`, ...extra };
}

function plan(tasks: unknown, extra: Raw = {}): Raw {
  return { title: 'A change', tasks, ...extra };
}

/** A problem as an English UI shows it. */
interface Shown {
  readonly taskId?: string;
  readonly field: string;
  readonly message: string;
}

function shown(p: PlanProblem): Shown {
  return { ...(p.taskId !== undefined ? { taskId: p.taskId } : {}), field: p.field, message: englishPlanProblem(p) };
}

function problems(raw: unknown, known: readonly string[] = profiles): Shown[] {
  const result = validatePlan(raw, known);
  assert.equal(result.plan, undefined, 'a plan with problems yields no plan');
  return result.problems.map(shown);
}

function messages(raw: unknown): string[] {
  return problems(raw).map((p) => p.message);
}

function valid(raw: unknown): Plan {
  const result = validatePlan(raw, profiles);
  assert.deepEqual(result.problems, []);
  assert.ok(result.plan);
  return result.plan;
}

describe('plan', () => {
  describe('validatePlan: plan-level fields', () => {
    it('accepts a full plan and copies only known fields', () => {
      const raw = plan(
        [task('a', { profile: 'demo', isolation: 'terminal' }), task('b', { dependsOn: ['a'], isolation: 'worktree' })],
        { base: 'main', maxParallel: 2, $schema: './x.json' },
      );
      assert.deepEqual(valid(raw), {
        title: 'A change',
        base: 'main',
        maxParallel: 2,
        tasks: [
          { id: 'a', title: 'Task a', prompt: 'do a', profile: 'demo', isolation: 'terminal' },
          { id: 'b', title: 'Task b', prompt: 'do b', dependsOn: ['a'], isolation: 'worktree' },
        ],
      });
    });

    it('the plan must be an object', () => {
      for (const raw of [null, [], 'plan', 3]) {
        assert.deepEqual(problems(raw), [{ field: '', message: 'plan: the plan must be a JSON object' }]);
      }
    });

    it('title missing, empty, blank or not a string', () => {
      assert.deepEqual(problems({ tasks: [task('a')] }), [{ field: 'title', message: 'plan: title is missing' }]);
      for (const title of ['', '   ', 7]) {
        assert.deepEqual(problems(plan([task('a')], { title })), [
          { field: 'title', message: 'plan: title must be a non-empty string' },
        ]);
      }
    });

    it('tasks missing, not an array, empty', () => {
      assert.deepEqual(problems({ title: 't' }), [{ field: 'tasks', message: 'plan: tasks is missing' }]);
      assert.deepEqual(problems(plan({ a: task('a') })), [
        { field: 'tasks', message: 'plan: tasks must be an array of tasks' },
      ]);
      assert.deepEqual(problems(plan([])), [{ field: 'tasks', message: 'plan: tasks must list at least one task' }]);
    });

    it('maxParallel must be a positive integer', () => {
      for (const maxParallel of [0, -1, 1.5, '2', null]) {
        assert.deepEqual(problems(plan([task('a')], { maxParallel })), [
          {
            field: 'maxParallel',
            message: `plan: maxParallel must be a positive integer, not ${JSON.stringify(maxParallel)}`,
          },
        ]);
      }
      valid(plan([task('a')], { maxParallel: 1 }));
    });

    it('base must be a non-empty string', () => {
      for (const base of ['', ' ', 3, null]) {
        assert.deepEqual(problems(plan([task('a')], { base })), [
          { field: 'base', message: 'plan: base must be a non-empty string (a branch, tag or commit)' },
        ]);
      }
    });

    it('unknown plan fields are problems, naming the known ones', () => {
      assert.deepEqual(problems(plan([task('a')], { titel: 'x' })), [
        {
          field: 'titel',
          message: 'plan: unknown field "titel" (known fields: $schema, title, base, maxParallel, tasks)',
        },
      ]);
    });

    it('reports every problem at once, plan-level first', () => {
      assert.deepEqual(messages({ maxParallel: 0, tasks: [task('a', { prompt: '' })] }), [
        'plan: title is missing',
        'plan: maxParallel must be a positive integer, not 0',
        'task "a": prompt must be a non-empty string',
      ]);
    });
  });

  describe('validatePlan: tasks', () => {
    it('a task must be an object', () => {
      assert.deepEqual(problems(plan([task('a'), 'b'])), [
        { field: 'tasks[1]', message: 'tasks[1]: a task must be an object' },
      ]);
    });

    it('id missing, empty, not a string', () => {
      assert.deepEqual(problems(plan([{ title: 'x', prompt: 'y' }])), [
        { field: 'tasks[0].id', message: 'tasks[0]: id is missing' },
      ]);
      assert.deepEqual(problems(plan([task('a'), { ...task('b'), id: '' }])), [
        { field: 'tasks[1].id', message: 'tasks[1]: id must be a non-empty string' },
      ]);
      assert.deepEqual(problems(plan([{ ...task('b'), id: 4 }])), [
        { field: 'tasks[0].id', message: 'tasks[0]: id must be a non-empty string' },
      ]);
    });

    it('ids use letters, digits, - _ . only', () => {
      valid(plan([task('A-1_b.c')]));
      for (const id of ['a b', 'a/b', 'é', 'a:b']) {
        assert.deepEqual(problems(plan([task(id)])), [
          {
            taskId: id,
            field: 'tasks[0].id',
            message: `task "${id}": id may contain only letters, digits, "-", "_" and "."`,
          },
        ]);
      }
    });

    it('duplicate ids name the first task that uses the id', () => {
      assert.deepEqual(problems(plan([task('a'), task('b'), task('a')])), [
        { taskId: 'a', field: 'tasks[2].id', message: 'task "a": id is already used by tasks[0]' },
      ]);
    });

    it('title and prompt missing or empty', () => {
      assert.deepEqual(problems(plan([{ id: 'a' }])), [
        { taskId: 'a', field: 'tasks[0].title', message: 'task "a": title is missing' },
        { taskId: 'a', field: 'tasks[0].prompt', message: 'task "a": prompt is missing' },
      ]);
      assert.deepEqual(problems(plan([task('a', { title: ' ', prompt: '\n\t' })])), [
        { taskId: 'a', field: 'tasks[0].title', message: 'task "a": title must be a non-empty string' },
        { taskId: 'a', field: 'tasks[0].prompt', message: 'task "a": prompt must be a non-empty string' },
      ]);
    });

    it('the prompt is kept byte for byte', () => {
      const prompt = '  line one\n\tline "two"  \n';
      assert.equal(valid(plan([task('a', { prompt })])).tasks[0].prompt, prompt);
    });

    it('unknown profile lists the known ones', () => {
      assert.deepEqual(problems(plan([task('a', { profile: 'gpt' })])), [
        {
          taskId: 'a',
          field: 'tasks[0].profile',
          message: 'task "a": unknown profile "gpt" (known profiles: demo, claude)',
        },
      ]);
      assert.deepEqual(
        problems(plan([task('a', { profile: 'demo' })]), []).map((p) => p.message),
        ['task "a": unknown profile "demo" (no profiles are known)'],
      );
      assert.deepEqual(messages(plan([task('a', { profile: '' })])), ['task "a": profile must be a non-empty string']);
    });

    it('isolation is worktree or terminal', () => {
      assert.deepEqual(problems(plan([task('a', { isolation: 'docker' })])), [
        {
          taskId: 'a',
          field: 'tasks[0].isolation',
          message: 'task "a": isolation must be "worktree" or "terminal", not "docker"',
        },
      ]);
    });

    it('bestOf is a whole number from 2 to 10; a bad one names its task', () => {
      const ok = valid(plan([task('a', { bestOf: 2 }), task('b', { bestOf: 10, dependsOn: ['a'] })]));
      assert.deepEqual(
        ok.tasks.map((t) => t.bestOf),
        [2, 10],
      );
      assert.equal(valid(plan([task('a')])).tasks[0].bestOf, undefined);
      for (const value of [0, 1, 11, 50, 2.5, '3', null]) {
        assert.deepEqual(problems(plan([task('a'), task('pick', { bestOf: value })])), [
          {
            taskId: 'pick',
            field: 'tasks[1].bestOf',
            message: `task "pick": bestOf must be a whole number from 2 to 10, not ${JSON.stringify(value)}`,
          },
        ]);
      }
    });

    it('unknown task fields are problems', () => {
      assert.deepEqual(problems(plan([task('a', { priority: 1 })])), [
        {
          taskId: 'a',
          field: 'tasks[0].priority',
          message:
            'task "a": unknown field "priority" (known fields: id, title, prompt, profile, dependsOn, bestOf, isolation)',
        },
      ]);
      assert.deepEqual(messages(plan([{ title: 'x', prompt: 'y', name: 'n' }])), [
        'tasks[0]: unknown field "name" (known fields: id, title, prompt, profile, dependsOn, bestOf, isolation)',
        'tasks[0]: id is missing',
      ]);
    });
  });

  describe('validatePlan: dependencies', () => {
    it('dependsOn must be an array of ids', () => {
      assert.deepEqual(problems(plan([task('a'), task('b', { dependsOn: 'a' })])), [
        { taskId: 'b', field: 'tasks[1].dependsOn', message: 'task "b": dependsOn must be an array of task ids' },
      ]);
      assert.deepEqual(problems(plan([task('a'), task('b', { dependsOn: ['a', 3] })])), [
        {
          taskId: 'b',
          field: 'tasks[1].dependsOn[1]',
          message: 'task "b": dependsOn[1] must be a task id (a non-empty string)',
        },
      ]);
    });

    it('unknown dependency', () => {
      assert.deepEqual(problems(plan([task('db'), task('api', { dependsOn: ['db', 'db2'] })])), [
        { taskId: 'api', field: 'tasks[1].dependsOn[1]', message: 'task "api": dependsOn names unknown task "db2"' },
      ]);
    });

    it('self-dependency (not also reported as a cycle)', () => {
      assert.deepEqual(problems(plan([task('a', { dependsOn: ['a'] })])), [
        { taskId: 'a', field: 'tasks[0].dependsOn[0]', message: 'task "a": dependsOn names the task itself' },
      ]);
    });

    it('a dependency named twice', () => {
      assert.deepEqual(messages(plan([task('a'), task('b', { dependsOn: ['a', 'a'] })])), [
        'task "b": dependsOn names "a" more than once',
      ]);
    });

    it('a 3-cycle is named once as a path from its first task in the file', () => {
      const raw = plan([
        task('a', { dependsOn: ['c'] }),
        task('b', { dependsOn: ['a'] }),
        task('c', { dependsOn: ['b'] }),
      ]);
      assert.deepEqual(problems(raw), [
        { taskId: 'a', field: 'tasks[0].dependsOn', message: 'task "a": dependsOn forms a cycle: a → c → b → a' },
      ]);
      const rotated = plan([
        task('x'),
        task('b', { dependsOn: ['c'] }),
        task('c', { dependsOn: ['a'] }),
        task('a', { dependsOn: ['b', 'x'] }),
      ]);
      assert.deepEqual(messages(rotated), ['task "b": dependsOn forms a cycle: b → c → a → b']);
    });

    it('two separate cycles are each reported once; tasks merely leading into a cycle are not part of it', () => {
      const raw = plan([
        task('z', { dependsOn: ['x'] }),
        task('x', { dependsOn: ['y'] }),
        task('y', { dependsOn: ['x'] }),
        task('ok'),
        task('p', { dependsOn: ['q', 'ok'] }),
        task('q', { dependsOn: ['r'] }),
        task('r', { dependsOn: ['p'] }),
      ]);
      assert.deepEqual(problems(raw), [
        { taskId: 'x', field: 'tasks[1].dependsOn', message: 'task "x": dependsOn forms a cycle: x → y → x' },
        { taskId: 'p', field: 'tasks[4].dependsOn', message: 'task "p": dependsOn forms a cycle: p → q → r → p' },
      ]);
    });

    it('two cycles through one task are two cycles', () => {
      const raw = plan([
        task('a', { dependsOn: ['b', 'c'] }),
        task('b', { dependsOn: ['a'] }),
        task('c', { dependsOn: ['a'] }),
      ]);
      assert.deepEqual(messages(raw), [
        'task "a": dependsOn forms a cycle: a → b → a',
        'task "a": dependsOn forms a cycle: a → c → a',
      ]);
    });
  });

  describe('parsePlan', () => {
    it('parses and validates; profiles are checked only when given', () => {
      const text = JSON.stringify(plan([task('a', { profile: 'mine' })]));
      assert.equal(parsePlan(text).plan?.tasks[0].profile, 'mine');
      assert.deepEqual(parsePlan(text, ['demo']).problems.map(englishPlanProblem), [
        'task "a": unknown profile "mine" (known profiles: demo)',
      ]);
      assert.ok(parsePlan(`\uFEFF${text}`).plan, 'a byte order mark is ignored');
    });

    it('syntax errors give line and column', () => {
      const cases: Array<[string, string]> = [
        [
          '{\n  "title": "x",\n  "tasks": [}',
          'invalid JSON at line 3, column 13: expected a value: a string, number, object, array, true, false or null',
        ],
        ['{\n  "title": "x"\n  "tasks": []\n}', 'invalid JSON at line 3, column 3: expected "," or "}" in the object'],
        ['{"title": "x",}', 'invalid JSON at line 1, column 15: a trailing comma is not allowed in JSON'],
        ['{"tasks": [1, 2,]}', 'invalid JSON at line 1, column 17: a trailing comma is not allowed in JSON'],
        ['{\n  // note\n}', 'invalid JSON at line 2, column 3: expected a property name in double quotes'],
        [
          '{"title": "a\nb"}',
          'invalid JSON at line 1, column 13: a line break or control character inside a string must be escaped (e.g. \\n)',
        ],
        ['{"title": "a\\q"}', 'invalid JSON at line 1, column 14: invalid escape in a string'],
        ['{"n": 01}', 'invalid JSON at line 1, column 7: invalid number'],
        [
          '{"title": tru}',
          'invalid JSON at line 1, column 11: expected a value: a string, number, object, array, true, false or null',
        ],
        ['{"title": "x"} x', 'invalid JSON at line 1, column 16: unexpected text after the end of the JSON value'],
        ['{"title": "x"', 'invalid JSON at line 1, column 14: unexpected end of the text; the object is not closed'],
        ['{"title": "x', 'invalid JSON at line 1, column 13: unexpected end of the text; a string is not closed'],
        ['', 'invalid JSON at line 1, column 1: unexpected end of the text; a value is missing'],
      ];
      for (const [text, message] of cases) {
        const result = parsePlan(text);
        assert.deepEqual(
          { ...result, problems: result.problems.map(shown) },
          { problems: [{ field: '', message }] },
          JSON.stringify(text),
        );
      }
    });
  });

  describe('graph', () => {
    const diamond: Plan = {
      title: 'd',
      tasks: [
        { id: 'last', title: 'l', prompt: 'p', dependsOn: ['left', 'right'] },
        { id: 'right', title: 'r', prompt: 'p', dependsOn: ['root'] },
        { id: 'root', title: 'r', prompt: 'p' },
        { id: 'left', title: 'l', prompt: 'p', dependsOn: ['root'] },
        { id: 'solo', title: 's', prompt: 'p' },
      ],
    };

    it('topologicalOrder puts dependencies first and keeps file order among ready tasks', () => {
      assert.deepEqual(
        topologicalOrder(diamond).map((t) => t.id),
        ['root', 'right', 'left', 'last', 'solo'],
      );
      const independent: Plan = { title: 'i', tasks: ['c', 'a', 'b'].map((id) => ({ id, title: id, prompt: id })) };
      assert.deepEqual(
        topologicalOrder(independent).map((t) => t.id),
        ['c', 'a', 'b'],
      );
    });

    it('topologicalOrder refuses a plan with a cycle', () => {
      const cyclic: Plan = {
        title: 'c',
        tasks: [
          { id: 'a', title: 'a', prompt: 'a', dependsOn: ['b'] },
          { id: 'b', title: 'b', prompt: 'b', dependsOn: ['a'] },
        ],
      };
      assert.throws(
        () => topologicalOrder(cyclic),
        (e) => AgentError.is(e, 'invalidPlan'),
      );
    });

    it('dependentsOf: direct, or transitive, in file order', () => {
      assert.deepEqual(
        dependentsOf(diamond, 'root').map((t) => t.id),
        ['right', 'left'],
      );
      assert.deepEqual(
        dependentsOf(diamond, 'root', { transitive: true }).map((t) => t.id),
        ['last', 'right', 'left'],
      );
      assert.deepEqual(
        dependentsOf(diamond, 'left', { transitive: true }).map((t) => t.id),
        ['last'],
      );
      assert.deepEqual(dependentsOf(diamond, 'last', { transitive: true }), []);
      assert.deepEqual(dependentsOf(diamond, 'nope'), []);
    });
  });

  describe('extractPlanJson', () => {
    const planText = JSON.stringify(plan([task('a'), task('b', { dependsOn: ['a'] })]), null, 2);

    it('takes the last ```json block that parses, from prose', () => {
      const reply = `Sure! First a sketch:\n\`\`\`json\n{"title": "draft", "tasks": []}\n\`\`\`\nThe final plan:\n\n\`\`\`json\n${planText}\n\`\`\`\nBroken:\n\`\`\`json\n{"title": \n\`\`\`\nDone.`;
      assert.equal(extractPlanJson(reply), planText);
    });

    it('prefers a block with tasks over a later block without', () => {
      const reply = `\`\`\`JSON\n${planText}\n\`\`\`\nand settings:\n\`\`\`json\n{"editor.tabSize": 2}\n\`\`\``;
      assert.equal(extractPlanJson(reply), planText);
      assert.equal(extractPlanJson('```json\n{"x": 1}\n```'), '{"x": 1}', 'a block without tasks, for want of better');
    });

    it('a prompt that quotes ``` cuts its fence short: the balanced object is found instead', () => {
      const quoting = JSON.stringify(plan([task('a', { prompt: 'Add:\n```ts\nconst x = 1;\n```' })]), null, 2);
      const reply = `\`\`\`json\n${quoting}\n\`\`\`\nConfig:\n\`\`\`json\n{"x": 1}\n\`\`\``;
      assert.equal(extractPlanJson(reply), quoting);
    });

    it('finds the largest balanced object with tasks in bare text', () => {
      const reply = `Here {is} the plan, with "quotes" and a {brace}: ${planText} and {"tasks": []} too. Bye}`;
      assert.equal(extractPlanJson(reply), planText);
      const tricky = '{"title": "has } and { in it", "tasks": [{"id": "a", "prompt": "say \\"}\\""}]}';
      assert.equal(extractPlanJson(`plan: ${tricky}`), tricky);
    });

    it('garbage gives undefined', () => {
      for (const reply of ['', 'no plan here', '{ not json }', '{"title": "x"}', '```json\nnope\n```', '{{{{']) {
        assert.equal(extractPlanJson(reply), undefined, reply);
      }
    });
  });

  describe('planningPrompt', () => {
    it('carries the marker, the rules, the shape, the profiles and the description', () => {
      const prompt = planningPrompt('  Add login.\nThen logout.  ', ['demo', 'claude']);
      const lines = prompt.split('\n');
      assert.equal(lines[0], planRequestMarker);
      assert.equal(planRequestMarker, '[parallel-agents:plan-request]');
      for (const words of [
        'dependsOn',
        'self-contained',
        'independent',
        '"id"',
        '"title"',
        'ONE ```json',
        'demo, claude',
        '"tasks": [',
      ]) {
        assert.ok(prompt.includes(words), words);
      }
      assert.deepEqual(readPlanningRequest(prompt), {
        description: 'Add login.\nThen logout.',
        profiles: ['demo', 'claude'],
      });
    });

    it('readPlanningRequest: without profiles, with a description that repeats the end line, and other prompts', () => {
      const description = 'x\n--- end of change description ---\ny';
      assert.deepEqual(readPlanningRequest(planningPrompt(description, [])), { description, profiles: [] });
      assert.equal(readPlanningRequest('create a.txt: hi'), undefined);
      assert.equal(readPlanningRequest(`${planRequestMarker}\nno description`), undefined);
    });
  });

  describe('schemas/agents-plan.schema.json', () => {
    const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8')) as Schema;
    const taskSchema = schema.definitions?.task as Schema;

    it('is draft-07 and matches the validator: fields, required fields, id pattern, isolations', () => {
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.deepEqual(Object.keys(schema.properties ?? {}), [...planFields]);
      assert.deepEqual(schema.required, [...requiredPlanFields]);
      assert.deepEqual(Object.keys(taskSchema.properties ?? {}), [...taskFields]);
      assert.deepEqual(taskSchema.required, [...requiredTaskFields]);
      assert.equal(schema.additionalProperties, false);
      assert.equal(taskSchema.additionalProperties, false);
      assert.equal(schema.definitions?.taskId.pattern, taskIdPattern.source);
      assert.deepEqual(taskSchema.properties?.isolation.enum, [...isolations]);
      for (const s of [schema, taskSchema]) {
        for (const [key, property] of Object.entries(s.properties ?? {})) {
          assert.ok(key === '$schema' || property.description, `${key} has a description`);
        }
      }
    });

    it('its snippets are valid plans and tasks', () => {
      const fill = (v: unknown): unknown =>
        JSON.parse(JSON.stringify(v).replace(/\$\{\d+:([^}]*)\}/g, (_, text: string) => text.replace(/ /g, '-')));
      const snippetPlan = fill(schema.defaultSnippets?.[0].body);
      assert.deepEqual(validatePlan(snippetPlan, profiles).problems, []);
      assert.deepEqual(validatePlan(plan([fill(taskSchema.defaultSnippets?.[0].body)]), profiles).problems, []);
    });

    it('agrees with validatePlan on plans that need no cross-task checks', () => {
      const samples: unknown[] = [
        plan([task('a', { profile: 'demo', isolation: 'terminal', dependsOn: [] })], {
          base: 'main',
          maxParallel: 3,
          $schema: 'x',
        }),
        plan([task('a'), task('b', { dependsOn: ['a'] })]),
        {},
        [],
        plan([]),
        plan({}),
        { tasks: [task('a')] },
        plan([task('a')], { title: '  ' }),
        plan([task('a')], { extra: 1 }),
        plan([task('a')], { maxParallel: 0 }),
        plan([task('a')], { maxParallel: 2.5 }),
        plan([task('a')], { base: '' }),
        plan([task('a b')]),
        plan([{ title: 't', prompt: 'p' }]),
        plan([task('a', { prompt: '' })]),
        plan([task('a', { title: ' ' })]),
        plan([task('a', { isolation: 'vm' })]),
        plan([task('a', { extra: true })]),
        plan([task('a', { dependsOn: 'b' })]),
        plan([task('a'), task('b', { dependsOn: ['a', 'a'] })]),
        plan([task('a'), task('b', { dependsOn: ['not valid'] })]),
        plan(['x']),
      ];
      for (const sample of samples) {
        const byValidator = validatePlan(sample, profiles).problems.length === 0;
        assert.equal(conforms(sample, schema, schema), byValidator, JSON.stringify(sample));
      }
    });
  });
});

interface Schema {
  $schema?: string;
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean;
  items?: Schema;
  definitions?: Record<string, Schema>;
  enum?: unknown[];
  minLength?: number;
  minItems?: number;
  minimum?: number;
  pattern?: string;
  maximum?: number;
  uniqueItems?: boolean;
  description?: string;
  defaultSnippets?: Array<{ body: unknown }>;
}

/** The subset of draft-07 the plan schema uses. */
function conforms(value: unknown, s: Schema, root: Schema): boolean {
  if (s.$ref) {
    return conforms(value, root.definitions?.[s.$ref.replace('#/definitions/', '')] as Schema, root);
  }
  const typeOk = {
    object: () => typeof value === 'object' && value !== null && !Array.isArray(value),
    array: () => Array.isArray(value),
    string: () => typeof value === 'string',
    integer: () => Number.isInteger(value),
    undefined: () => true,
  }[s.type ?? 'undefined'];
  if (!typeOk?.() || (s.enum && !s.enum.includes(value))) {
    return false;
  }
  if (typeof value === 'string') {
    return value.length >= (s.minLength ?? 0) && (s.pattern === undefined || new RegExp(s.pattern).test(value));
  }
  if (typeof value === 'number') {
    return value >= (s.minimum ?? -Infinity) && value <= (s.maximum ?? Infinity);
  }
  if (Array.isArray(value)) {
    const unique = !s.uniqueItems || new Set(value.map((v) => JSON.stringify(v))).size === value.length;
    return unique && value.length >= (s.minItems ?? 0) && value.every((v) => !s.items || conforms(v, s.items, root));
  }
  const obj = value as Record<string, unknown>;
  return (
    (s.required ?? []).every((k) => k in obj) &&
    Object.entries(obj).every(([k, v]) =>
      s.properties?.[k] ? conforms(v, s.properties[k], root) : s.additionalProperties !== false,
    )
  );
}

describe('replyText', () => {
  const plan = '```json\n{"title":"T","tasks":[{"id":"a","title":"A","prompt":"p"}]}\n```';
  it('reads the answer from Claude Code stream-json, Gemini stream-json, or plain text', () => {
    const claude = [
      JSON.stringify({ type: 'system', subtype: 'init' }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'thinking' }] } }),
      JSON.stringify({ type: 'result', subtype: 'success', result: `Here it is:\n${plan}` }),
    ].join('\n');
    assert.equal(replyText(claude), `Here it is:\n${plan}`);
    assert.ok(extractPlanJson(replyText(claude)));
    const gemini = [
      JSON.stringify({ type: 'init' }),
      JSON.stringify({
        type: 'message',
        role: 'assistant',
        content: 'Here it is:\n```json\n{"title":"T",',
        delta: true,
      }),
      JSON.stringify({
        type: 'message',
        role: 'assistant',
        content: '"tasks":[{"id":"a","title":"A","prompt":"p"}]}\n```',
        delta: true,
      }),
      JSON.stringify({ type: 'result', status: 'success' }),
    ].join('\n');
    assert.ok(extractPlanJson(replyText(gemini)));
    assert.equal(replyText(`[demo] plan\n${plan}`), `[demo] plan\n${plan}`);
  });
});
