// The agent's own account in a real VS Code: the real demo agent reports its summary as its final
// message; Review All Changes opens the account first in the multi-file diff, with that message and
// the run's stats; Show Agent's Account opens it alone and it follows the record; no file command
// takes it for a changed file; Next Agent to Review selects the agent's row in the Agents view; the
// row's hover, resolved as VS Code resolves it, holds the final message and the run's stats.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir } from './helpers';

const accountScheme = 'parallel-agents-account';

/** A multi-file diff tab's input (vscode.TabInputTextMultiDiff: in VS Code 1.139, newer than the 1.90 typings). */
interface MultiDiffInput {
  readonly textDiffs: readonly { readonly original: vscode.Uri; readonly modified: vscode.Uri }[];
}
const MultiDiff = (vscode as unknown as { TabInputTextMultiDiff: abstract new () => MultiDiffInput })
  .TabInputTextMultiDiff;

function activeMultiDiff(): MultiDiffInput | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof MultiDiff ? input : undefined;
}

/** The agent an account's uri names (its query). */
function accountAgent(uri: vscode.Uri): string {
  return (JSON.parse(uri.query) as { agent: string }).agent;
}

describe("The agent's account in a real VS Code", function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;

  before(async () => {
    api = await activateApi();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('puts the account, with the final message and stats, first in the review; it is no changed file', async () => {
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create account/a.txt: one\\ntwo\\nthree\\n\nappend README.md: more\\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Account of work',
    });
    const done = await waitFor('the agent to finish with two counted files', () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.changedFiles.length === 2 && r.activity?.result !== undefined && r;
    });
    const summary = '2 step(s) run, 2 path(s) changed: README.md, account/a.txt; exit 0';
    assert.equal(done.activity?.result, `${summary}\n\n- create account/a.txt\n- append README.md`);
    assert.deepEqual(
      done.changedFiles.map((f) => [f.path, f.kind, f.added, f.removed]),
      [
        ['README.md', 'modified', 1, 0],
        ['account/a.txt', 'untracked', 3, 0],
      ],
    );

    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('parallelAgents.reviewAll', id);
    assert.equal(typeof MultiDiff, 'function', 'this VS Code has multi-file diff tabs');
    const review = await waitFor('the multi-file diff', activeMultiDiff);
    assert.equal(review.textDiffs.length, 3, 'the account and the two files');
    const [account, ...files] = review.textDiffs;
    assert.equal(account.modified.scheme, accountScheme, 'the account comes first');
    assert.deepEqual(files.map((d) => [d.modified.scheme, path.basename(d.modified.fsPath)]).sort(), [
      ['file', 'README.md'],
      ['file', 'a.txt'],
    ]);
    const text = (await vscode.workspace.openTextDocument(account.modified)).getText();
    assert.ok(text.startsWith("# Agent's account: Account of work\n"), text);
    for (const line of [
      '- **Status:** succeeded',
      '- **Changes:** 2 files, +4 −0',
      '- **Reviewed:** 0 of 2 files viewed',
      `## Final message\n\n${summary}\n\n- create account/a.txt\n- append README.md\n`,
      '- M `README.md` +1 −0',
      '- U `account/a.txt` +3 −0',
    ]) {
      assert.ok(text.includes(line), `the account holds ${JSON.stringify(line)}:\n${text}`);
    }
    assert.match(text, /^- \*\*Duration:\*\* \d+s$/m);

    // Shown on its own, it follows the record: a file marked viewed shows in it.
    await vscode.commands.executeCommand('parallelAgents.showAccount', id);
    const editor = await waitFor('the account in an editor', () => {
      const e = vscode.window.activeTextEditor;
      return e?.document.uri.scheme === accountScheme && e;
    });
    assert.equal(editor.document.languageId, 'markdown');
    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: id, path: 'README.md' });
    await waitFor('the account to count the viewed file', () =>
      editor.document.getText().includes('- **Reviewed:** 1 of 2 files viewed'),
    );

    // No file command takes the account for one of the agent's files: each refuses, nothing changes.
    const readme = fs.readFileSync(path.join(workspaceDir(), 'README.md'), 'utf8');
    assert.equal(await vscode.commands.executeCommand('parallelAgents.acceptSelectedRanges'), undefined);
    assert.equal(await vscode.commands.executeCommand('parallelAgents.acceptFile'), undefined);
    assert.equal(await vscode.commands.executeCommand('parallelAgents.revertFile'), undefined);
    assert.equal(fs.readFileSync(path.join(workspaceDir(), 'README.md'), 'utf8'), readme);
    assert.equal(git('status', '--porcelain'), '', 'the workspace is untouched');
    assert.equal(agent(id).changedFiles.length, 2);
    assert.deepEqual(Object.keys(agent(id).viewedFiles ?? {}), ['README.md']);
  });

  it("Next Agent to Review opens the next agent's review and selects its row in the Agents view", async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const shown = await vscode.commands.executeCommand<string>('parallelAgents.nextToReview');
    assert.ok(shown, 'an agent waits for review');
    const title = agent(shown).title;
    await waitFor('its row to be selected', async () => (await api.viewSelection()).join('\n') === title);
    const input = activeMultiDiff();
    assert.ok(input, 'its review is open');
    assert.equal(input.textDiffs[0].modified.scheme, accountScheme);
    assert.equal(accountAgent(input.textDiffs[0].modified), shown, "the account is that agent's");
  });

  it("the row's hover holds the agent's account: final message, files, +/−, duration", async () => {
    const title = 'Hovered account';
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create hover/h.txt: one\\ntwo\\n\nappend README.md: hovered\\n',
      profile: 'demo',
      isolation: 'worktree',
      title,
    });
    const done = await waitFor('the agent to finish with its result', () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.changedFiles.length === 2 && r.activity?.result !== undefined && r;
    });
    const hover = await api.rowTooltip(title);
    assert.ok(hover, 'the row has a hover');
    assert.ok(hover.startsWith(`**Hovered account** — succeeded`), hover);
    const seconds = Math.floor((done.endedAt! - done.startedAt!) / 1000);
    for (const line of [
      'Profile: `demo`',
      `Branch: \`${done.branch}\``,
      'Changes: `2 files, +3 −0`',
      `Duration: \`${seconds}s\``,
      `Result:\n\`\`\`markdown\n${done.activity!.result}\n\`\`\``,
      '2 step(s) run, 2 path(s) changed: README.md, hover/h.txt; exit 0',
    ]) {
      assert.ok(hover.includes(line), `the hover holds ${JSON.stringify(line)}:\n${hover}`);
    }
    assert.match(hover, /\nRuns: `demo \d{1,2}:\d{2}:\d{2}.*–\d{1,2}:\d{2}:\d{2}.*`/);
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
  });
});
