// The real agent CLIs (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, OpenCode) dispatched by the
// extension inside a real VS Code: each built-in preset, configured through the settings API with
// only its command (the provisioned binary) and its environment (the scripted model server of
// test/agents/modelServer.ts, started here in the extension host, and a throwaway HOME) changed.
// The real CLI edits a file in its worktree, the agent succeeds with the CLI's final message as its
// result, the Agents view lists the file and its diff opens. The paths come from PA_CLIS_JSON
// (scripts/provision-clis.sh), which scripts/test.mjs always provides; run by hand without it, the
// tests are skipped with a reason.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import { builtinProfiles } from '../../src/core/clis/profiles';
import type { ParallelAgentsApi } from '../../src/extension';
import { cliPrompts, cliServerEnv, homeEnv, type CliName } from '../agents/cliEnv';
import { ModelServer, type ModelScript } from '../agents/modelServer';
import { activateApi, git, waitFor } from './helpers';

const names: readonly CliName[] = ['claude', 'codex', 'gemini', 'copilot', 'opencode'];
const content = 'hello from a real CLI in VS Code\n';
/** The file the scripted model writes: Copilot's create makes no parent folder, so its file is at the top. */
const scriptOf = (name: CliName): ModelScript => ({
  file: name === 'copilot' ? 'hello.txt' : 'notes/hello.txt',
  content,
});

describe('the real agent CLIs in a real VS Code', function () {
  this.timeout(240_000);
  const config = () => vscode.workspace.getConfiguration('parallelAgents');
  let clis: Record<CliName, string>;
  let api: ParallelAgentsApi;
  let server: ModelServer | undefined;
  let home: string | undefined;
  let agentId: string | undefined;

  before(async function () {
    const json = process.env.PA_CLIS_JSON;
    if (!json) {
      console.log(
        '      skipped: PA_CLIS_JSON is not set (scripts/test.mjs provides it: bash scripts/provision-clis.sh prints it)',
      );
      this.skip();
    }
    clis = JSON.parse(json) as Record<CliName, string>;
    api = await activateApi();
    await config().update('agentTimeoutMinutes', 3, vscode.ConfigurationTarget.Global);
  });

  afterEach(async () => {
    // Editors first: the built-in git extension follows an open worktree file and complains when it vanishes.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    if (agentId) {
      await vscode.commands.executeCommand('parallelAgents.discard', { id: agentId, confirm: false });
    }
    await server?.close();
    if (home) {
      fs.rmSync(home, { recursive: true, force: true });
    }
    agentId = server = home = undefined;
  });

  after(async () => {
    if (clis) {
      await config().update('profiles', undefined, vscode.ConfigurationTarget.Global);
      await config().update('agentTimeoutMinutes', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  for (const name of names) {
    it(`${name}: edits the file in its worktree, succeeds, the view lists the file and its diff opens`, async () => {
      assert.ok(fs.existsSync(clis[name]), `provisioned ${name} at ${clis[name]}`);
      const script = scriptOf(name);
      server = await ModelServer.start(script);
      home = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-cli-home-'));
      const preset = builtinProfiles.find((p) => p.name === name)!;
      const profile = {
        ...preset,
        command: clis[name],
        env: { ...homeEnv(home), ...cliServerEnv(name, server.url, home) },
      };
      await config().update('profiles', [profile], vscode.ConfigurationTarget.Global);

      const title = `Real ${name}`;
      const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
        prompt: cliPrompts[name],
        profile: name,
        isolation: 'worktree',
        title,
      });
      assert.ok(id, 'dispatch returns the agent id');
      agentId = id;
      const agent = (): AgentRecord | undefined => api.agents().find((a) => a.id === id);
      assert.equal(agent()?.profile, name);
      const done = await waitFor(
        `${name} to finish`,
        () => !['queued', 'preparing', 'running'].includes(agent()?.status ?? 'queued') && agent(),
        200_000,
      );
      assert.equal(done.status, 'succeeded', `${done.status}: ${done.error ?? ''}`);
      assert.equal(done.activity?.result, 'DONE', `the final message: ${JSON.stringify(done.activity)}`);
      assert.equal(done.activity?.denials, undefined);
      const worktree = done.worktreePath!;
      assert.equal(fs.readFileSync(path.join(worktree, script.file), 'utf8').trim(), script.content.trim());
      assert.equal(git('status', '--porcelain'), '', 'the main checkout is untouched');
      assert.ok(
        server.modelCalls().some((r) => r.answered === 'tool'),
        'the CLI asked the model server and got the write',
      );

      const row = await waitFor('the agent row with its file', () =>
        api.viewSnapshot().find((r) => r.label === title && r.children.length > 0),
      );
      assert.deepEqual(
        row.children.map((f) => f.label),
        ['hello.txt'],
      );
      assert.match(row.description, new RegExp(`^${name} · succeeded`));

      await vscode.commands.executeCommand('parallelAgents.openChange', { agentId: id, path: script.file });
      const input = await waitFor('the diff tab', () => {
        const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
        return tab?.input instanceof vscode.TabInputTextDiff && tab.input;
      });
      assert.equal(input.modified.fsPath, path.join(worktree, script.file));
      assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), script.content);
    });
  }
});
