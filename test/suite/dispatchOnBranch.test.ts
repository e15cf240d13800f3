// Dispatch Agent on Branch in a real VS Code: the command's quick pick offers only the branches no
// worktree has checked out (and Pull Request…), the agent works on the branch picked, Discard keeps
// that branch; a pull request of a repository without a remote is refused with nothing made.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor } from './helpers';

type Window = { showQuickPick: unknown; showInputBox: unknown; showErrorMessage: unknown };

describe('Dispatch Agent on Branch', function () {
  this.timeout(60_000);
  let api: ParallelAgentsApi;
  const original = {
    showQuickPick: vscode.window.showQuickPick,
    showInputBox: vscode.window.showInputBox,
    showErrorMessage: vscode.window.showErrorMessage,
  };
  const agent = (id: string) => api.agents().find((a) => a.id === id)!;

  before(async () => {
    api = await activateApi();
    const start = git('rev-parse', 'HEAD');
    git('branch', 'suite-free', start);
    git('branch', 'suite-busy', start);
  });

  after(() => {
    Object.assign(vscode.window as Window, original);
  });

  it('offers the branches not checked out, and dispatches on the one picked', async () => {
    const busy = `${git('rev-parse', '--show-toplevel')}.suite-busy-wt`;
    git('worktree', 'add', '-q', busy, 'suite-busy');
    const offered: string[] = [];
    const titles: string[] = [];
    // The extension shares this vscode API object: the steps are answered here, as a user would.
    (vscode.window as Window).showQuickPick = async (
      items: readonly vscode.QuickPickItem[],
      options: vscode.QuickPickOptions,
    ) => {
      titles.push(options.title ?? '');
      if (options.title?.includes('branch')) {
        offered.push(...items.filter((i) => i.kind !== vscode.QuickPickItemKind.Separator).map((i) => i.label));
        return items.find((i) => i.label.endsWith(' suite-free'));
      }
      return items.find((i) => i.label === 'demo');
    };
    (vscode.window as Window).showInputBox = async (options: vscode.InputBoxOptions) => {
      titles.push(options.title ?? '');
      return options.title?.includes('task') ? 'create on-branch.txt: yes' : 'On the free branch';
    };
    try {
      const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatchOnBranch');
      assert.ok(id, 'an agent id');
      assert.ok(
        offered.some((l) => l.endsWith(' suite-free')),
        offered.join(),
      );
      assert.ok(!offered.some((l) => l.endsWith(' suite-busy')), 'a branch checked out elsewhere is not offered');
      assert.ok(!offered.some((l) => l.endsWith(` ${git('branch', '--show-current')}`)), 'nor the current one');
      assert.ok(offered.some((l) => l.includes('Pull Request')));
      assert.deepEqual(titles, [
        'Dispatch Agent on Branch (1/4): branch',
        'Dispatch Agent on Branch (2/4): task',
        'Dispatch Agent on Branch (3/4): agent',
        'Dispatch Agent on Branch (4/4): title',
      ]);
      const record = agent(id);
      assert.equal(record.branch, 'suite-free');
      assert.equal(record.title, 'On the free branch');
      assert.equal(record.baseSha, git('rev-parse', 'suite-free'));
      await waitFor('the agent to finish', () => agent(id).status === 'succeeded');
      await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
      assert.equal(agent(id).status, 'discarded');
      assert.equal(git('branch', '--list', 'suite-free'), 'suite-free', 'the branch stays');
    } finally {
      Object.assign(vscode.window as Window, original);
      git('worktree', 'remove', '--force', busy);
    }
  });

  it('refuses a pull request when the repository has no remote, leaving nothing', async () => {
    const shown: string[] = [];
    (vscode.window as Window).showErrorMessage = (message: string, ...rest: never[]) => {
      shown.push(message);
      return original.showErrorMessage(message, ...rest);
    };
    const before = { agents: api.agents().length, refs: git('for-each-ref'), worktrees: git('worktree', 'list') };
    try {
      assert.equal(git('remote'), '', 'the harness repository has no remote');
      const result = await vscode.commands.executeCommand('parallelAgents.dispatchOnBranch', {
        prompt: 'create x.txt: x',
        profile: 'demo',
        pullRequest: 8,
      });
      assert.equal(result, undefined);
      assert.equal(shown.length, 1, shown.join('\n'));
      assert.match(shown[0], /^Cannot fetch pull request #8: the repository at .* has no remote\./);
      assert.deepEqual(
        { agents: api.agents().length, refs: git('for-each-ref'), worktrees: git('worktree', 'list') },
        before,
      );
    } finally {
      Object.assign(vscode.window as Window, original);
    }
  });
});
