// Ask Agent to Resolve Conflicts in a real VS Code: two demo agents write the same file; the first is
// merged; the forecast marks the second's row; the command merges the branch into its worktree,
// the demo agent resolves the markers from its follow-up, the forecast is clean and the merge lands.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir } from './helpers';

interface Outcome {
  readonly start: { readonly kind: string; readonly files?: readonly string[]; readonly prompt?: string };
  readonly end?: { readonly kind: string; readonly conflicts?: readonly unknown[] };
}

describe('Ask Agent to Resolve Conflicts', function () {
  this.timeout(120_000);
  let api: ParallelAgentsApi;
  const agent = (id: string) => api.agents().find((a) => a.id === id)!;
  const finished = (id: string) => waitFor(`agent ${id} to finish`, () => agent(id).status === 'succeeded', 60_000);
  const row = (title: string) => api.viewSnapshot().find((r) => r.label === title)?.contextValue ?? '';

  const original = { showQuickPick: vscode.window.showQuickPick, showInputBox: vscode.window.showInputBox };
  type Window = { showQuickPick: unknown; showInputBox: unknown };

  before(async () => {
    api = await activateApi();
  });

  after(() => {
    Object.assign(vscode.window as Window, original);
  });

  it('merges the branch into the agent, the agent resolves, and its merge then lands', async () => {
    const dispatch = (prompt: string, title: string) =>
      vscode.commands.executeCommand<string>('parallelAgents.dispatch', { prompt, profile: 'demo', title });
    const a = await dispatch('create resolve-me.txt: from A\\n', 'Resolve A');
    const b = await dispatch('create resolve-me.txt: from B\\n', 'Resolve B');
    await finished(a);
    await finished(b);
    const merged = await vscode.commands.executeCommand<{ kind: string }>('parallelAgents.merge', {
      id: a,
      confirm: false,
      commit: true,
    });
    assert.equal(merged.kind, 'merged');
    await vscode.commands.executeCommand('parallelAgents.commit', { id: b, message: 'B' });
    await vscode.commands.executeCommand('parallelAgents.forecastConflicts', { quiet: true });
    assert.deepEqual(agent(b).forecastConflicts?.files, ['resolve-me.txt']);
    await waitFor('the row offers Ask Agent to Resolve', () => /\.conflicts(\.|$)/.test(row('Resolve B')));
    const head = git('rev-parse', 'HEAD');

    const outcome = await vscode.commands.executeCommand<Outcome>('parallelAgents.resolveConflicts', {
      id: b,
      instructions: 'resolve resolve-me.txt: keep both',
      wait: true,
    });
    assert.equal(outcome.start.kind, 'sent');
    assert.deepEqual(outcome.start.files, ['resolve-me.txt']);
    assert.match(outcome.start.prompt ?? '', /<<<<<<< HEAD\nfrom B\n=======\nfrom A\n>>>>>>> /);
    assert.deepEqual(outcome.end, { kind: 'forecast', conflicts: [], currentBranch: git('branch', '--show-current') });
    const record = agent(b);
    assert.equal(fs.readFileSync(path.join(record.cwd, 'resolve-me.txt'), 'utf8'), 'from B\nfrom A\n');
    assert.equal(record.forecastConflicts, undefined);
    await waitFor('the row no longer offers it', () => !/\.conflicts(\.|$)/.test(row('Resolve B')));
    assert.equal(git('rev-parse', 'HEAD'), head, 'nothing landed in the workspace');

    const landed = await vscode.commands.executeCommand<{ kind: string }>('parallelAgents.merge', {
      id: b,
      confirm: false,
    });
    assert.equal(landed.kind, 'merged');
    assert.equal(fs.readFileSync(path.join(workspaceDir(), 'resolve-me.txt'), 'utf8'), 'from B\nfrom A\n');
  });

  it('picking a pair conflict in Forecast Conflicts asks the later agent to merge the earlier one and resolve', async () => {
    const dispatch = (prompt: string, title: string) =>
      vscode.commands.executeCommand<string>('parallelAgents.dispatch', { prompt, profile: 'demo', title });
    const a = await dispatch('create pair.txt: from A\\n', 'Pair A');
    const b = await dispatch('create pair.txt: from B\\n', 'Pair B');
    await finished(a);
    await finished(b);
    await vscode.commands.executeCommand('parallelAgents.commit', { id: a, message: 'A' });
    await vscode.commands.executeCommand('parallelAgents.commit', { id: b, message: 'B' });
    const asked: string[] = [];
    // The extension shares this vscode API object: the forecast's list and the input box are answered here.
    (vscode.window as Window).showQuickPick = async (items: readonly vscode.QuickPickItem[]) => {
      const item = items.find((i) => i.label.includes('Pair A ↔ Pair B'));
      asked.push(item?.description ?? 'no pair item');
      return item;
    };
    (vscode.window as Window).showInputBox = async (options: vscode.InputBoxOptions) => {
      asked.push(options.title ?? '');
      return 'resolve pair.txt: keep theirs';
    };
    try {
      await vscode.commands.executeCommand('parallelAgents.forecastConflicts');
    } finally {
      Object.assign(vscode.window as Window, original);
    }
    assert.deepEqual(asked, ['1 files · pick to ask the agent to resolve', 'Ask Agent "Pair B" to Resolve Conflicts']);
    await waitFor('the follow-up to start', () => agent(b).followUps?.length === 1);
    await finished(b);
    const record = agent(b);
    await waitFor('the clean forecast', () => agent(b).forecastConflicts === undefined, 30_000);
    assert.equal(fs.readFileSync(path.join(record.cwd, 'pair.txt'), 'utf8'), 'from A\n');
    assert.equal(git('-C', record.cwd, 'log', '-1', '--format=%s'), `Merge ${agent(a).branch} into ${record.branch}`);
  });
});
