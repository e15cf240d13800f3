// The editor and the runtime cannot disagree about a plan's structure: VS Code's own JSON language
// service (what the editor runs on `*.agents.json` with the schema package.json contributes) and
// parsePlan (ajv's code compiled from the same schema) accept the same plans and object to the same
// fields. What only the runtime checks (ids named across tasks, cycles, profiles) is listed apart.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  getLanguageService,
  TextDocument,
  type ASTNode,
  type JSONDocument,
  type LanguageService,
} from 'vscode-json-languageservice';
import { parsePlan } from '../../src/core/plans/plan';
import type { PlanProblem } from '../../src/core/plans/planProblems';

const root = path.resolve(__dirname, '../../..');
const schemaUri = 'file:///schemas/agents-plan.schema.json';

interface Manifest {
  contributes: { jsonValidation: { fileMatch: string; url: string }[] };
}

function editor(): LanguageService {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
  const schemaFile = manifest.contributes.jsonValidation[0].url;
  const schema = JSON.parse(fs.readFileSync(path.join(root, schemaFile), 'utf8')) as object;
  const service = getLanguageService({});
  service.configure({
    validate: true,
    allowComments: false,
    schemas: [{ uri: schemaUri, fileMatch: manifest.contributes.jsonValidation.map((v) => v.fileMatch), schema }],
  });
  return service;
}

/** The field a node of the document is (a property's key stands for its property), as the runtime names fields. */
function fieldOf(node: ASTNode | undefined): string {
  const parts: string[] = [];
  for (let n = node; n?.parent; n = n.parent) {
    const parent: ASTNode = n.parent;
    if (parent.type === 'property') {
      parts.unshift(`.${parent.keyNode.value}`);
      n = parent;
    } else if (parent.type === 'array') {
      parts.unshift(`[${parent.items.indexOf(n)}]`);
    }
  }
  return parts.join('').replace(/^\./, '');
}

/** The fields the editor marks in `text`, where its squiggles start. */
async function editorFields(service: LanguageService, text: string): Promise<string[]> {
  const doc = TextDocument.create('file:///work/x.agents.json', 'json', 1, text);
  const json: JSONDocument = service.parseJSONDocument(doc);
  const diagnostics = await service.doValidation(doc, json, {
    schemaValidation: 'error',
    comments: 'error',
    trailingCommas: 'error',
  });
  const fields = diagnostics.map((d) => {
    const offset = doc.offsetAt(d.range.start);
    const node = json.getNodeFromOffset(offset, true);
    return fieldOf(node);
  });
  return [...new Set(fields)].sort();
}

/**
 * Where the editor puts a runtime problem: a missing field on the object that lacks it, a repeated
 * dependency on its dependsOn array, a syntax error on the document; any other on its own field.
 */
function editorPlace(p: PlanProblem): string {
  if (p.code === 'missing') {
    return p.field.replace(/\.?[^.]+$/, '');
  }
  if (p.code === 'repeatedDependency') {
    return p.field.replace(/\[\d+\]$/, '');
  }
  return p.field;
}

function runtimeFields(text: string): string[] {
  return [...new Set(parsePlan(text).problems.map(editorPlace))].sort();
}

type Raw = Record<string, unknown>;
const task = (id: unknown, extra: Raw = {}): Raw => ({ id, title: `Task ${String(id)}`, prompt: 'do it', ...extra });
const plan = (tasks: unknown, extra: Raw = {}): Raw => ({ title: 'A change', tasks, ...extra });
const text = (value: unknown) => JSON.stringify(value, null, 2);

