// Reconcile Agents in a real VS Code: an orphan made by hand with git is found, shown and adopted;
// an agent whose folder is deleted by hand is shown as missing and restored.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ReconcileReport } from '../../src/core/reconcile/reconciler';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir } from './helpers';

describe('Reconcile Agents in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const agent = (id: string) => api.agents().find((a) => a.id === id);

  before(async () => {
    api = await activateApi();
  });

  it('finds a hand-made orphan, shows it, adopts it; then shows a deleted agent as missing and restores it', async () => {
    const dir = path.join(`${workspaceDir()}.worktrees`, 'hand-made-orphan');
    git('worktree', 'add', '-q', '-b', 'agents/hand-made-orphan', dir);
    fs.writeFileSync(path.join(dir, 'orphan-notes.md'), '# left behind\n');
    const mine = path.join(path.dirname(workspaceDir()), 'users-own-worktree');
    git('worktree', 'add', '-q', '-b', 'feature/users-own', mine);

    const report = await vscode.commands.executeCommand<ReconcileReport>('parallelAgents.reconcile');
    // Earlier suites may leave agents' branches of their own behind; this one is about these two worktrees.
    assert.deepEqual(
      report.orphans.filter((o) => o.path === dir).map((o) => [o.kind, o.branch]),
      [['worktree', 'agents/hand-made-orphan']],
    );
    assert.ok(
      !report.orphans.some((o) => o.branch === 'feature/users-own' || o.path === mine),
      "the user's own worktree is never an orphan",
    );
    const row = api.viewSnapshot().find((r) => r.label === 'agents/hand-made-orphan');
    assert.ok(row, 'the Agents view lists the orphan');
    assert.equal(row.contextValue, 'orphan.worktree');
    assert.equal(row.description, 'orphaned worktree');
    assert.ok(!api.viewSnapshot().some((r) => r.label.includes('users-own')), "the user's own worktree is not listed");

    const id = await vscode.commands.executeCommand<string>('parallelAgents.adoptOrphan', { path: dir });
    assert.ok(id, 'adopt returns the new agent id');
    assert.equal(agent(id)?.status, 'stopped');
    await waitFor('the adopted agent to list its file', () =>
      agent(id)?.changedFiles.some((f) => f.path === 'orphan-notes.md'),
    );
    const adopted = await waitFor('the adopted row', () =>
      api.viewSnapshot().find((r) => r.label === 'hand-made-orphan'),
    );
    assert.equal(adopted.contextValue, 'agent.stopped.worktree.headless');
    assert.deepEqual(
      adopted.children.map((c) => c.label),
      ['orphan-notes.md'],
    );
    assert.ok(!api.viewSnapshot().some((r) => r.contextValue.startsWith('orphan.')), 'the orphan row is gone');

    fs.rmSync(dir, { recursive: true, force: true });
    const second = await vscode.commands.executeCommand<ReconcileReport>('parallelAgents.reconcile', { quiet: true });
    assert.deepEqual(
      second.missing.filter((m) => m.id === id),
      [{ id, restoreFrom: 'branch' }],
    );
    assert.ok(second.pruned.includes(dir), 'its stale registration is pruned');
    const missing = await waitFor('the missing row', () =>
      api.viewSnapshot().find((r) => r.label === 'hand-made-orphan' && r.contextValue.startsWith('agent.missing.')),
    );
    assert.equal(missing.contextValue, 'agent.missing.worktree.headless');
    assert.match(missing.description, /worktree missing$/);

    await vscode.commands.executeCommand('parallelAgents.restoreMissing', { id });
    assert.ok(fs.existsSync(dir), 'the worktree folder is back');
    assert.equal(git('-C', dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/hand-made-orphan');
    const back = await waitFor('the restored row', () =>
      api
        .viewSnapshot()
        .find((r) => r.label === 'hand-made-orphan' && r.contextValue === 'agent.stopped.worktree.headless'),
    );
    assert.ok(back);

    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
    git('worktree', 'remove', '--force', mine);
    git('branch', '-D', 'feature/users-own');
  });
});
