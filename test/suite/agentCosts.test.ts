// What each agent costs, in a real VS Code: a running demo agent's row shows its CPU and memory
// while the Agents view is visible, and not once the view is hidden (the sampler stops and drops
// its figures); Show Worktrees Summary is registered and counts the agent's worktree; its Clean Up
// Largest removes a merged agent's worktree folder, which then leaves the summary.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
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

  it("Clean Up Largest removes a merged agent's worktree folder, and it leaves the summary", async () => {
    const id = (await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create cleanup-largest.txt: x',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Clean me up',
    }))!;
    await waitFor('the agent to finish', () => agent(id).status === 'succeeded', 60000);
    const merged = await vscode.commands.executeCommand<{ kind: string }>('parallelAgents.merge', {
      id,
      confirm: false,
      commit: true,
    });
    assert.equal(merged.kind, 'merged');
    const dir = agent(id).worktreePath!;
    assert.ok(fs.existsSync(dir), 'a merged agent keeps its worktree until cleaned up');
    const summary = () =>
      vscode.commands.executeCommand<WorktreeSummary>('parallelAgents.showWorktreesSummary', { quiet: true });
    const before = (await summary())!;
    assert.ok(
      before.reclaimable.some((w) => w.record.id === id),
      'the merged worktree is reclaimable',
    );

    type Window = { showInformationMessage: unknown; showQuickPick: unknown };
    const original = {
      showInformationMessage: vscode.window.showInformationMessage,
      showQuickPick: vscode.window.showQuickPick,
    };
    const messages: string[] = [];
    const offered: string[] = [];
    // The user clicks Clean Up Largest… and keeps only this agent's worktree checked.
    (vscode.window as Window).showInformationMessage = async (message: string, ...items: string[]) => {
      messages.push(message);
      return items.find((i) => i === 'Clean Up Largest…');
    };
    (vscode.window as Window).showQuickPick = async (items: readonly (vscode.QuickPickItem & { id: string })[]) => {
      offered.push(...items.map((i) => i.label));
      return items.filter((i) => i.id === id);
    };
    try {
      await vscode.commands.executeCommand('parallelAgents.showWorktreesSummary');
      await waitFor('the removal to be reported', () => messages.some((m) => /^Removed 1 worktrees/.test(m)));
    } finally {
      Object.assign(vscode.window as Window, original);
    }
    assert.match(messages[0], /worktrees, .*; reclaimable: \d+ /);
    assert.ok(offered.includes('Clean me up'), offered.join());
    assert.equal(fs.existsSync(dir), false, 'its worktree folder is gone');
    assert.equal(agent(id).worktreePresent, false);
    assert.equal(agent(id).status, 'merged', 'the agent stays listed');
    const after = (await summary())!;
    assert.ok(!after.reclaimable.some((w) => w.record.id === id), 'no longer reclaimable');
    assert.equal(after.count, before.count - 1, 'one worktree fewer');
  });
});
