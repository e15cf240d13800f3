// Structured progress in a real VS Code: a user profile with claude's output format (a real process
// printing the JSON lines recorded from the real CLI) shows its step while it runs, ends "needs
// permission" with its answer in the row, and Show Agent Result opens the whole answer.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { recordedClaudeProfile } from '../git/recordedCli';
import { activateApi, waitFor } from './helpers';

describe('structured progress in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  let dir: string;
  const config = () => vscode.workspace.getConfiguration('parallelAgents');

  before(async () => {
    api = await activateApi();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-progress-'));
    await config().update(
      'profiles',
      [recordedClaudeProfile(dir, 'recorded-claude')],
      vscode.ConfigurationTarget.Global,
    );
  });

  after(async () => {
    await config().update('profiles', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the step while running, then "needs permission" with the answer; Show Agent Result opens it', async () => {
    const gate = path.join(dir, 'gate');
    const id = await api.dispatch({
      prompt: `claude-permission-denied.jsonl\n${gate}`,
      profile: 'recorded-claude',
      title: 'Asks for permission',
    });
    const running = await waitFor('the step in the row', () =>
      api
        .viewSnapshot()
        .find((r) => r.label === 'Asks for permission' && r.description.endsWith('Write notes/hello.txt')),
    );
    assert.match(running.description, /^recorded-claude · running · \d+s · Write notes\/hello\.txt$/);
    fs.writeFileSync(gate, '');
    const ended = await waitFor('the end', () =>
      api
        .viewSnapshot()
        .find((r) => r.label === 'Asks for permission' && r.contextValue.startsWith('agent.needs-permission.')),
    );
    assert.equal(ended.contextValue, 'agent.needs-permission.worktree.headless');
    assert.match(ended.description, /^recorded-claude · needs permission · \d+s · DONE$/);
    const agent = api.agents().find((a) => a.id === id);
    assert.deepEqual(agent?.activity?.denials, ['Write notes/hello.txt']);

    await vscode.commands.executeCommand('parallelAgents.showResult', id);
    const editor = await waitFor(
      'the result document',
      () => vscode.window.activeTextEditor?.document.isUntitled && vscode.window.activeTextEditor,
    );
    assert.equal(editor.document.languageId, 'markdown');
    assert.equal(editor.document.getText(), '# Asks for permission\n\nDONE\n');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
  });
});
