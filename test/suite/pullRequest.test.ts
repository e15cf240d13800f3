// Create Pull Request in a real VS Code, with the real demo agent and real git: a repository without
// a remote is refused with a clear message and nothing pushed; with a GitHub origin whose push URL is
// a local bare repository, no `gh` on PATH and no GitHub Pull Requests extension, the agent's branch
// arrives in the bare repository, the compare page's link is on the clipboard and the message says so.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor, workspaceDir } from './helpers';

type Window = { showErrorMessage: unknown; showInformationMessage: unknown };

/**
 * PATH without `command`: each folder holding it is replaced by a folder of links to everything else
 * in it (so git and node stay reachable when gh sits beside them, as in /usr/bin).
 */
function pathWithout(command: string, scratch: string): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .map((dir, i) => {
      if (!fs.existsSync(path.join(dir, command))) {
        return dir;
      }
      const shadow = path.join(scratch, `path-${i}`);
      fs.mkdirSync(shadow);
      for (const name of fs.readdirSync(dir).filter((n) => n !== command)) {
        fs.symlinkSync(path.join(dir, name), path.join(shadow, name));
      }
      return shadow;
    })
    .join(path.delimiter);
}

describe('Create Pull Request in a real VS Code', function () {
  this.timeout(90_000);
  let api: ParallelAgentsApi;
  let scratch: string;
  const originalPath = process.env.PATH;
  const original = {
    showErrorMessage: vscode.window.showErrorMessage,
    showInformationMessage: vscode.window.showInformationMessage,
  };
  const shown: { kind: 'error' | 'info'; text: string }[] = [];
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;

  /** A finished demo agent whose work is committed on its branch. */
  async function committedAgent(title: string, file: string): Promise<AgentRecord> {
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: `create ${file}: ${title}\\n\ncommit: ${title}`,
      profile: 'demo',
      isolation: 'worktree',
      title,
    });
    return waitFor(`"${title}" to finish`, () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.changedFiles.length === 1 && r;
    });
  }

  before(async () => {
    api = await activateApi();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-pull-request-'));
    // The extension shares this vscode API object: the messages it shows are recorded here.
    (vscode.window as Window).showErrorMessage = (text: string, ...rest: never[]) => {
      shown.push({ kind: 'error', text });
      return original.showErrorMessage(text, ...rest);
    };
    (vscode.window as Window).showInformationMessage = (text: string, ...rest: never[]) => {
      shown.push({ kind: 'info', text });
      return original.showInformationMessage(text, ...rest);
    };
  });

  after(() => {
    Object.assign(vscode.window as Window, original);
    process.env.PATH = originalPath;
    if (git('remote').split('\n').includes('origin')) {
      git('remote', 'remove', 'origin');
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses a repository without a remote with a clear message, pushing nothing', async () => {
    assert.equal(git('remote'), '', 'the harness repository has no remote');
    const record = await committedAgent('No remote to push to', 'pr/none.txt');
    const refs = git('for-each-ref');
    shown.length = 0;
    const result = await vscode.commands.executeCommand('parallelAgents.createPullRequest', {
      id: record.id,
      confirm: false,
    });
    assert.equal(result, undefined);
    assert.deepEqual(shown, [
      {
        kind: 'error',
        text:
          `Cannot push ${record.branch}: the repository at ${workspaceDir()} has no remote. ` +
          'Add one (git remote add origin <url>), then try again.',
      },
    ]);
    assert.equal(git('for-each-ref'), refs, 'no ref made or moved');
    assert.equal(git('for-each-ref', '--format=%(upstream)', `refs/heads/${record.branch}`), '', 'no upstream set');
    await vscode.commands.executeCommand('parallelAgents.discard', { id: record.id, confirm: false });
  });

  it('pushes to the push URL, copies the GitHub compare link without gh or the PR extension', async () => {
    const bare = path.join(scratch, 'remote.git');
    execFileSync('git', ['init', '--quiet', '--bare', bare]);
    git('remote', 'add', 'origin', 'https://github.com/o/r.git');
    git('config', 'remote.origin.pushurl', bare);
    git('push', '--quiet', 'origin', 'main'); // the base branch is on the remote (refs/remotes/origin/main)
    process.env.PATH = pathWithout('gh', scratch);
    assert.equal(vscode.extensions.getExtension('GitHub.vscode-pull-request-github'), undefined);
    await vscode.env.clipboard.writeText('before');

    const record = await committedAgent('Pushed for review', 'pr/pushed.txt');
    const branch = record.branch!;
    shown.length = 0;
    const result = await vscode.commands.executeCommand('parallelAgents.createPullRequest', {
      id: record.id,
      confirm: false,
    });
    const url = `https://github.com/o/r/compare/main...${branch.split('/').map(encodeURIComponent).join('/')}?expand=1`;
    assert.deepEqual(result, { remote: 'origin', route: 'compareUrl', url });
    const pushed = execFileSync('git', ['--git-dir', bare, 'rev-parse', `refs/heads/${branch}`], { encoding: 'utf8' });
    assert.equal(pushed.trim(), git('rev-parse', `refs/heads/${branch}`), 'the branch arrived in the bare repository');
    assert.equal(
      execFileSync('git', ['--git-dir', bare, 'show', `${branch}:pr/pushed.txt`], { encoding: 'utf8' }),
      'Pushed for review\n',
    );
    assert.equal(git('rev-parse', '--abbrev-ref', `${branch}@{upstream}`), `origin/${branch}`);
    assert.equal(await vscode.env.clipboard.readText(), url);
    assert.deepEqual(shown, [
      {
        kind: 'info',
        text:
          `Pushed ${branch} to origin. Neither the GitHub Pull Requests extension nor gh is available: ` +
          `the link to open the pull request is copied: ${url}`,
      },
    ]);
    await vscode.commands.executeCommand('parallelAgents.discard', { id: record.id, confirm: false });
  });
});
