// parallelAgents.worktreeEnv in a real VS Code: the user setting reaches a real demo agent's record
// and worktree (.parallel-agents.env), its row shows the port and offers Open in Browser, which
// opens http://localhost:<port>; a bad setting refuses Dispatch Agent and creates nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor } from './helpers';

function freeBase(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(Math.min(port, 65000)));
    });
  });
}

describe('A running app per worktree (parallelAgents.worktreeEnv) in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const config = () => vscode.workspace.getConfiguration('parallelAgents');
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;

  before(async () => {
    api = await activateApi();
  });

  after(async () => {
    await config().update('worktreeEnv', undefined, vscode.ConfigurationTarget.Global);
    await config().update('portRange', undefined, vscode.ConfigurationTarget.Global);
  });

  it('gives the agent its port, shows it on the row and opens it in the browser', async () => {
    const base = await freeBase();
    await config().update(
      'worktreeEnv',
      { PORT: '${freePort:web}', AGENT_INDEX: '${agentIndex}' },
      vscode.ConfigurationTarget.Global,
    );
    await config().update('portRange', `${base}-${base + 20}`, vscode.ConfigurationTarget.Global);
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create served.txt: hello\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Served app',
    });
    const done = await waitFor('the agent to finish', () => agent(id).status === 'succeeded' && agent(id));
    const port = done.worktreeEnv?.ports.web;
    assert.ok(port !== undefined && port >= base && port <= base + 20, `port ${port} in the range`);
    assert.equal(done.worktreeEnv?.vars.PORT, String(port));
    assert.equal(
      fs.readFileSync(path.join(done.worktreePath!, '.parallel-agents.env'), 'utf8'),
      `PORT=${port}\nAGENT_INDEX=${done.worktreeEnv?.index}\n`,
    );
    const row = await waitFor('the row with its port', () =>
      api.viewSnapshot().find((r) => r.label === 'Served app' && r.description.includes(`port ${port}`)),
    );
    assert.match(row.contextValue, /^agent\.succeeded\.worktree\.headless\.ports$/);
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('parallelAgents.openInBrowser'));
    const url = await vscode.commands.executeCommand<string>('parallelAgents.openInBrowser', id);
    assert.equal(url, `http://localhost:${port}`);
    // Discarded, it gives its port back: the row no longer offers it.
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
    const gone = await waitFor('the discarded row', () =>
      api.viewSnapshot().find((r) => r.label === 'Served app' && r.contextValue.startsWith('agent.discarded.')),
    );
    assert.ok(!gone.contextValue.includes('.ports') && !gone.description.includes('port'), gone.description);
  });

  it('refuses Dispatch Agent with a bad variable name and creates nothing', async () => {
    await config().update('worktreeEnv', { 'MY-PORT': '${freePort}' }, vscode.ConfigurationTarget.Global);
    const before = { agents: api.agents().length, branches: git('branch', '--list') };
    // The command shows the error (errorMessages.ts) and gives no agent id.
    const result = await vscode.commands.executeCommand<string | undefined>('parallelAgents.dispatch', {
      prompt: 'create nope.txt: no\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Not dispatched',
    });
    assert.equal(result, undefined);
    assert.equal(api.agents().length, before.agents);
    assert.equal(git('branch', '--list'), before.branches);
  });
});
