// Budgets with real git and real agent processes under the supervisor: the demo agent reports its
// cost (a `print` of a JSON line in the CLI's own format) and is stopped as over budget, its work
// kept; Claude's own budget end (its result `error_max_budget_usd`) shows the same; a claude preset
// is given --max-budget-usd (seen by a real process standing in for claude); a plan's budget stops
// all its agents and refuses new ones; a budget of 0 starts nothing and leaves nothing behind.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { type Profile, builtinProfiles } from '../../src/core/clis/profiles';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture, git } from './managerFixture';

const ownCost = (costUsd: number) => `print ${JSON.stringify({ type: 'result', costUsd })}`;
const demo = (name: string, extra: Partial<Profile> = {}): Profile => ({
  name,
  command: '${demoAgent}',
  args: ['${prompt}'],
  mode: 'headless',
  output: 'parallel-agents-json',
  ...extra,
});

describe('budgets with real git and real agents', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let profiles: Profile[];
  let defaultBudgetUsd: unknown;

  beforeEach(() => {
    fx = new ManagerFixture();
    profiles = [demo('demo'), demo('capped', { budgetUsd: 0.5 })];
    defaultBudgetUsd = undefined;
  });

  afterEach(() => fx.dispose());

  const makeManager = () =>
    fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), defaultBudgetUsd }),
      profiles: () => profiles,
    });

  const branches = () => git(fx.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/agents/');
  const worktrees = () =>
    git(fx.repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '));

  it("an agent whose reported cost reaches its profile's budget is stopped as over budget, its work kept", async () => {
    const manager = makeManager();
    const prompt = ['create done.txt: before', ownCost(0.2), ownCost(0.7), 'sleep 60', 'create late.txt: never'].join(
      '\n',
    );
    const started = await manager.dispatch({ prompt, profile: 'capped', folder: fx.repo, title: 'Costly' });
    assert.equal(started.budgetUsd, 0.5);
    const t0 = Date.now();
    const done = await fx.finished(manager, started.id);
    assert.ok(Date.now() - t0 < 30_000, 'stopped long before its sleep ended');
    assert.equal(done.status, 'stopped');
    assert.deepEqual(done.overBudget, { budgetUsd: 0.5, costUsd: 0.7 });
    assert.equal(done.activity?.costUsd, 0.7);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'done.txt'), 'utf8'), 'before', 'its work is kept');
    assert.ok(!fs.existsSync(path.join(done.cwd, 'late.txt')));
    assert.notEqual(done.worktreePresent, false);
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['done.txt'],
    );
    // It has spent its budget: a follow-up is refused and changes nothing.
    await assert.rejects(manager.followUp(done.id, 'create more.txt: more'), (e: unknown) =>
      AgentError.isCode(e as Error, 'agentOverBudget'),
    );
    assert.equal(manager.get(done.id).status, 'stopped');
  });

  it('a dispatch budget takes the place of the profile one; under it the agent succeeds', async () => {
    const manager = makeManager();
    const prompt = ['create a.txt: a', ownCost(0.7)].join('\n');
    const started = await manager.dispatch({ prompt, profile: 'capped', folder: fx.repo, budgetUsd: 2 });
    const done = await fx.finished(manager, started.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(done.budgetUsd, 2);
    assert.equal(done.overBudget, undefined);
    // A follow-up's cost adds to what the first run spent: 0.7 + 1.5 reaches 2.
    await manager.followUp(done.id, [ownCost(1.5), 'sleep 60'].join('\n'));
    const second = await fx.finished(manager, done.id);
    assert.equal(second.status, 'stopped');
    assert.equal(second.spentUsd, 0.7);
    assert.deepEqual(second.overBudget, { budgetUsd: 2, costUsd: 2.2 });
  });

  it("Claude's own budget end (result error_max_budget_usd) shows as over budget, not failed", async () => {
    profiles.push(demo('claude-like', { output: 'claude-stream-json', budgetUsd: 0.25 }));
    const manager = makeManager();
    const init = JSON.stringify({ type: 'system', subtype: 'init' });
    const result = JSON.stringify({
      type: 'result',
      subtype: 'error_max_budget_usd',
      is_error: true,
      num_turns: 3,
      total_cost_usd: 0.26,
      usage: { input_tokens: 100, output_tokens: 20 },
    });
    const prompt = ['create part.txt: partial', `print ${init}`, `print ${result}`, 'exit 1'].join('\n');
    const started = await manager.dispatch({ prompt, profile: 'claude-like', folder: fx.repo });
    const done = await fx.finished(manager, started.id);
    assert.equal(done.status, 'stopped', done.error);
    assert.equal(done.error, undefined);
    assert.deepEqual(done.overBudget, { budgetUsd: 0.25, costUsd: 0.26 });
    assert.equal(fs.readFileSync(path.join(done.cwd, 'part.txt'), 'utf8'), 'partial');
  });

  it('a claude preset is given --max-budget-usd as argv elements (a real process standing in for claude)', async () => {
    const bin = path.join(fx.tmp, 'bin');
    fs.mkdirSync(bin);
    const argvFile = path.join(fx.tmp, 'argv.json');
    const stub = path.join(bin, 'claude');
    fs.writeFileSync(
      stub,
      `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(argvFile)}, JSON.stringify(process.argv.slice(2)));\n`,
      { mode: 0o755 },
    );
    const claude = builtinProfiles.find((p) => p.name === 'claude')!;
    profiles.push({ ...claude, command: stub, budgetUsd: 1.25 });
    const manager = makeManager();
    const prompt = '-- a task; $(rm -rf /) "quoted"';
    const done = await fx.finished(
      manager,
      (await manager.dispatch({ prompt, profile: 'claude', folder: fx.repo })).id,
    );
    assert.equal(done.status, 'succeeded', done.error);
    const argv = JSON.parse(fs.readFileSync(argvFile, 'utf8')) as string[];
    assert.deepEqual(argv, ['--max-budget-usd', '1.25', ...claude.args.slice(0, -1), prompt]);
  });

  it("a plan's budget: its agents together reach it → all are stopped as over plan budget, a new task is refused", async () => {
    const manager = makeManager();
    const plan = (taskId: string) => ({ runId: 'run1', taskId, budgetUsd: 1 });
    const a = await manager.dispatch({
      prompt: ['create a.txt: a', ownCost(0.6), 'sleep 60'].join('\n'),
      profile: 'demo',
      folder: fx.repo,
      plan: plan('a'),
    });
    await waitFor('a to report its cost', () => manager.get(a.id).activity?.costUsd === 0.6);
    assert.equal(manager.get(a.id).status, 'running', 'under the plan budget it runs on');
    const b = await manager.dispatch({
      prompt: ['create b.txt: b', 'sleep 0.5', ownCost(0.5), 'sleep 60'].join('\n'),
      profile: 'demo',
      folder: fx.repo,
      plan: plan('b'),
    });
    const [doneA, doneB] = [await fx.finished(manager, a.id), await fx.finished(manager, b.id)];
    for (const done of [doneA, doneB]) {
      assert.equal(done.status, 'stopped');
      assert.equal(done.overBudget?.plan, true);
      assert.equal(done.overBudget?.budgetUsd, 1);
      assert.ok(Math.abs(done.overBudget!.costUsd - 1.1) < 1e-9, String(done.overBudget?.costUsd));
    }
    assert.ok(fs.existsSync(path.join(doneA.cwd, 'a.txt')) && fs.existsSync(path.join(doneB.cwd, 'b.txt')));
    const before = { branches: branches(), worktrees: worktrees(), agents: manager.list().length };
    await assert.rejects(
      manager.dispatch({ prompt: 'create c.txt: c', profile: 'demo', folder: fx.repo, plan: plan('c') }),
      (e: unknown) => AgentError.isCode(e as Error, 'planOverBudget'),
    );
    assert.deepEqual({ branches: branches(), worktrees: worktrees(), agents: manager.list().length }, before);
  });

  it('a budget of 0 (profile, setting, dispatch) or not a number: a clear error, nothing started or left behind', async () => {
    profiles.push(demo('zero', { budgetUsd: 0 }), demo('text', { budgetUsd: '5' }));
    const manager = makeManager();
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => manager.dispatch({ prompt: 'create x.txt: x', profile: 'zero', folder: fx.repo }),
        'parallelAgents.profiles "zero" budgetUsd',
      ],
      [
        () => manager.dispatch({ prompt: 'create x.txt: x', profile: 'text', folder: fx.repo }),
        'parallelAgents.profiles "text" budgetUsd',
      ],
      [
        () => manager.dispatch({ prompt: 'create x.txt: x', profile: 'demo', folder: fx.repo, budgetUsd: -1 }),
        'budgetUsd',
      ],
    ];
    for (const [dispatch, where] of cases) {
      await assert.rejects(dispatch(), (e: unknown) => {
        assert.ok(AgentError.isCode(e as Error, 'invalidBudget'), String(e));
        assert.equal((e as AgentError<'invalidBudget'>).data.where, where);
        return true;
      });
    }
    defaultBudgetUsd = 0;
    await assert.rejects(
      manager.dispatch({ prompt: 'create x.txt: x', profile: 'demo', folder: fx.repo }),
      (e: unknown) => AgentError.isCode(e, 'invalidBudget') && e.data.where === 'parallelAgents.defaultBudgetUsd',
    );
    assert.deepEqual(manager.list(), [], 'no record');
    assert.equal(branches(), '', 'no branch');
    assert.equal(worktrees().length, 1, 'only the main worktree');
    assert.ok(!fs.existsSync(`${fx.repo}.worktrees`), 'no worktree folder');
    assert.ok(!fs.existsSync(path.join(fx.repo, 'x.txt')));
  });
});
