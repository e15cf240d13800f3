import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import {
  agentBudget,
  agentCost,
  agentOverBudget,
  budgetArgs,
  budgetEnd,
  checkBudget,
  checkBudgetLeft,
  planOverBudget,
  runBudgetLeft,
} from '../../src/core/agents/budgets';
import { AgentError } from '../../src/core/errors';
import { AgentEventParser } from '../../src/core/clis/agentEvents';
import { activityOf } from '../../src/core/clis/agentProgress';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { usd } from '../../src/ui/errorTexts/budgetTexts';

const agent = (id: string, patch: Partial<AgentRecord> = {}): AgentRecord =>
  ({ id, title: id, status: 'running', changedFiles: [], ...patch }) as AgentRecord;

function refused(fn: () => unknown, code: string, data: Record<string, unknown>): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(AgentError.isCode(e as Error, code as never), String(e));
    assert.deepEqual((e as AgentError).data, data);
    return true;
  });
}

describe('budgets (core/agents/budgets.ts)', () => {
  it('a budget is a finite number above 0; absent or null is none; anything else names where it was set', () => {
    assert.equal(checkBudget(2.5, { kind: 'dispatch' }), 2.5);
    assert.equal(checkBudget(undefined, { kind: 'setting' }), undefined);
    assert.equal(checkBudget(null, { kind: 'setting' }), undefined);
    const where = 'parallelAgents.profiles "claude" budgetUsd';
    for (const [value, shown] of [
      [0, '0'],
      [-1, '-1'],
      ['5', '"5"'],
      [Number.NaN, 'null'],
      [Number.POSITIVE_INFINITY, 'null'],
      [true, 'true'],
      [{}, '{}'],
    ] as const) {
      refused(() => checkBudget(value, { kind: 'profile', profile: 'claude' }), 'invalidBudget', {
        where,
        value: shown,
      });
    }
    refused(() => checkBudget(0, { kind: 'setting' }), 'invalidBudget', {
      where: 'parallelAgents.defaultBudgetUsd',
      value: '0',
    });
    refused(() => checkBudget(-2, { kind: 'dispatch' }), 'invalidBudget', { where: 'budgetUsd', value: '-2' });
  });

  it('the most specific level applies (dispatch, profile, setting), and every level set is checked', () => {
    const profile = { name: 'p', budgetUsd: 3 };
    assert.equal(agentBudget(1, profile, 5), 1);
    assert.equal(agentBudget(undefined, profile, 5), 3);
    assert.equal(agentBudget(undefined, { name: 'q' }, 5), 5);
    assert.equal(agentBudget(undefined, { name: 'q' }, null), undefined);
    // A bad setting is refused even when the profile has its own budget: it would silently apply elsewhere.
    refused(() => agentBudget(undefined, profile, 0), 'invalidBudget', {
      where: 'parallelAgents.defaultBudgetUsd',
      value: '0',
    });
    refused(() => agentBudget(1, { name: 'q', budgetUsd: 'x' }, 5), 'invalidBudget', {
      where: 'parallelAgents.profiles "q" budgetUsd',
      value: '"x"',
    });
  });

  it('an agent spends over its runs: earlier runs (spentUsd) plus the current one (activity)', () => {
    assert.equal(agentCost(agent('a')), 0);
    assert.equal(agentCost(agent('a', { spentUsd: 0.25, activity: { costUsd: 0.5 } })), 0.75);
    assert.equal(agentOverBudget(agent('a', { activity: { costUsd: 0.5 } })), undefined, 'no budget: never over');
    assert.equal(agentOverBudget(agent('a', { budgetUsd: 1, activity: { costUsd: 0.99 } })), undefined);
    assert.deepEqual(agentOverBudget(agent('a', { budgetUsd: 1, spentUsd: 0.5, activity: { costUsd: 0.5 } })), {
      budgetUsd: 1,
      costUsd: 1,
    });
  });

  it("a plan's budget caps its agents together; other plans' agents do not count", () => {
    const plan = { runId: 'r1', taskId: 'x', budgetUsd: 1 };
    const records = [
      agent('a', { plan: { ...plan, taskId: 'a' }, activity: { costUsd: 0.4 } }),
      agent('b', { plan: { ...plan, taskId: 'b' }, spentUsd: 0.2, activity: { costUsd: 0.3 } }),
      agent('c', { plan: { runId: 'r2', taskId: 'c', budgetUsd: 1 }, activity: { costUsd: 5 } }),
      agent('d', { activity: { costUsd: 5 } }),
    ];
    assert.equal(planOverBudget(records, { plan }), undefined, '0.9 of 1');
    assert.equal(planOverBudget(records, {}), undefined, 'not a plan task');
    const more = [...records, agent('e', { plan: { ...plan, taskId: 'e' }, activity: { costUsd: 0.1 } })];
    const over = planOverBudget(more, { plan });
    assert.equal(over?.plan, true);
    assert.equal(over?.budgetUsd, 1);
    assert.ok(Math.abs(over!.costUsd - 1) < 1e-9);
    refused(() => checkBudgetLeft('Docs', over), 'planOverBudget', {
      title: 'Docs',
      budgetUsd: 1,
      costUsd: over!.costUsd,
    });
    refused(() => checkBudgetLeft('Fix', { budgetUsd: 2, costUsd: 2.5 }), 'agentOverBudget', {
      title: 'Fix',
      budgetUsd: 2,
      costUsd: 2.5,
    });
    checkBudgetLeft('Fine', undefined);
    // What is left for a run: the smaller of its own and its plan's.
    const b = more[1];
    assert.ok(Math.abs(runBudgetLeft(records, { ...b, budgetUsd: 0.6 })! - 0.1) < 1e-9, 'own 0.6 - 0.5');
    assert.ok(Math.abs(runBudgetLeft(records, { ...b, budgetUsd: 5 })! - 0.1) < 1e-9, 'plan 1 - 0.9');
    assert.equal(runBudgetLeft(records, records[3]), undefined);
  });

  it('Claude Code in print mode gets --max-budget-usd (argv elements); its terminal preset and other CLIs do not', () => {
    const claude = builtinProfiles.find((p) => p.name === 'claude')!;
    assert.deepEqual(budgetArgs(claude.command, claude.args, 2.5), ['--max-budget-usd', '2.5']);
    assert.deepEqual(budgetArgs(claude.command, claude.continueArgs!, 0.1 + 0.2), ['--max-budget-usd', '0.3']);
    assert.deepEqual(budgetArgs('/opt/bin/claude', ['--print', '--', '${prompt}'], 1), ['--max-budget-usd', '1']);
    assert.deepEqual(budgetArgs(claude.command, claude.args, undefined), []);
    assert.deepEqual(budgetArgs(claude.command, claude.args, 0), []);
    const terminal = builtinProfiles.find((p) => p.name === 'claude-terminal')!;
    assert.deepEqual(budgetArgs(terminal.command, terminal.args, 2), [], 'interactive claude ignores the flag');
    for (const name of ['codex', 'gemini', 'opencode', 'copilot', 'demo']) {
      const p = builtinProfiles.find((q) => q.name === name)!;
      assert.deepEqual(budgetArgs(p.command, p.args, 2), [], name);
    }
  });

  it("claude's result at its max budget (error_max_budget_usd) ends the agent stopped as over budget, not failed", () => {
    const parser = new AgentEventParser('claude-stream-json', '/wt');
    parser.push(
      `${JSON.stringify({ type: 'system', subtype: 'init' })}\n` +
        `${JSON.stringify({
          type: 'result',
          subtype: 'error_max_budget_usd',
          is_error: true,
          num_turns: 4,
          total_cost_usd: 0.52,
          usage: { input_tokens: 10, output_tokens: 5 },
        })}\n`,
    );
    parser.end();
    const activity = activityOf(parser.state);
    assert.equal(activity.budgetReached, true);
    assert.equal(activity.costUsd, 0.52);
    const record = agent('a', { budgetUsd: 0.5, activity });
    assert.deepEqual(budgetEnd(record, { activity }), {
      status: 'stopped',
      overBudget: { budgetUsd: 0.5, costUsd: 0.52 },
      error: undefined,
      quota: undefined,
    });
    const planned = agent('p', { plan: { runId: 'r', taskId: 'p', budgetUsd: 0.5 }, activity });
    assert.deepEqual(budgetEnd(planned, { activity })?.overBudget, { budgetUsd: 0.5, costUsd: 0.52, plan: true });
    // A success, or any other failure, is left as it ended.
    assert.equal(budgetEnd(record, { activity: { costUsd: 0.52, reportedError: true } }), undefined);
    assert.equal(budgetEnd(record, {}), undefined);
  });

  it('dollars are written with cents, and with up to 4 decimals under a dollar', () => {
    assert.equal(usd(2), '$2.00');
    assert.equal(usd(12.345), '$12.35');
    assert.equal(usd(0.5), '$0.50');
    assert.equal(usd(0.0123), '$0.0123');
    assert.equal(usd(0.123), '$0.123');
    assert.equal(usd(0), '$0.00');
  });
});
