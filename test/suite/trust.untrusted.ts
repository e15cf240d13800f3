// Restricted Mode (harness/runVsix.ts --only trust): the installed extension in a workspace that
// is not trusted. `capabilities.untrustedWorkspaces.supported: false` means VS Code does not load
// it at all: its commands do not exist, so Dispatch, Try Demo and Dispatch Plan start nothing: no
// process, worktree, branch or saved state. Why, the user is told by the window (checked with
// Playwright in test/vsix/trustWindow.ts): the Restricted Mode banner and the extension's
// untrustedWorkspaces.description on its entry in the Extensions view.
// Not a *.test.ts: the ordinary suite runs in a trusted workspace.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { extensionId, git, workspaceDir } from './helpers';

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

  it('is untrusted, and the extension is not loaded: none of its commands exist', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    assert.equal(vscode.extensions.getExtension(extensionId), undefined);
    const ours = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('parallelAgents.'));
    assert.deepEqual(ours, []);
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
    assert.equal(vscode.workspace.isTrusted, false);
    assertNothingStarted();
  });
});
