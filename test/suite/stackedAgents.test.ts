// Stacked agents in a real VS Code: Dispatch Stacked Agent on a row asks the task, agent and title
// (no isolation step) and starts from the parent's worktree; the row offers Rebase on Parent, which
// carries the stacked agent's work onto the parent's newer work. When it conflicts, its refusal's
// Ask Agent to Resolve button merges the parent's work in; the child resolves; the rebase then applies.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, waitFor } from './helpers';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trimEnd();

type Window = { showQuickPick: unknown; showInputBox: unknown; showErrorMessage: unknown };

describe('Stacked agents', function () {
  this.timeout(90_000);
  let api: ParallelAgentsApi;
  const original = {
    showQuickPick: vscode.window.showQuickPick,
    showInputBox: vscode.window.showInputBox,
    showErrorMessage: vscode.window.showErrorMessage,
  };
  const agent = (id: string) => api.agents().find((a) => a.id === id)!;
  const finished = (id: string) => waitFor(`agent ${id} to finish`, () => agent(id).status === 'succeeded', 60_000);

  before(async () => {
    api = await activateApi();
  });

  after(() => {
    Object.assign(vscode.window as Window, original);
  });

  it('dispatches on top of a row, then rebases it on its parent', async () => {
    const parent = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create stack-base.txt: one',
      profile: 'demo',
      title: 'Stack parent',
    });
    await finished(parent);
    const titles: string[] = [];
    // The extension shares this vscode API object: the steps are answered here, as a user would.
    (vscode.window as Window).showQuickPick = async (
      items: readonly vscode.QuickPickItem[],
      options: vscode.QuickPickOptions,
    ) => {
      titles.push(options.title ?? '');
      return items.find((i) => i.label === 'demo');
    };
    (vscode.window as Window).showInputBox = async (options: vscode.InputBoxOptions) => {
      titles.push(options.title ?? '');
      return options.title?.includes('task') ? 'create stack-child.txt: two' : 'Stack child';
    };
    let child: string;
    try {
      child = (await vscode.commands.executeCommand<string>('parallelAgents.dispatchStacked', parent))!;
    } finally {
      Object.assign(vscode.window as Window, original);
    }
    assert.deepEqual(titles, [
      'Dispatch Stacked Agent on "Stack parent" (1/3): task',
      'Dispatch Stacked Agent on "Stack parent" (2/3): agent',
      'Dispatch Stacked Agent on "Stack parent" (3/3): title',
    ]);
    await finished(child);
    const record = agent(child);
    assert.deepEqual({ ...record.stackedOn, at: undefined }, { id: parent, title: 'Stack parent', at: undefined });
    assert.equal(typeof record.stackedOn?.at, 'number', 'when its snapshot of the parent was taken');
    assert.equal(fs.readFileSync(path.join(record.cwd, 'stack-base.txt'), 'utf8'), 'one');
    assert.deepEqual(
      record.changedFiles.map((f) => f.path),
      ['stack-child.txt'],
    );
    const row = api.viewSnapshot().find((r) => r.label === 'Stack child');
    assert.match(row?.contextValue ?? '', /^agent\.succeeded\.worktree\.headless\.stacked(\.|$)/);
    const childRow = () => api.viewSnapshot().find((r) => r.label === 'Stack child')?.description ?? '';
    assert.doesNotMatch(childRow(), /parent ran since/);

    await vscode.commands.executeCommand('parallelAgents.followUp', { id: parent, prompt: 'create stack-more.txt: m' });
    await waitFor('the follow-up to finish', () => agent(parent).followUps?.length === 1);
    await finished(parent);
    await waitFor('the row to say the parent ran since', () => childRow().includes('↑ parent ran since'));
    assert.match((await api.rowTooltip('Stack child')) ?? '', /"Stack parent" ran since this agent last took its work/);
    await vscode.commands.executeCommand('parallelAgents.rebaseOnParent', { id: child });
    await waitFor('the row to drop it after the rebase', () => !childRow().includes('parent ran since'));
    assert.equal(fs.readFileSync(path.join(record.cwd, 'stack-more.txt'), 'utf8'), 'm');
    assert.notEqual(agent(child).baseSha, record.baseSha);
    await waitFor(
      'its own work alone in its change set',
      () =>
        agent(child)
          .changedFiles.map((f) => f.path)
          .join() === 'stack-child.txt',
    );
  });

  it("offers Ask Agent to Resolve on a conflicting Rebase on Parent: the parent's work merged, resolved, rebased", async () => {
    const dispatch = (prompt: string, title: string, stackOn?: string) =>
      vscode.commands.executeCommand<string>('parallelAgents.dispatch', { prompt, profile: 'demo', title, stackOn });
    const parent = await dispatch('create stack-line.txt: one', 'Line parent');
    await finished(parent);
    const child = await dispatch('replace stack-line.txt: one => child', 'Line child', parent);
    await finished(child);
    await vscode.commands.executeCommand('parallelAgents.followUp', {
      id: parent,
      prompt: 'replace stack-line.txt: one => parent',
    });
    await waitFor('the follow-up to finish', () => agent(parent).followUps?.length === 1);
    await finished(parent);
    const cwd = agent(child).cwd;
    const before = agent(child).baseSha;

    const shown: string[] = [];
    const asked: string[] = [];
    // The user clicks the refusal's Ask Agent to Resolve button and tells the demo agent how to resolve.
    (vscode.window as Window).showErrorMessage = async (message: string, ...buttons: string[]) => {
      shown.push(message);
      return buttons.find((b) => b === 'Ask Agent to Resolve');
    };
    (vscode.window as Window).showInputBox = async (options: vscode.InputBoxOptions) => {
      asked.push(options.title ?? '');
      return 'resolve stack-line.txt: keep both';
    };
    try {
      // The command shows its refusal (the command runner reports it) rather than rejecting.
      await vscode.commands.executeCommand('parallelAgents.rebaseOnParent', { id: child }).then(
        () => undefined,
        () => undefined,
      );
      await waitFor('the refusal to be shown', () => shown.length > 0);
      assert.match(shown[0], /does not apply cleanly .* Ask Agent to Resolve merges the parent's work/);
      await waitFor('the follow-up with the conflicts', () => agent(child).followUps?.length === 1);
      assert.deepEqual(asked, ['Ask Agent "Line child" to Resolve Conflicts']);
      assert.match(agent(child).followUps![0], /^The work of agent "Line parent" as it is now/);
      await finished(child);
      await waitFor("the child settled on its parent's work", () => agent(child).baseSha !== before);
    } finally {
      Object.assign(vscode.window as Window, original);
    }
    assert.equal(fs.readFileSync(path.join(cwd, 'stack-line.txt'), 'utf8'), 'child\nparent\n');
    assert.equal(git(cwd, 'status', '--porcelain', '--', 'stack-line.txt'), ' M stack-line.txt');

    await vscode.commands.executeCommand('parallelAgents.followUp', { id: parent, prompt: 'create stack-late.txt: l' });
    await waitFor('the second follow-up to finish', () => agent(parent).followUps?.length === 2);
    await finished(parent);
    const childRow = () => api.viewSnapshot().find((r) => r.label === 'Line child')?.description ?? '';
    await waitFor('the row to say the parent ran since the merge', () => childRow().includes('↑ parent ran since'));
    await vscode.commands.executeCommand('parallelAgents.rebaseOnParent', { id: child });
    await waitFor('the row to drop it after the rebase', () => !childRow().includes('parent ran since'));
    assert.equal(fs.readFileSync(path.join(cwd, 'stack-late.txt'), 'utf8'), 'l');
    assert.equal(fs.readFileSync(path.join(cwd, 'stack-line.txt'), 'utf8'), 'child\nparent\n');
  });
});
