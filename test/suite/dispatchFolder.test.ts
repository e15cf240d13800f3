// Dispatch Agent given a folder that is not a git repository, in a real VS Code: refused with a
// message that names the folder and says what to do; no agent, worktree, branch or folder is made.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git } from './helpers';

describe('Dispatch Agent on a folder that is not a git repository', function () {
  this.timeout(60_000);
  let api: ParallelAgentsApi;
  let shown: string[] = [];
  let original: typeof vscode.window.showErrorMessage;
  let plain: string;

  before(async () => {
    api = await activateApi();
    // The extension shares this vscode API object: the real call still happens, its message is kept.
    original = vscode.window.showErrorMessage;
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = (message: string, ...rest: never[]) => {
      shown.push(message);
      return original(message, ...rest);
    };
    plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-plain-')));
    fs.writeFileSync(path.join(plain, 'notes.txt'), 'not versioned\n');
  });

  after(() => {
    (vscode.window as { showErrorMessage: unknown }).showErrorMessage = original;
    fs.rmSync(plain, { recursive: true, force: true });
  });

  it('refuses it by name, leaving nothing', async () => {
    const before = {
      agents: api.agents().map((a) => a.id),
      worktrees: git('worktree', 'list', '--porcelain'),
      refs: git('for-each-ref'),
    };
    shown = [];
    const result = await vscode.commands.executeCommand('parallelAgents.dispatch', {
      prompt: 'create x.txt: x',
      profile: 'demo',
      folder: plain,
    });
    assert.equal(result, undefined, 'no agent id');
    assert.deepEqual(shown, [
      `${plain} is not a git repository: an agent works on a branch of its own in a git worktree. Open a folder that is a git repository (or run git init there and make a first commit), then dispatch again.`,
    ]);
    assert.deepEqual(
      {
        agents: api.agents().map((a) => a.id),
        worktrees: git('worktree', 'list', '--porcelain'),
        refs: git('for-each-ref'),
      },
      before,
      'nothing made in the workspace repository',
    );
    assert.deepEqual(
      fs.readdirSync(path.dirname(plain)).filter((n) => n.startsWith(`${path.basename(plain)}.`)),
      [],
      'no worktree folder beside it',
    );
    assert.deepEqual(fs.readdirSync(plain), ['notes.txt'], 'no .git made in it');
  });
});