/** Plans the schema decides, with the fields both sides must object to ([] when both accept). */
const structural: Array<[string, unknown, string[]]> = [
  [
    'a full plan',
    plan([task('a', { profile: 'demo', isolation: 'terminal' }), task('b', { dependsOn: ['a'] })], {
      base: 'main',
      maxParallel: 2,
      $schema: schemaUri,
    }),
    [],
  ],
  ['the smallest plan', plan([task('a')]), []],
  ['not an object', [plan([task('a')])], ['']],
  ['a string', 'plan', ['']],
  ['missing title', { tasks: [task('a')] }, ['']],
  ['blank title', plan([task('a')], { title: '  ' }), ['title']],
  ['empty title', plan([task('a')], { title: '' }), ['title']],
  ['title not a string', plan([task('a')], { title: 7 }), ['title']],
  ['an extra plan field', plan([task('a')], { titel: 'x' }), ['titel']],
  ['$schema not a string', plan([task('a')], { $schema: 1 }), ['$schema']],
  ['empty base', plan([task('a')], { base: '' }), ['base']],
  ['base null', plan([task('a')], { base: null }), ['base']],
  ['maxParallel 0', plan([task('a')], { maxParallel: 0 }), ['maxParallel']],
  ['maxParallel 2.5', plan([task('a')], { maxParallel: 2.5 }), ['maxParallel']],
  ['maxParallel "2"', plan([task('a')], { maxParallel: '2' }), ['maxParallel']],
  ['missing tasks', { title: 't' }, ['']],
  ['tasks an object', plan({ a: task('a') }), ['tasks']],
  ['empty tasks', plan([]), ['tasks']],
  ['a task not an object', plan([task('a'), 'b']), ['tasks[1]']],
  ['a task without an id', plan([{ title: 't', prompt: 'p' }]), ['tasks[0]']],
  ['a task id with a space', plan([task('a b')]), ['tasks[0].id']],
  ['a task id with a slash', plan([task('a/b')]), ['tasks[0].id']],
  ['an empty task id', plan([task('')]), ['tasks[0].id']],
  ['a numeric task id', plan([task(4)]), ['tasks[0].id']],
  ['an empty prompt', plan([task('a', { prompt: '' })]), ['tasks[0].prompt']],
  ['a blank title', plan([task('a', { title: '\n\t' })]), ['tasks[0].title']],
  ['an empty profile', plan([task('a', { profile: '' })]), ['tasks[0].profile']],
  ['a bad isolation', plan([task('a', { isolation: 'docker' })]), ['tasks[0].isolation']],
  ['an extra task field', plan([task('a', { priority: 1 })]), ['tasks[0].priority']],
  ['dependsOn a string', plan([task('a'), task('b', { dependsOn: 'a' })]), ['tasks[1].dependsOn']],
  ['dependsOn with a number', plan([task('a'), task('b', { dependsOn: ['a', 3] })]), ['tasks[1].dependsOn[1]']],
  ['dependsOn with a bad id', plan([task('a'), task('b', { dependsOn: ['not valid'] })]), ['tasks[1].dependsOn[0]']],
  ['dependsOn naming a task twice', plan([task('a'), task('b', { dependsOn: ['a', 'a'] })]), ['tasks[1].dependsOn']],
  [
    'several problems at once',
    { maxParallel: 0, extra: 1, tasks: [task('a', { prompt: '' }), task('b c', { isolation: 'vm' })] },
    ['', 'extra', 'maxParallel', 'tasks[0].prompt', 'tasks[1].id', 'tasks[1].isolation'],
  ],
];

describe('plan schema: the editor and the runtime agree', function () {
  this.timeout(20_000);
  const service = editor();

  for (const [name, value, fields] of structural) {
    it(`${name}: ${fields.length === 0 ? 'both accept' : `both object to ${fields.join(', ')}`}`, async () => {
      const source = typeof value === 'string' ? JSON.stringify(value) : text(value);
      assert.deepEqual(await editorFields(service, source), [...fields].sort(), 'the editor');
      assert.deepEqual(runtimeFields(source), [...fields].sort(), 'the runtime');
    });
  }

  it('syntax errors: both refuse the text', async () => {
    // An empty file is the one text the editor leaves unmarked; the runtime refuses it too.
    for (const source of ['{"title": "x",}', '{\n  // note\n  "title": "x"\n}', '{"title": "x"', '[1 2]']) {
      assert.ok((await editorFields(service, source)).length > 0, `the editor refuses ${JSON.stringify(source)}`);
      assert.deepEqual(
        parsePlan(source).problems.map((p) => p.code),
        ['invalidJson'],
        `the runtime refuses ${JSON.stringify(source)}`,
      );
    }
  });

  it('only the runtime checks what a schema cannot say: ids across tasks, cycles, profile names', async () => {
    const cases: Array<[unknown, string]> = [
      [plan([task('a'), task('a')]), 'duplicateTaskId'],
      [plan([task('a'), task('b', { dependsOn: ['c'] })]), 'unknownDependency'],
      [plan([task('a', { dependsOn: ['a'] })]), 'dependsOnItself'],
      [plan([task('a', { dependsOn: ['b'] }), task('b', { dependsOn: ['a'] })]), 'dependencyCycle'],
    ];
    for (const [value, code] of cases) {
      assert.deepEqual(await editorFields(service, text(value)), [], `the editor accepts ${code}`);
      assert.deepEqual(
        parsePlan(text(value)).problems.map((p) => p.code),
        [code],
      );
    }
    const withProfile = text(plan([task('a', { profile: 'gpt' })]));
    assert.deepEqual(await editorFields(service, withProfile), []);
    assert.deepEqual(
      parsePlan(withProfile, ['demo']).problems.map((p) => p.code),
      ['unknownProfile'],
    );
  });
});
