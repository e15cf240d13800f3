// The extension in a real VS Code (code-server's extension host), dispatching the real demo agent
// into real git worktrees of the harness's temporary repository.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { extensionId, git, waitFor, workspaceDir } from './helpers';

describe('Parallel Agents in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;

  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;
  const settled = (id: string) =>
    waitFor(`agent ${id} to finish`, () => !['preparing', 'running'].includes(agent(id)?.status) && agent(id));

  before(async () => {
    const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
    assert.ok(extension, `${extensionId} is installed`);
    api = await extension.activate();
  });

  it('activates and returns its API', () => {
    assert.equal(typeof api.dispatch, 'function');
    assert.ok(Array.isArray(api.agents()));
    assert.equal(typeof api.activationMs, 'number');
  });

  it('registers every command it contributes, and contributes every command it registers', async () => {
    const pkg = vscode.extensions.getExtension(extensionId)!.packageJSON as {
      contributes: { commands: { command: string }[] };
    };
    const contributed = pkg.contributes.commands.map((c) => c.command).sort();
    // VS Code itself registers "<viewId>.*" commands for each contributed view.
    const registered = (await vscode.commands.getCommands(true))
      .filter((c) => c.startsWith('parallelAgents.') && !c.startsWith('parallelAgents.agents.'))
      .sort();
    assert.deepEqual(registered, contributed);
  });

  it('dispatches the demo agent into a worktree, shows it and its files, and opens a diff against the base', async () => {
    const base = git('rev-parse', 'HEAD');
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'replace src/math.js: a + b => b + a\ncreate docs/guide.md: # Guide\ndelete package.json',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Refactor math',
    });
    assert.ok(id, 'dispatch returns the agent id');
    const started = agent(id);
    assert.equal(started.branch, 'agents/refactor-math');
    assert.equal(started.baseSha, base);
    assert.ok(fs.existsSync(started.worktreePath!), 'worktree folder exists');
    assert.match(git('branch', '--list', 'agents/refactor-math'), /agents\/refactor-math/);
    assert.equal(path.dirname(started.worktreePath!), `${workspaceDir()}.worktrees`);

    const done = await settled(id);
    assert.equal(done.status, 'succeeded', done.error);
    const spawns = api.gitSpawns();
    assert.ok(spawns && spawns.served > 0, 'git ran from the spawn worker thread in the extension host');
    assert.equal(spawns.losses, 0, 'the spawn worker never stopped');
    const changes = await waitFor(
      'three changed files',
      () => agent(id).changedFiles.length === 3 && agent(id).changedFiles,
    );
    assert.deepEqual(changes.map((f) => `${f.kind} ${f.path}`).sort(), [
      'deleted package.json',
      'modified src/math.js',
      'untracked docs/guide.md',
    ]);

    const row = api.viewSnapshot().find((r) => r.label === 'Refactor math');
    assert.ok(row, 'the Agents view lists the agent');
    assert.match(row.description, /^demo · succeeded · \d+s$/);
    assert.equal(row.contextValue, 'agent.succeeded.worktree.headless');
    assert.deepEqual(row.children.map((c) => c.label).sort(), ['guide.md', 'math.js', 'package.json']);

    await vscode.commands.executeCommand('parallelAgents.openChange', { agentId: id, path: 'src/math.js' });
    const input = await waitFor('a diff tab', () => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      return tab?.input instanceof vscode.TabInputTextDiff && tab.input;
    });
    assert.equal(input.original.scheme, 'parallel-agents-base');
    assert.equal(input.modified.scheme, 'file');
    assert.equal(input.modified.fsPath, path.join(started.worktreePath!, 'src/math.js'));
    const left = await vscode.workspace.openTextDocument(input.original);
    assert.equal(left.getText(), 'exports.add = (a, b) => a + b;\n');
    const right = await vscode.workspace.openTextDocument(input.modified);
    assert.equal(right.getText(), 'exports.add = (a, b) => b + a;\n');

    await vscode.commands.executeCommand('parallelAgents.openChange', { agentId: id, path: 'package.json' });
    const deleted = await waitFor('the deleted file diff', () => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      return (
        tab?.input instanceof vscode.TabInputTextDiff && tab.input.original.path.endsWith('package.json') && tab.input
      );
    });
    assert.equal(
      (await vscode.workspace.openTextDocument(deleted.modified)).getText(),
      '',
      'a deleted file has an empty right side',
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('updates the change list while the agent works', async () => {
    const id = await api.dispatch({
      prompt: 'create first.txt: 1\nsleep 3\ncreate second.txt: 2\nsleep 30',
      profile: 'demo',
      title: 'Live changes',
    });
    await waitFor(
      'the first file while running',
      () => agent(id).status === 'running' && agent(id).changedFiles.some((f) => f.path === 'first.txt'),
      15000,
    );
    await waitFor(
      'the second file while running',
      () => agent(id).status === 'running' && agent(id).changedFiles.some((f) => f.path === 'second.txt'),
      20000,
    );
    await vscode.commands.executeCommand('parallelAgents.stop', id);
    assert.equal(agent(id).status, 'stopped');
  });

  it("streams an agent's output live into its output view", async () => {
    const id = await api.dispatch({
      prompt: 'print first-line\nsleep 4\nprint second-line\nsleep 30',
      profile: 'demo',
      title: 'Chatty',
    });
    await waitFor(
      'the first line in the log',
      () =>
        agent(id).status === 'running' &&
        fs.existsSync(agent(id).logPath!) &&
        fs.readFileSync(agent(id).logPath!, 'utf8').includes('first-line'),
    );
    await vscode.commands.executeCommand('parallelAgents.showOutput', id);
    const outputText = () =>
      vscode.workspace.textDocuments
        .filter((d) => d.uri.scheme === 'output')
        .map((d) => d.getText())
        .join('\n');
    await waitFor('the output view with the log so far', () => outputText().includes('first-line'), 10000);
    assert.ok(!outputText().includes('second-line'), 'the second line is not printed yet');
    await waitFor('the second line, streamed live', () => outputText().includes('second-line'), 10000);
    await vscode.commands.executeCommand('parallelAgents.stop', id);
  });

  it('stops a long-running agent within seconds', async () => {
    const id = await api.dispatch({ prompt: 'sleep 30', profile: 'demo', title: 'Sleeper' });
    await waitFor('running', () => agent(id).status === 'running');
    const t0 = Date.now();
    await vscode.commands.executeCommand('parallelAgents.stop', { id });
    await waitFor('stopped', () => agent(id).status === 'stopped', 10000);
    assert.ok(Date.now() - t0 < 10000, `stopped in ${Date.now() - t0} ms`);
  });

  it('reports a missing executable clearly and leaves no worktree, branch or agent behind', async () => {
    const before = api.agents().length;
    const worktrees = git('worktree', 'list', '--porcelain');
    await assert.rejects(
      api.dispatch({ prompt: 'fix it', profile: 'aider', title: 'Needs aider' }),
      /aider was not found on PATH — install it or edit parallelAgents\.profiles/,
    );
    // Through the command, the error becomes a message and the command returns nothing.
    assert.equal(
      await vscode.commands.executeCommand('parallelAgents.dispatch', {
        prompt: 'fix it',
        profile: 'aider',
        title: 'Needs aider',
      }),
      undefined,
    );
    assert.equal(api.agents().length, before);
    assert.equal(git('worktree', 'list', '--porcelain'), worktrees);
    assert.equal(git('branch', '--list', 'agents/needs-aider*'), '');
    assert.ok(!fs.existsSync(path.join(`${workspaceDir()}.worktrees`, 'needs-aider')));
  });

  it('runs a terminal-mode agent as the process of a terminal in the workspace', async () => {
    const id = await api.dispatch({
      prompt: 'create from-terminal.txt: made in a terminal',
      profile: 'demo',
      isolation: 'terminal',
      title: 'Terminal agent',
    });
    const record = agent(id);
    assert.equal(record.mode, 'terminal');
    assert.equal(record.worktreePath, undefined);
    assert.equal(record.cwd, workspaceDir());
    const terminal = vscode.window.terminals.find((t) => t.name === 'Agent: Terminal agent');
    assert.ok(terminal, 'a terminal named after the agent exists');
    // Not transient (VS Code revives it after a reload), named by the agent's id in its env, its pid kept in the record.
    const options = terminal.creationOptions as vscode.TerminalOptions;
    assert.notEqual((options as { isTransient?: boolean }).isTransient, true);
    assert.equal(options.env?.PARALLEL_AGENTS_AGENT_ID, id);
    const pid = await terminal.processId;
    const done = await settled(id);
    assert.equal(done.terminalPid, pid);
    assert.equal(done.status, 'succeeded', done.error);
    const file = path.join(workspaceDir(), 'from-terminal.txt');
    assert.equal(fs.readFileSync(file, 'utf8').trim(), 'made in a terminal');
    fs.rmSync(file);
  });

  it('reviews, accepts a file, follows up, merges, and warns about overlapping agents', async () => {
    const a = await api.dispatch({
      prompt: 'create shared.txt: from A\ncreate only-a.txt: a',
      profile: 'demo',
      title: 'Overlap A',
    });
    const b = await api.dispatch({ prompt: 'create shared.txt: from B', profile: 'demo', title: 'Overlap B' });
    await settled(a);
    await settled(b);
    const rows = await waitFor('overlap warnings on both agents', () => {
      const snapshot = api.viewSnapshot().filter((r) => r.label.startsWith('Overlap '));
      return snapshot.length === 2 && snapshot.every((r) => r.description.includes('overlaps')) && snapshot;
    });
    assert.ok(
      !rows
        .find((r) => r.label === 'Overlap A')!
        .children.find((c) => c.label === 'only-a.txt')!
        .description.includes('overlaps'),
    );

    await vscode.commands.executeCommand('parallelAgents.reviewAll', a);
    const multi = await waitFor('the multi-file diff editor', () => {
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      return tab?.label.includes('Overlap A') && tab;
    });
    assert.ok(!(multi.input instanceof vscode.TabInputTextDiff), 'one editor for all files, not a single diff');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');

    await vscode.commands.executeCommand('parallelAgents.acceptFile', { agentId: a, path: 'only-a.txt' });
    assert.equal(fs.readFileSync(path.join(workspaceDir(), 'only-a.txt'), 'utf8'), 'a');
    fs.rmSync(path.join(workspaceDir(), 'only-a.txt'));

    await vscode.commands.executeCommand('parallelAgents.followUp', { id: b, prompt: 'append shared.txt: , again' });
    const again = await settled(b);
    assert.deepEqual(again.followUps, ['append shared.txt: , again']);
    assert.equal(fs.readFileSync(path.join(again.worktreePath!, 'shared.txt'), 'utf8'), 'from B, again');

    const merged = await vscode.commands.executeCommand<{ kind: string }>('parallelAgents.merge', {
      id: a,
      confirm: false,
      commit: true,
    });
    assert.equal(merged.kind, 'merged');
    assert.equal(agent(a).status, 'merged');
    assert.equal(git('show', 'HEAD:shared.txt'), 'from A');
    const conflict = await vscode.commands.executeCommand<{ kind: string; files: string[] }>('parallelAgents.merge', {
      id: b,
      confirm: false,
      commit: true,
    });
    assert.deepEqual(conflict, { kind: 'conflicts', files: ['shared.txt'], target: 'main' });
    assert.equal(git('status', '--porcelain'), '', 'a forecast conflict leaves the workspace untouched');
    const report = await vscode.commands.executeCommand<{ repos: { conflicts: unknown[] }[] }>(
      'parallelAgents.forecastConflicts',
      { quiet: true },
    );
    assert.equal(report.repos.length, 1);
    assert.ok(report.repos[0].conflicts.length >= 1, 'the forecast names the conflict with the current branch');
  });

  it('accepts added, modified, deleted and renamed files into the workspace, and reverts a file in the agent', async () => {
    const id = await api.dispatch({
      prompt:
        'create added.txt: new\nreplace src/math.js: a + b => a - b\ndelete src/greet.js\nrename README.md -> README.txt\nappend package.json: \n',
      profile: 'demo',
      title: 'Accept each kind',
    });
    const done = await settled(id);
    const kinds = Object.fromEntries(done.changedFiles.map((f) => [f.path, f.kind]));
    assert.equal(kinds['src/greet.js'], 'deleted');
    assert.equal(kinds['src/math.js'], 'modified');
    const renamed = done.changedFiles.find((f) => f.oldPath === 'README.md');
    const accept = (p: string) => vscode.commands.executeCommand('parallelAgents.acceptFile', { agentId: id, path: p });
    await accept('added.txt');
    await accept('src/math.js');
    await accept('src/greet.js');
    // Untracked renames show as a deleted file plus a new one; a detected rename is one row.
    if (renamed) {
      await accept(renamed.path);
    } else {
      await accept('README.md');
      await accept('README.txt');
    }
    const ws = workspaceDir();
    assert.equal(fs.readFileSync(path.join(ws, 'added.txt'), 'utf8'), 'new');
    assert.equal(fs.readFileSync(path.join(ws, 'src/math.js'), 'utf8'), 'exports.add = (a, b) => a - b;\n');
    assert.ok(!fs.existsSync(path.join(ws, 'src/greet.js')));
    assert.ok(!fs.existsSync(path.join(ws, 'README.md')));
    assert.ok(fs.existsSync(path.join(ws, 'README.txt')));
    git('checkout', '--', '.');
    git('clean', '-fdq');

    // Revert in the agent, from the diff editor's title bar (no argument: the active agent diff).
    await vscode.commands.executeCommand('parallelAgents.openChange', { agentId: id, path: 'src/math.js' });
    await waitFor(
      'the agent diff',
      () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff,
    );
    await vscode.commands.executeCommand('parallelAgents.revertFile');
    assert.equal(
      fs.readFileSync(path.join(done.worktreePath!, 'src/math.js'), 'utf8'),
      'exports.add = (a, b) => a + b;\n',
    );
    await waitFor(
      'math.js to leave the change list',
      () => !agent(id).changedFiles.some((f) => f.path === 'src/math.js'),
    );
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('discards an agent without losing its work, and restores it', async () => {
    const id = await api.dispatch({ prompt: 'create keep.txt: precious', profile: 'demo', title: 'Throwaway' });
    const done = await settled(id);
    await vscode.commands.executeCommand('parallelAgents.discard', { id, confirm: false });
    assert.ok(!fs.existsSync(done.worktreePath!));
    assert.equal(git('branch', '--list', done.branch!), '');
    assert.equal(agent(id).status, 'discarded');
    assert.ok(git('rev-parse', '--verify', `refs/parallel-agents/saved/${id}`));
    assert.equal(
      api.viewSnapshot().find((r) => r.label === 'Throwaway')?.contextValue,
      'agent.discarded.worktree.headless',
    );
    await vscode.commands.executeCommand('parallelAgents.restore', id);
    assert.equal(fs.readFileSync(path.join(done.worktreePath!, 'keep.txt'), 'utf8'), 'precious');
    assert.equal(agent(id).status, 'succeeded');
  });
});
