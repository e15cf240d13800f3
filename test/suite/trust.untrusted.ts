// Restricted Mode (harness/runVsix.ts --only trust): the installed extension in a workspace that
// is not trusted. `capabilities.untrustedWorkspaces.supported: "limited"`: VS Code loads it, and it
// registers only the commands that run nothing (Show Log, Show Agents View); Dispatch, Try Demo and
// Dispatch Plan do not exist, nor does the API start anything: no process, worktree, branch or saved
// state. Why, the user is told by the window (checked with Playwright in test/vsix/trustWindow.ts):
// the Restricted Mode banner and the Agents view's welcome with its Manage Workspace Trust button,
// which the last test clicks (then Trust) through harness/interlude.ts; once trust is granted,
// every command exists and the demo agent runs, without a reload.
// Not a *.test.ts: the ordinary suite runs in a trusted workspace.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';
import { windowInterlude } from '../harness/interlude';
import { extensionId, git, waitFor, workspaceDir } from './helpers';

/** The contributed commands that exist in Restricted Mode: they show the log or the view, and run nothing. */
const readOnlyCommands = ['parallelAgents.focus', 'parallelAgents.showLog'];

/** Command lines of processes running code from the installed extension (its demo agent, supervisor). */
function processesFrom(extensionFolderPrefix: string): string[] {
  return fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((pid) => {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        return cmdline.includes(extensionFolderPrefix) ? [`${pid}: ${cmdline}`] : [];
      } catch {
        return [];
      }
    });
}

describe('an untrusted workspace (Restricted Mode)', function () {
  this.timeout(60_000);
  const installed = path.join(process.env.PA_VSIX_EXTENSIONS_DIR ?? '/nonexistent', `${extensionId}-`);
  const planFile = () => path.join(workspaceDir(), 'feature.agents.json');

  function assertNothingStarted(): void {
    assert.deepEqual(git('branch', '--list', '--format=%(refname:short)').split('\n'), ['main'], 'no agent branch');
    assert.equal(
      git('worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
      'no worktree',
    );
    assert.ok(!fs.existsSync(`${workspaceDir()}.worktrees`), 'no worktree folder beside the repository');
    assert.equal(git('for-each-ref', 'refs/parallel-agents/'), '', 'no saved work refs');
    assert.deepEqual(processesFrom(installed), [], "no process runs the extension's code");
    assert.equal(
      git('status', '--porcelain', '--untracked-files=all'),
      '?? feature.agents.json',
      "the workspace holds only the test's plan file",
    );
  }

  before(() => {
    assert.ok(process.env.PA_VSIX_EXTENSIONS_DIR, 'runs against the installed .vsix (PA_VSIX_EXTENSIONS_DIR)');
    fs.writeFileSync(
      planFile(),
      JSON.stringify({ title: 'Untrusted plan', tasks: [{ id: 'a', prompt: 'create a.txt: a' }] }),
    );
  });

  after(() => fs.rmSync(planFile(), { force: true }));

  it('is untrusted; the extension is loaded, but of its commands only those that run nothing exist', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
    assert.ok(extension, 'supported: "limited" loads the extension');
    await extension.activate();
    assert.equal(extension.isActive, true);
    const contributed = (
      extension.packageJSON as { contributes: { commands: { command: string }[] } }
    ).contributes.commands.map((c) => c.command);
    assert.ok(contributed.length > 20, `${contributed.length} commands contributed`);
    const registered = await vscode.commands.getCommands(true);
    assert.deepEqual(contributed.filter((c) => registered.includes(c)).sort(), readOnlyCommands);
    // Nor any other command of ours, but those VS Code makes for the view itself (parallelAgents.agents.*).
    const ours = registered.filter((c) => c.startsWith('parallelAgents.') && !c.startsWith('parallelAgents.agents.'));
    assert.deepEqual(ours.sort(), readOnlyCommands);
  });

  it('Dispatch, Try Demo and Dispatch Plan start nothing: no process, worktree, branch or state', async () => {
    const attempts: Array<[string, unknown]> = [
      [
        'parallelAgents.dispatch',
        { prompt: 'create notes.txt: hi', profile: 'demo', isolation: 'worktree', title: 'Untrusted' },
      ],
      [
        'parallelAgents.dispatch',
        { prompt: 'create notes.txt: hi', profile: 'demo', isolation: 'terminal', title: 'Untrusted terminal' },
      ],
      ['parallelAgents.tryDemo', undefined],
      ['parallelAgents.dispatchPlan', vscode.Uri.file(planFile())],
      [
        'parallelAgents.dispatchPlan',
        { plan: { title: 'Inline plan', tasks: [{ id: 'b', prompt: 'create b.txt: b' }] } },
      ],
    ];
    for (const [command, arg] of attempts) {
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand(command, arg)),
        new RegExp(`command '${command.replace('.', '\\.')}' not found`),
      );
    }
    // The API the extension returns starts nothing either, and it says why.
    const api = await vscode.extensions.getExtension<ParallelAgentsApi>(extensionId)!.activate();
    await assert.rejects(
      api.dispatch({ prompt: 'create notes.txt: hi', profile: 'demo', isolation: 'worktree', title: 'Untrusted API' }),
      /trust this workspace/,
    );
    assert.deepEqual(api.agents(), []);
    // The view lists what the registry records (test/vsix/trustWindow.ts writeRegistryFixture), read-only.
    assert.deepEqual(
      api.viewSnapshot().map((r) => [r.label, r.contextValue, r.children.length]),
      [
        ['Restricted Mode: read-only, nothing runs', 'readonly.notice', 0],
        ['Recorded before this window', 'readonly.agent', 0],
      ],
    );
    // The commands that do exist show the log and the view, and run nothing.
    for (const command of readOnlyCommands) {
      await vscode.commands.executeCommand(command);
    }
    assert.equal(vscode.workspace.isTrusted, false);
    assertNothingStarted();
  });

  it('the window says why; Manage Workspace Trust → Trust there, and every command exists and the demo agent runs', async function () {
    this.timeout(300_000);
    let granted = false;
    const listener = vscode.workspace.onDidGrantWorkspaceTrust(() => (granted = true));
    try {
      // test/vsix/trustWindow.ts: the banner, the view's welcome, the palette, then the trust button.
      await windowInterlude();
      await waitFor('trust to be granted', () => granted && vscode.workspace.isTrusted);
    } finally {
      listener.dispose();
    }
    const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId)!;
    const contributed = (
      extension.packageJSON as { contributes: { commands: { command: string }[] } }
    ).contributes.commands.map((c) => c.command);
    let missing = contributed;
    for (const deadline = Date.now() + 20_000; missing.length > 0 && Date.now() < deadline; ) {
      const registered = new Set(await vscode.commands.getCommands(true));
      missing = contributed.filter((c) => !registered.has(c));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(missing, [], 'every contributed command is registered once trust is granted');
    const api = await extension.activate();
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create docs/trusted.md: # Trusted now',
      profile: 'demo',
      isolation: 'worktree',
      title: 'After trust',
    });
    assert.ok(id, 'dispatch returns the agent id');
    const done = await waitFor('the agent to finish', () => {
      const a = api.agents().find((x) => x.id === id);
      return a && !['queued', 'preparing', 'running'].includes(a.status) && a;
    });
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(fs.readFileSync(path.join(done.worktreePath!, 'docs/trusted.md'), 'utf8').trim(), '# Trusted now');
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
  });
});
