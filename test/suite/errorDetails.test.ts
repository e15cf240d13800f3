// An error git explained: the notification says what to do in the user's words and offers Details,
// which shows git's own words in a modal dialog; nothing is made. Real VS Code, real git.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi } from './helpers';

interface Shown {
  readonly message: string;
  readonly rest: readonly unknown[];
}

describe('Details of an error git explained', function () {
  this.timeout(60_000);
  let api: ParallelAgentsApi;
  let shown: Shown[] = [];
  let original: typeof vscode.window.showErrorMessage;
  let empty: string;

  before(async () => {
    api = await activateApi();
    original = vscode.window.showErrorMessage;
    // The extension shares this vscode API object. The notification "chooses" Details; the modal
    // it opens is answered as dismissed (a modal would block the test).
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...rest: unknown[]) => {
      shown.push({ message, rest });
      const first = rest[0];
      if (typeof first === 'object' && first !== null && (first as { modal?: boolean }).modal) {
        return Promise.resolve(undefined);
      }
      return Promise.resolve(rest.includes('Details') ? 'Details' : undefined);
    };
    empty = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-nocommits-')));
    execFileSync('git', ['init', '-q', empty]);
  });

  after(() => {
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = original;
    fs.rmSync(empty, { recursive: true, force: true });
  });

  it('offers Details with git stderr for a repository with no commits, and makes nothing', async () => {
    const agents = api.agents().map((a) => a.id);
    shown = [];
    const result = await vscode.commands.executeCommand('parallelAgents.dispatch', {
      prompt: 'create x.txt: x',
      profile: 'demo',
      folder: empty,
    });
    assert.equal(result, undefined, 'no agent id');
    const deadline = Date.now() + 10_000;
    while (shown.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const message = `The repository at ${empty} has no commits yet — make a first commit, then dispatch agents.`;
    assert.equal(shown.length, 2, JSON.stringify(shown));
    assert.equal(shown[0].message, message);
    assert.deepEqual(shown[0].rest, ['Details', 'Show Log']);
    assert.equal(shown[1].message, message);
    const options = shown[1].rest[0] as vscode.MessageOptions;
    assert.equal(options.modal, true);
    assert.match(options.detail ?? '', /^fatal: .*(single revision|unknown revision|bad revision)/i, "git's own words");
    assert.deepEqual(
      api.agents().map((a) => a.id),
      agents,
      'no agent recorded',
    );
    assert.equal(execFileSync('git', ['-C', empty, 'worktree', 'list']).toString().trim().split('\n').length, 1);
    assert.equal(execFileSync('git', ['-C', empty, 'for-each-ref']).toString(), '', 'no branch made');
  });
});
