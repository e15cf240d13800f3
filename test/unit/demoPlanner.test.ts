import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { validatePlan } from '../../src/core/plans/plan';
import { topologicalOrder } from '../../src/core/plans/planGraph';
import { extractPlanJson, planningPrompt } from '../../src/core/plans/planningRequest';
import type { Plan } from '../../src/core/plans/planTypes';
import { demoPlan, planReply, sentences } from '../../src/demoAgent/planner';

// Compiled to out/test/unit/; the bundled agent is dist/demoAgent.js at the repository root.
const demoAgentScript = path.resolve(__dirname, '../../../dist/demoAgent.js');

const description = [
  'Add a users table to the database.',
  'Expose a users API. Add a users page to the web app!',
  '',
  '- Document the users feature',
].join('\n');

interface Reply {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runAgent(prompt: string, cwd: string): Promise<Reply> {
  return new Promise((resolve) => {
    execFile(process.execPath, [demoAgentScript, prompt], { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

function planFrom(stdout: string): Plan {
  const json = extractPlanJson(stdout);
  assert.ok(json, 'the reply holds the plan JSON');
  const result = validatePlan(JSON.parse(json), ['demo']);
  assert.deepEqual(result.problems, []);
  assert.ok(result.plan);
  return result.plan;
}

describe('demo planner', () => {
  describe('the bundled demo agent (real process)', function () {
    this.timeout(20000);
    let dir: string;

    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-planner-'));
    });

    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('answers a planning request with a valid diamond plan and changes no file', async () => {
      const reply = await runAgent(planningPrompt(description, ['demo', 'claude']), dir);
      assert.equal(reply.code, 0, reply.stderr);
      assert.equal(reply.stderr, '');
      assert.deepEqual(fs.readdirSync(dir), [], 'no file is written, not even AGENT_NOTES.md');
      const plan = planFrom(reply.stdout);
      assert.equal(plan.title, 'Add a users table to the database');
      assert.deepEqual(
        plan.tasks.map((t) => [t.id, t.title, t.dependsOn]),
        [
          ['t1-add-a-users', 'Add a users table to the database', []],
          ['t2-expose-a-users', 'Expose a users API', ['t1-add-a-users']],
          ['t3-add-a-users', 'Add a users page to the web app', ['t1-add-a-users']],
          [
            't4-document-the-users',
            'Document the users feature',
            ['t1-add-a-users', 't2-expose-a-users', 't3-add-a-users'],
          ],
        ],
      );
      assert.deepEqual(
        plan.tasks.map((t) => t.prompt),
        [
          'create plan/t1-add-a-users.txt: Add a users table to the database\\n',
          'create plan/t2-expose-a-users.txt: Expose a users API\\n',
          'create plan/t3-add-a-users.txt: Add a users page to the web app\\n',
          'create plan/t4-document-the-users.txt: Document the users feature\\n',
        ],
      );
      assert.ok(plan.tasks.every((t) => t.profile === 'demo'));
      assert.deepEqual(
        topologicalOrder(plan).map((t) => t.id),
        plan.tasks.map((t) => t.id),
      );
    });

    it('is deterministic: two runs print the same reply', async () => {
      const prompt = planningPrompt(description, ['demo']);
      const [first, second] = await Promise.all([runAgent(prompt, dir), runAgent(prompt, dir)]);
      assert.equal(first.stdout, second.stdout);
      assert.ok(first.stdout.startsWith('[demo] plan request: 4 task(s), no file changed\n'));
    });

    it('a task prompt from the plan runs on the demo agent and creates its file', async () => {
      const plan = planFrom((await runAgent(planningPrompt(description, ['demo']), dir)).stdout);
      const reply = await runAgent(plan.tasks[1].prompt, dir);
      assert.equal(reply.code, 0, reply.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'plan', 't2-expose-a-users.txt'), 'utf8'), 'Expose a users API\n');
    });

    it('an ordinary prompt that mentions the marker in passing is not a planning request', async () => {
      const reply = await runAgent('create a.txt: [parallel-agents:plan-request]', dir);
      assert.equal(reply.code, 0, reply.stderr);
      assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), '[parallel-agents:plan-request]');
    });
  });

  describe('planning rules', () => {
    it('one task per sentence or line, bullets and final punctuation dropped, long ones shortened', () => {
      assert.deepEqual(sentences('1. First one. Second?\n\n* third\n  fourth line  '), [
        'First one',
        'Second',
        'third',
        'fourth line',
      ]);
      assert.deepEqual(sentences(`${'x'.repeat(70)}.`), [`${'x'.repeat(57)}...`]);
    });

    it('shapes: one task, a pair, a diamond; at most 8 tasks', () => {
      const deps = (text: string) => demoPlan(text, []).tasks.map((t) => t.dependsOn);
      assert.deepEqual(deps('Only one'), [[]]);
      assert.deepEqual(deps('One. Two'), [[], ['t1-one']]);
      assert.deepEqual(deps('One. Two. Three'), [[], ['t1-one'], ['t1-one', 't2-two']]);
      const many = demoPlan(Array.from({ length: 12 }, (_, i) => `Step ${i + 1}`).join('\n'), []);
      assert.equal(many.tasks.length, 8);
      assert.deepEqual(
        many.tasks[7].dependsOn,
        many.tasks.slice(0, 7).map((t) => t.id),
      );
      assert.ok(many.tasks.slice(1, 7).every((t) => t.dependsOn?.join() === 't1-step-1'));
    });

    it('an empty description or one without ASCII words still gives a valid plan', () => {
      const empty = demoPlan('', ['demo']);
      assert.deepEqual(
        empty.tasks.map((t) => t.id),
        ['t1-untitled-change'],
      );
      const plain = demoPlan('Café crème. 日本語', []);
      assert.deepEqual(
        plain.tasks.map((t) => t.id),
        ['t1-cafe-creme', 't2'],
      );
      assert.equal(plain.tasks[0].profile, undefined, 'no profile unless the request offers "demo"');
      for (const plan of [empty, plain]) {
        assert.deepEqual(validatePlan(JSON.parse(JSON.stringify(plan)), ['demo']).problems, []);
      }
    });

    it('a backslash in a title stays literal in the created file', () => {
      assert.equal(
        demoPlan('Escape a\\n here', []).tasks[0].prompt,
        'create plan/t1-escape-a-n.txt: Escape a\\\\n here\\n',
      );
    });

    it('planReply answers only planning requests', () => {
      assert.equal(planReply('create a.txt: hi'), undefined);
      assert.ok(planReply(planningPrompt('x', []))?.includes('```json\n{'));
    });
  });
});
