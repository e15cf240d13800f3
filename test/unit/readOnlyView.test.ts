// The Agents view in Restricted Mode (ui/agentsView/readOnlyModel.ts): what it lists from a
// registry's contents, and that none of its rows can carry a menu of package.json's item menus.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanRunRecord } from '../../src/core/plans';
import type { RegistryContents } from '../../src/node/registry/registryReader';
import { type ReadOnlyRow, readOnlyChildren, readOnlyRoots } from '../../src/ui/agentsView/readOnlyModel';
import { repoRoot } from '../harness/paths';
import { agentRecord } from './agentRecords';

const plan = (id: string): PlanRunRecord =>
  ({
    id,
    repoRoot: '/r/repo',
    plan: {
      title: `Plan ${id}`,
      tasks: [
        { id: 'a', title: 'Task A', prompt: 'a' },
        { id: 'b', title: '', prompt: 'b', dependsOn: ['a'] },
      ],
    },
    scheduler: { started: true, stopped: false, tasks: { a: { state: 'done', timings: {} } } },
  }) as unknown as PlanRunRecord;

const contents = (patch: Partial<RegistryContents>): RegistryContents => ({
  registries: ['/r/repo/.git/parallel-agents'],
  agents: [],
  plans: [],
  problems: [],
  ...patch,
});

const describeRow = (row: ReadOnlyRow): string => {
  switch (row.kind) {
    case 'notice':
      return 'notice';
    case 'problems':
      return `problems:${row.files.join(',')}`;
    case 'plan':
      return `plan:${row.run.id}`;
    case 'task':
      return `task:${row.taskId}:${row.title}:${row.state}:${row.agent?.id ?? '-'}`;
    case 'agent':
      return `agent:${row.agent.id}`;
  }
};

describe('Agents view in Restricted Mode (read-only rows)', () => {
  it('lists nothing for an empty registry, so the view shows its Restricted Mode welcome', () => {
    assert.deepEqual(readOnlyRoots(contents({})), []);
  });

  it('puts the notice first, then unreadable files, plans, and the agents that are no task of a listed plan', () => {
    const c = contents({
      agents: [
        agentRecord('x1'),
        agentRecord('t1', { plan: { runId: 'p1', taskId: 'a' } }),
        agentRecord('t2', { plan: { runId: 'gone', taskId: 'a' } }),
      ],
      plans: [plan('p1')],
      problems: [{ file: '/r/repo/.git/parallel-agents/agents/bad.json', reason: 'corrupt', detail: 'x' }],
    });
    const roots = readOnlyRoots(c);
    assert.deepEqual(roots.map(describeRow), [
      'notice',
      'problems:/r/repo/.git/parallel-agents/agents/bad.json',
      'plan:p1',
      'agent:x1',
      'agent:t2',
    ]);
    assert.deepEqual(readOnlyChildren(roots[2], c).map(describeRow), ['task:a:Task A:done:t1', 'task:b:b:waiting:-']);
    for (const row of roots.filter((r) => r.kind !== 'plan')) {
      assert.deepEqual(readOnlyChildren(row, c), []);
    }
  });

  it('shows the notice alone above unreadable files when nothing else could be read', () => {
    const c = contents({ problems: [{ file: '/f.json', reason: 'newerSchema', detail: 'v2' }] });
    assert.deepEqual(readOnlyRoots(c).map(describeRow), ['notice', 'problems:/f.json']);
  });

  it('gives every row a context value that no item menu of package.json matches, so no row offers an action', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
      contributes: { menus: Record<string, { command: string; when?: string }[]> };
    };
    const whens = Object.values(pkg.contributes.menus)
      .flat()
      .map((e) => e.when ?? '')
      .filter((w) => w.includes('viewItem'));
    const patterns = whens.flatMap((w) =>
      [...w.matchAll(/viewItem =~ \/((?:\\\/|[^/])+)\//g)].map((m) => new RegExp(m[1])),
    );
    const names = whens.flatMap((w) => [...w.matchAll(/viewItem == ([\w.-]+)/g)].map((m) => m[1]));
    // Since plan rows gained `.elsewhere` variants every item menu matches by pattern; names stay checked.
    assert.ok(patterns.length > 20, `${patterns.length} patterns, ${names.length} names`);
    const c = contents({
      agents: [agentRecord('x1', { status: 'running' }), agentRecord('t1', { plan: { runId: 'p1', taskId: 'a' } })],
      plans: [plan('p1')],
      problems: [{ file: '/f.json', reason: 'corrupt', detail: '' }],
    });
    const roots = readOnlyRoots(c);
    const rows = [...roots, ...roots.flatMap((r) => readOnlyChildren(r, c))];
    assert.deepEqual([...new Set(rows.map((r) => r.contextValue))].sort(), [
      'readonly.agent',
      'readonly.notice',
      'readonly.plan',
      'readonly.problems',
      'readonly.task',
    ]);
    for (const row of rows) {
      assert.deepEqual(
        patterns.filter((p) => p.test(row.contextValue)).map(String),
        [],
        `${row.contextValue} matches no menu`,
      );
      assert.ok(!names.includes(row.contextValue));
    }
    // The check can fail: the trusted tree's context values do match.
    assert.ok(patterns.some((p) => p.test('agent.running.worktree.headless')));
  });
});
