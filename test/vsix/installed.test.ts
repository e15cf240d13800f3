// The extension as users install it (a .vsix installed by code-server, harness/runVsix.ts): it is
// the installed copy that loads, activates, registers its commands and runs the demo agent.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { extensionId, git, waitFor } from '../suite/helpers';

describe('the installed .vsix in a real VS Code', function () {
  this.timeout(90_000);
  let extension: vscode.Extension<ParallelAgentsApi>;
  let api: ParallelAgentsApi;

  before(async () => {
    const found = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
    assert.ok(found, `${extensionId} is installed`);
    extension = found;
    api = await extension.activate();
  });

  it('is the copy in the fresh extensions dir, not the sources', () => {
    const extensionsDir = process.env.PA_VSIX_EXTENSIONS_DIR;
    assert.ok(extensionsDir, 'PA_VSIX_EXTENSIONS_DIR reaches the extension host');
    const installedAt = fs.realpathSync(extension.extensionPath);
    assert.equal(path.dirname(installedAt), fs.realpathSync(extensionsDir));
    assert.equal(
      path.basename(installedAt),
      `${extensionId}-${(extension.packageJSON as { version: string }).version}`,
    );
    // What runs is the packaged bundle: no sources, tests or build output came along.
    assert.ok(fs.existsSync(path.join(installedAt, 'dist', 'extension.js')));
    for (const absent of ['src', 'test', 'out', 'node_modules', 'scripts']) {
      assert.ok(!fs.existsSync(path.join(installedAt, absent)), `${absent}/ is not installed`);
    }
  });

  it('activates and registers every command it contributes', async () => {
    assert.equal(extension.isActive, true);
    assert.equal(typeof api.dispatch, 'function');
    const contributed = (
      extension.packageJSON as { contributes: { commands: { command: string }[] } }
    ).contributes.commands.map((c) => c.command);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      contributed.filter((c) => !registered.has(c)),
      [],
    );
    assert.ok(contributed.length > 10, `${contributed.length} commands contributed`);
  });

  it('dispatches the demo agent through the command API: it succeeds and its file is listed', async () => {
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create docs/installed.md: # From the vsix',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Vsix check',
    });
    assert.ok(id, 'dispatch returns the agent id');
    const agent = (): AgentRecord | undefined => api.agents().find((a) => a.id === id);
    const done = await waitFor(
      'the agent to finish',
      () => !['queued', 'preparing', 'running'].includes(agent()?.status ?? 'queued') && agent(),
    );
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(fs.readFileSync(path.join(done.worktreePath!, 'docs/installed.md'), 'utf8').trim(), '# From the vsix');
    const row = await waitFor('the agent row with its file', () =>
      api.viewSnapshot().find((r) => r.label === 'Vsix check' && r.children.length > 0),
    );
    assert.deepEqual(
      row.children.map((c) => c.label),
      ['installed.md'],
    );
    assert.match(git('branch', '--list', done.branch!), new RegExp(done.branch!));
  });
});
