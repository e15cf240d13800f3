// What each agent costs, in a real VS Code: a running demo agent's row shows its CPU and memory
// while the Agents view is visible, and not once the view is hidden (the sampler stops and drops
// its figures); Show Worktrees Summary is registered and counts the agent's worktree.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { WorktreeSummary } from '../../src/core/usage';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, waitFor } from './helpers';

const figures = /· \d+% · \d+(\.\d)? (MB|KB)\b/;

describe('What each agent costs, in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;
  const row = (title: string) => api.viewSnapshot().find((r) => r.label === title);

  before(async () => {
    api = await activateApi();
  });

  it("shows a running agent's CPU and memory on its row while the view is visible, none once hidden", async function () {
    if (process.platform !== 'linux') {
      this.skip(); // the README says: Linux only
    }
    await vscode.commands.executeCommand('parallelAgents.focus');
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'sleep 40\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Costs shown',
    });
    try {
      const shown = await waitFor(
        'CPU and memory on the row',
        () => (figures.test(row('Costs shown')?.description ?? '') ? row('Costs shown') : undefined),
        30000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; the row: ${row('Costs shown')?.description}; status ${agent(id).status}`);
      });
      assert.equal(agent(id).status, 'running');
      assert.match(shown!.description, /running/);

      await vscode.commands.executeCommand('workbench.view.explorer');
      await waitFor('the figures to go with the view', () => !figures.test(row('Costs shown')?.description ?? ''));

      const summary = (await vscode.commands.executeCommand<WorktreeSummary>('parallelAgents.showWorktreesSummary', {
        quiet: true,
      }))!;
      assert.ok(summary.count >= 1, `worktrees: ${summary.count}`);
      assert.ok(summary.totalBytes > 0);
      assert.ok(!summary.reclaimable.some((w) => w.record.id === id), 'a running agent is not reclaimable');
    } finally {
      await vscode.commands.executeCommand('parallelAgents.stop', id);
      await waitFor('the agent to stop', () => agent(id).status === 'stopped');
    }
  });
});
