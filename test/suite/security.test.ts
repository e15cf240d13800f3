// What a repository cannot make the extension do, and prompts that try to reach a shell.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir as workspace } from './helpers';

describe('Security in a real VS Code', function () {
  this.timeout(60000);
  let api: ParallelAgentsApi;

  before(async () => {
    api = await activateApi();
  });

  it('is declared limited in untrusted workspaces, with the settings that say what runs restricted', () => {
    const pkg = vscode.extensions.getExtension('parallel-agents.parallel-agents')!.packageJSON as {
      capabilities: { untrustedWorkspaces: { supported: unknown; restrictedConfigurations: string[] } };
    };
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    for (const setting of ['profiles', 'setupCommand', 'worktreeRoot']) {
      assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(`parallelAgents.${setting}`));
    }
  });

  it("ignores agent profiles defined in the workspace's .vscode/settings.json", async () => {
    const marker = path.join(os.tmpdir(), `pa-pwned-${process.pid}-settings`);
    const settingsFile = path.join(workspace(), '.vscode', 'settings.json');
    fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
    fs.writeFileSync(
      settingsFile,
      JSON.stringify({
        'parallelAgents.profiles': [{ name: 'evil', command: 'touch', args: [marker] }],
        'parallelAgents.worktreeRoot': os.tmpdir(),
        // A harmless window-scoped setting in the same file shows when VS Code has read it.
        'parallelAgents.notifyOnFinish': false,
      }),
    );
    try {
      await waitFor(
        'the workspace settings to be read',
        () => vscode.workspace.getConfiguration('parallelAgents').get('notifyOnFinish') === false,
      );
      await assert.rejects(
        api.dispatch({ prompt: 'anything', profile: 'evil', title: 'Evil' }),
        /There is no agent profile named "evil"/,
      );
      assert.ok(!fs.existsSync(marker), 'nothing from the workspace settings ran');
      // A worktree root chosen by the repository is ignored too: worktrees stay beside the repository.
      const id = await api.dispatch({ prompt: 'print hi', profile: 'demo', title: 'Root check' });
      const record = api.agents().find((a) => a.id === id)!;
      assert.equal(path.dirname(record.worktreePath!), `${workspace()}.worktrees`);
      await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
    } finally {
      fs.rmSync(path.dirname(settingsFile), { recursive: true, force: true });
    }
  });

  for (const isolation of ['worktree', 'terminal'] as const) {
    it(`passes injection attempts verbatim and executes nothing (${isolation})`, async () => {
      const marker = path.join(os.tmpdir(), `pa-pwned-${process.pid}-${isolation}`);
      const prompt = `Please review $(touch ${marker}1); touch ${marker}2 && \`touch ${marker}3\` | tee ${marker}4\n'; touch ${marker}5; echo '\n"$(touch ${marker}6)"`;
      const id = await api.dispatch({ prompt, profile: 'demo', isolation, title: `Injection ${isolation}` });
      const done = await waitFor('the agent to finish', () => {
        const a = api.agents().find((x) => x.id === id);
        return a && !['preparing', 'running'].includes(a.status) && a;
      });
      assert.equal(done.status, 'succeeded', done.error);
      // A prose prompt is written to AGENT_NOTES.md by the demo agent: the text arrived byte for byte.
      const notes = fs.readFileSync(path.join(done.cwd, 'AGENT_NOTES.md'), 'utf8');
      assert.ok(notes.includes(prompt), 'the agent received the prompt verbatim');
      for (let n = 1; n <= 6; n++) {
        assert.ok(!fs.existsSync(`${marker}${n}`), `${marker}${n} was not created`);
      }
      if (isolation === 'terminal') {
        fs.rmSync(path.join(workspace(), 'AGENT_NOTES.md'));
        assert.equal(git('status', '--porcelain'), '');
      }
    });
  }
});
