// Plans in a real VS Code: demo agents run as a graph, dependent tasks see their prerequisites'
// work, everything ends on the integration branch; validation, Plan with Agent and the timeline.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { TimelineFigures } from '../../src/core/timeline/timeline';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir as workspace } from './helpers';

describe('Plans in a real VS Code', function () {
  this.timeout(120000);
  let api: ParallelAgentsApi;
  const tasksOf = (runId: string): AgentRecord[] => api.agents().filter((a) => a.plan?.runId === runId);

  before(async () => {
    api = await activateApi();
  });

  it('runs a 5-task diamond: dependents see their prerequisites, the integration branch ends with all changes, and the plan lands', async () => {
    const plan = {
      title: 'Users feature',
      // What its agents spent of it shows on the plan's row (the demo agent reports no cost: $0.00).
      budgetUsd: 5,
      tasks: [
        { id: 'db', title: 'Schema', prompt: 'create db.txt: schema' },
        // `replace X => X` fails (exit 1) unless the prerequisite's file is in the worktree.
        { id: 'api', title: 'API', prompt: 'replace db.txt: schema => schema\ncreate api.txt: api', dependsOn: ['db'] },
        { id: 'ui', title: 'UI', prompt: 'replace db.txt: schema => schema\ncreate ui.txt: ui', dependsOn: ['db'] },
        {
          id: 'e2e',
          title: 'Integration',
          prompt: 'replace api.txt: api => api\nreplace ui.txt: ui => ui\ncreate integration.txt: all',
          dependsOn: ['api', 'ui'],
        },
        // In an integrated terminal, yet in its own worktree: its work is merged like the others'.
        { id: 'docs', title: 'Docs', prompt: 'create docs.txt: docs', isolation: 'terminal' },
      ],
    };
    const runId = await vscode.commands.executeCommand<string>('parallelAgents.dispatchPlan', { plan });
    assert.ok(runId, 'Dispatch Plan returns the run id');
    const row = await waitFor('the plan in the Agents view', () =>
      api.viewSnapshot().find((r) => r.label === 'Users feature'),
    );
    assert.deepEqual(
      row.children.map((c) => c.label),
      ['Schema', 'API', 'UI', 'Integration', 'Docs'],
      'tasks in topological order',
    );
    assert.match(row.children.find((c) => c.label === 'Integration')!.description, /needs: api, ui/);
    await waitFor(
      'all five tasks merged into the integration branch',
      () => tasksOf(runId).length === 5 && tasksOf(runId).every((a) => a.status === 'merged'),
      90000,
    );
    const byTask = new Map(tasksOf(runId).map((a) => [a.plan!.taskId, a]));
    assert.equal(byTask.get('db')!.baseSha, git('rev-parse', 'main'), 'a root task starts from the base');
    assert.ok(
      fs.existsSync(path.join(byTask.get('e2e')!.worktreePath!, 'api.txt')),
      'the dependent task saw its prerequisites',
    );
    const docs = byTask.get('docs')!;
    assert.equal(docs.mode, 'terminal', 'isolation "terminal": the agent ran in an integrated terminal');
    assert.ok(docs.worktreePath && docs.branch, 'in its own worktree and branch');
    assert.equal(byTask.get('db')!.mode, 'headless');
    const integration = api.viewSnapshot().find((r) => r.label === 'Users feature')!;
    assert.match(integration.description, /5\/5 done · finished · \$0\.00 of \$5\.00/);
    const branch = git('branch', '--list', 'agents/plan-users-feature').replace(/^[*+ ]+/, '');
    assert.equal(branch, 'agents/plan-users-feature');
    const files = git('ls-tree', '-r', '--name-only', branch).split('\n');
    for (const file of ['db.txt', 'api.txt', 'ui.txt', 'integration.txt', 'docs.txt']) {
      assert.ok(files.includes(file), `${file} is on the integration branch`);
    }
    const landed = await vscode.commands.executeCommand<{ kind: string }>('parallelAgents.landPlan', {
      runId,
      confirm: false,
    });
    assert.equal(landed.kind, 'merged');
    assert.equal(git('show', 'HEAD:integration.txt'), 'all');
    // Remove Plan: the landed plan's row, worktree and branch go; its agents stay.
    const worktree = git('worktree', 'list', '--porcelain')
      .split('\n')
      .find((l) => /^worktree .*plan-users-feature$/.test(l))
      ?.slice('worktree '.length);
    assert.ok(worktree && fs.existsSync(worktree), 'the integration worktree is there before');
    const removed = await vscode.commands.executeCommand<{ branchKept: boolean }>('parallelAgents.removePlan', {
      runId,
      confirm: false,
    });
    assert.deepEqual(removed, { branchKept: false });
    await waitFor('the plan row to go', () => !api.viewSnapshot().some((r) => r.label === 'Users feature'));
    assert.equal(fs.existsSync(worktree), false, 'the integration worktree is removed');
    assert.equal(git('branch', '--list', 'agents/plan-users-feature'), '', 'the landed branch is deleted');
    assert.equal(tasksOf(runId).length, 5, 'the agents stay');
  });

  it('pauses on a conflict while integrating, names it, and goes on when the task is skipped', async () => {
    const plan = {
      title: 'Colliding tasks',
      maxParallel: 1,
      tasks: [
        { id: 'left', title: 'Left', prompt: 'create same.txt: left' },
        { id: 'right', title: 'Right', prompt: 'create same.txt: right' },
        { id: 'after', title: 'After', prompt: 'create after.txt: after', dependsOn: ['right'] },
      ],
    };
    const runId = await vscode.commands.executeCommand<string>('parallelAgents.dispatchPlan', { plan });
    const row = await waitFor(
      'the conflicting task',
      () => {
        const r = api.viewSnapshot().find((x) => x.label === 'Colliding tasks');
        return r?.children.find((c) => c.label === 'Right' && c.description.includes('conflicted')) && r;
      },
      60000,
    );
    assert.match(row.description, /paused/);
    assert.match(row.children.find((c) => c.label === 'Right')!.description, /conflicts while integrating/);
    assert.match(row.children.find((c) => c.label === 'After')!.description, /waiting/);
    await vscode.commands.executeCommand('parallelAgents.skipTask', { runId, taskId: 'right' });
    await waitFor(
      'the dependent task to run after the skip',
      () => tasksOf(runId).find((a) => a.plan?.taskId === 'after')?.status === 'merged',
      30000,
    );
    const files = git('ls-tree', '-r', '--name-only', 'agents/plan-colliding-tasks').split('\n');
    assert.ok(files.includes('after.txt'));
    assert.equal(git('show', 'agents/plan-colliding-tasks:same.txt'), 'left');
  });

  it('a bestOf 2 task waits for a pick in the view, its candidates under it; Pick Candidate merges one and the plan goes on', async () => {
    const plan = {
      title: 'Two tries',
      tasks: [
        { id: 'try', title: 'Try', prompt: 'create tried.txt: tried', bestOf: 2 },
        {
          id: 'next',
          title: 'Next',
          prompt: 'replace tried.txt: tried => tried\ncreate next.txt: next',
          dependsOn: ['try'],
        },
      ],
    };
    const runId = await vscode.commands.executeCommand<string>('parallelAgents.dispatchPlan', { plan });
    const row = await waitFor(
      'the task waiting for a pick',
      () => {
        const r = api.viewSnapshot().find((x) => x.label === 'Two tries');
        return r?.children.find((c) => c.label === 'Try' && c.description.includes('waiting for a pick')) && r;
      },
      90000,
    );
    const task = row.children.find((c) => c.label === 'Try')!;
    assert.match(task.description, /best of 2/);
    assert.deepEqual(
      task.children.map((c) => c.label),
      ['Try (1/2)', 'Try (2/2)'],
      'the candidates are listed under their task',
    );
    assert.match(row.children.find((c) => c.label === 'Next')!.description, /waiting/);
    assert.equal(tasksOf(runId).filter((a) => a.plan?.taskId === 'next').length, 0, 'no agent for the dependent yet');
    const [other, picked] = tasksOf(runId).filter((a) => a.plan?.taskId === 'try');
    await vscode.commands.executeCommand('parallelAgents.pickCandidate', { id: picked.id, confirm: false });
    await waitFor(
      'the dependent merged after the pick',
      () => tasksOf(runId).find((a) => a.plan?.taskId === 'next')?.status === 'merged',
      60000,
    );
    assert.equal(api.agents().find((a) => a.id === picked.id)?.status, 'merged');
    await waitFor(
      'the other candidate discarded',
      () => api.agents().find((a) => a.id === other.id)?.status === 'discarded',
    );
    const files = git('ls-tree', '-r', '--name-only', 'agents/plan-two-tries').split('\n');
    assert.ok(files.includes('tried.txt') && files.includes('next.txt'), files.join(', '));
  });

  it('reports validation errors with task ids on the plan file and runs nothing', async () => {
    const file = path.join(workspace(), 'broken.agents.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        {
          title: 'Broken',
          tasks: [
            { id: 'a', title: 'A', prompt: 'x', dependsOn: ['c'] },
            { id: 'b', title: 'B', prompt: '', dependsOn: ['a'] },
            { id: 'c', title: 'C', prompt: 'x', dependsOn: ['b'], profile: 'nope' },
            { id: 'a', title: 'A again', prompt: 'x' },
          ],
        },
        null,
        2,
      ),
    );
    const before = api.agents().length;
    const uri = vscode.Uri.file(file);
    assert.equal(await vscode.commands.executeCommand('parallelAgents.dispatchPlan', uri), undefined);
    const messages = vscode.languages
      .getDiagnostics(uri)
      .map((d) => d.message)
      .join('\n');
    assert.match(messages, /task "a".*cycle: a → c → b → a/);
    assert.match(messages, /task "b".*prompt/);
    assert.match(messages, /task "c".*unknown profile "nope"/);
    assert.match(messages, /duplicate|twice|"a"/);
    assert.equal(api.agents().length, before);
    assert.equal(git('branch', '--list', 'agents/plan-broken*'), '');
    fs.rmSync(file);
  });

  it('plans with the demo agent: a valid plan file to edit, nothing dispatched', async () => {
    const before = api.agents().length;
    const file = await vscode.commands.executeCommand<string>('parallelAgents.planWithAgent', {
      description: 'Add a users table.\nExpose a users API.\nShow users in the UI.\nWire it all together.',
      profile: 'demo',
    });
    assert.ok(file && fs.existsSync(file), 'the plan file is written');
    assert.match(file, /\.vscode\/agents\/.+\.json$/);
    const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as { tasks: { id: string; dependsOn?: string[] }[] };
    assert.equal(plan.tasks.length, 4);
    assert.ok(plan.tasks[3].dependsOn && plan.tasks[3].dependsOn.length >= 2, 'the last task depends on the others');
    assert.equal(api.agents().length, before, 'the planning agent is not left in the list, and nothing was dispatched');
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, file, 'the plan is open for editing');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(path.dirname(file), { recursive: true });
  });

  it('runs 4 independent sleep 5 tasks at once at maxParallel 4, and the timeline shows it', async () => {
    const plan = {
      title: 'Sleepers',
      maxParallel: 4,
      tasks: [1, 2, 3, 4].map((n) => ({ id: `s${n}`, title: `Sleep ${n}`, prompt: 'sleep 5' })),
    };
    const runId = await vscode.commands.executeCommand<string>('parallelAgents.dispatchPlan', { plan });
    await waitFor(
      '4 sleepers done',
      () => tasksOf(runId).length === 4 && tasksOf(runId).every((a) => a.status === 'merged'),
      60000,
    );
    const figures = await vscode.commands.executeCommand<TimelineFigures>('parallelAgents.showTimeline', { runId });
    // How much faster it was is a timing, measured by `npm run bench`; here: all four ran at once.
    assert.equal(figures.peakConcurrency, 4, `peak concurrency ${figures.peakConcurrency}`);
    assert.equal(figures.speedup, figures.sumMs / figures.wallMs);
    assert.ok(figures.sumMs >= 4 * 5000, `agent time ${figures.sumMs}`);
    const panel = await waitFor(
      'the timeline panel',
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.label === 'Agents Timeline',
    );
    assert.ok(panel);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
