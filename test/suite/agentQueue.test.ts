// parallelAgents.maxConcurrentAgents in a real VS Code: a dispatch beyond the cap waits as queued
// (its row says so, with its place), raising the setting starts it at once (the host's configuration
// listener), and Stop on a queued agent cancels it before anything of it exists.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, git, waitFor } from './helpers';

describe('The dispatch queue (parallelAgents.maxConcurrentAgents) in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const config = () => vscode.workspace.getConfiguration('parallelAgents');
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;
  const dispatch = (prompt: string, title: string) =>
    vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt,
      profile: 'demo',
      isolation: 'worktree',
      title,
    });
  const stop = (id: string) => vscode.commands.executeCommand('parallelAgents.stop', id);

  before(async () => {
    api = await activateApi();
    await config().update('maxConcurrentAgents', 1, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await config().update('maxConcurrentAgents', undefined, vscode.ConfigurationTarget.Global);
  });

  it('queues beyond the cap, shows it on the row, and starts it when the cap is raised', async () => {
    const live = await dispatch('sleep 30\n', 'Queue holder');
    const waiting = await dispatch('create queued.txt: q\n', 'Queue waiter');
    assert.equal(agent(live).status, 'running');
    assert.equal(agent(waiting).status, 'queued');
    assert.equal(agent(waiting).queuedAtCap, 1);
    const row = await waitFor('the queued row', () =>
      api.viewSnapshot().find((r) => r.label === 'Queue waiter' && r.contextValue.startsWith('agent.queued.')),
    );
    assert.match(row.description, /queued \(#1\)/);
    assert.doesNotMatch(git('branch', '--list'), /queue-waiter/);
    await config().update('maxConcurrentAgents', 2, vscode.ConfigurationTarget.Global);
    const done = await waitFor('the queued agent to run and succeed', () => agent(waiting).status === 'succeeded');
    assert.ok(done);
    assert.equal(agent(live).status, 'running', 'it started while the first still ran');
    assert.match(git('branch', '--list'), /queue-waiter/);
    await stop(live);
    await waitFor('the holder to stop', () => agent(live).status === 'stopped');
  });

  it('Stop on a queued agent cancels it: stopped, no branch, never started', async () => {
    await config().update('maxConcurrentAgents', 1, vscode.ConfigurationTarget.Global);
    const live = await dispatch('sleep 30\n', 'Cancel holder');
    const waiting = await dispatch('create cancelled.txt: c\n', 'Cancel me');
    assert.equal(agent(waiting).status, 'queued');
    await stop(waiting);
    await waitFor('the queued agent to be stopped', () => agent(waiting).status === 'stopped');
    await stop(live);
    await waitFor('the holder to stop', () => agent(live).status === 'stopped');
    assert.equal(agent(waiting).status, 'stopped');
    assert.equal(agent(waiting).startedAt, undefined);
    assert.doesNotMatch(git('branch', '--list'), /cancel-me/);
  });
  it('an agent that hits its usage limit shows paused: quota with the reset on its row, then resumes by itself and succeeds', async () => {
    await config().update('maxConcurrentAgents', undefined, vscode.ConfigurationTarget.Global);
    const id = await dispatch('create first.txt: 1\nratelimit: resets in 3s\ncreate second.txt: 2\n', 'Limited one');
    const row = await waitFor('the paused row', () =>
      api.viewSnapshot().find((r) => r.label === 'Limited one' && /paused: quota/.test(r.description)),
    );
    assert.match(row.description, /paused: quota \(resets /);
    assert.equal(agent(id).status, 'paused');
    assert.ok(agent(id).quota?.resetGiven, 'the reset time the message gave');
    await waitFor('the resumed agent to succeed', () => agent(id).status === 'succeeded', 60000);
    const worktree = agent(id).worktreePath!;
    assert.equal(git('-C', worktree, 'status', '--porcelain').includes('second.txt'), true, 'the rest of the task ran');
  });
});
