// A first check that the suite really runs inside VS Code with the harness's workspace open.
import * as assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import * as vscode from 'vscode';

describe('smoke', () => {
  it('runs in a real VS Code with the temporary repository open', () => {
    assert.equal(typeof vscode.version, 'string');
    assert.match(vscode.version, /^\d+\.\d+\.\d+/);
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1);
    const expected = process.env.PA_TEST_WORKSPACE;
    assert.ok(expected, 'PA_TEST_WORKSPACE reaches the extension host');
    assert.equal(realpathSync(folders[0].uri.fsPath), realpathSync(expected));
  });
});
