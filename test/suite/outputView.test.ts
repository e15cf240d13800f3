// Show Agent Output on a 20 MB log in a real VS Code: the view shows the log's tail under a line
// saying how much is hidden, follows what is appended after it, and Open Full Agent Log opens the
// whole file in an editor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, waitFor } from './helpers';

describe('the output view of a large log in a real VS Code', function () {
  this.timeout(120000);
  let api: ParallelAgentsApi;

  before(async () => {
    api = await activateApi();
  });

  /** The text of the output channel whose text contains `needle`. */
  const outputWith = (needle: string) =>
    vscode.workspace.textDocuments
      .filter((d) => d.uri.scheme === 'output')
      .map((d) => d.getText())
      .find((text) => text.includes(needle));

  it("shows a 20 MB log's tail, follows it live, and opens the whole file on Open Full Agent Log", async () => {
    const id = await api.dispatch({ prompt: 'print first-line-of-the-log', profile: 'demo', title: 'Large log' });
    const record = await waitFor('the agent to end', () => {
      const r = api.agents().find((a) => a.id === id);
      return r && r.status === 'succeeded' ? r : undefined;
    });
    const logPath = record.logPath!;
    assert.match(fs.readFileSync(logPath, 'utf8'), /first-line-of-the-log/);
    // 20 MiB more, as an agent that printed a lot would have left it.
    const line = `${'filler output '.repeat(7)}x\n`;
    const count = Math.ceil((20 * 1024 * 1024) / line.length);
    fs.appendFileSync(logPath, `${line.repeat(count)}last-line-of-the-log\n`);

    await vscode.commands.executeCommand('parallelAgents.showOutput', id);
    const shown = await waitFor('the view with the log tail', () => outputWith('last-line-of-the-log'), 20000);
    assert.match(shown, /… 19\.\d MB of earlier output not shown — run 'Open Full Agent Log'/);
    assert.ok(!shown.includes('first-line-of-the-log'), 'the start of the log is not pasted');
    assert.ok(shown.length < 80 * 1024, `the view holds the tail only (${shown.length} characters)`);

    fs.appendFileSync(logPath, 'appended-after-opening\n');
    const followed = await waitFor('the appended line', () => outputWith('appended-after-opening') ?? false, 10000);
    assert.equal(followed.split('appended-after-opening').length, 2, 'shown once');
    assert.ok(
      followed.indexOf('last-line-of-the-log') < followed.indexOf('appended-after-opening'),
      'in the order written',
    );

    await vscode.commands.executeCommand('parallelAgents.openFullLog', id);
    const tab = await waitFor('the log open in an editor', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputText && input.uri.fsPath === logPath ? input : undefined;
    });
    assert.equal(tab.uri.fsPath, logPath);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
  });
});
