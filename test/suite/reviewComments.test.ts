// Review comments in a real VS Code: Add Comment (the reply box's command) on the agent's side of two
// files, Send Review to Agent, the real demo agent acting on the one follow-up, threads addressed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { activateApi, waitFor } from './helpers';

describe('Review comments in a real VS Code', function () {
  this.timeout(90000);
  let api: ParallelAgentsApi;
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;

  before(async () => {
    api = await activateApi();
  });

  /** What VS Code hands the Add Comment command: the draft thread (its file and lines) and the text typed. */
  function reply(file: string, firstLine: number, lastLine: number, text: string) {
    let disposed = false;
    const thread = {
      uri: vscode.Uri.file(file),
      range: new vscode.Range(firstLine - 1, 0, lastLine - 1, 0),
      dispose: () => (disposed = true),
    };
    return { value: { thread, text }, disposed: () => disposed };
  }

  it('sends comments on two files as one follow-up the demo agent acts on, and marks them addressed', async () => {
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create review/a.txt: one\\ntwo\\nthree\\n\ncreate review/b.txt: alpha\\nbeta\\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Review comments',
    });
    await waitFor('the agent to finish with two files', () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.changedFiles.length === 2 && r;
    });
    const cwd = agent(id).cwd;

    // An empty review: nothing is sent (the refusal is a message; the command resolves).
    await vscode.commands.executeCommand('parallelAgents.sendReview', { id });
    assert.equal(agent(id).followUps, undefined);

    const first = reply(path.join(cwd, 'review/a.txt'), 2, 2, 'replace review/a.txt: two => TWO');
    await vscode.commands.executeCommand('parallelAgents.addReviewComment', first.value);
    const second = reply(path.join(cwd, 'review/b.txt'), 1, 2, 'replace review/b.txt: beta => BETA');
    await vscode.commands.executeCommand('parallelAgents.addReviewComment', second.value);
    assert.ok(first.disposed() && second.disposed(), 'each draft thread gives way to its stored one');
    assert.deepEqual(
      agent(id).comments?.map((c) => [c.path, c.startLine, c.endLine, c.quoted]),
      [
        ['review/a.txt', 2, 2, ['two']],
        ['review/b.txt', 1, 2, ['alpha', 'beta']],
      ],
    );

    await vscode.commands.executeCommand('parallelAgents.sendReview', { id });
    const done = await waitFor('the review run to end with both comments addressed', () => {
      const r = agent(id);
      return r.status === 'succeeded' && (r.comments ?? []).every((c) => c.addressed) && r;
    });
    assert.equal(done.followUps?.length, 1);
    assert.match(done.followUps![0], /review\/a\.txt, line 2:\n {3}> two\n {3}replace review\/a\.txt: two => TWO/);
    assert.match(done.followUps![0], /review\/b\.txt, lines 1-2:\n {3}> alpha\n {3}> beta\n/);
    assert.equal(fs.readFileSync(path.join(cwd, 'review/a.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(fs.readFileSync(path.join(cwd, 'review/b.txt'), 'utf8'), 'alpha\nBETA\n');

    // A comment on a file outside every agent's folder is refused, and nothing is stored.
    const outside = reply(path.join(cwd, '..', 'elsewhere.txt'), 1, 1, 'x');
    await vscode.commands.executeCommand('parallelAgents.addReviewComment', outside.value);
    assert.equal(outside.disposed(), false, 'a refused draft stays');
    assert.equal(agent(id).comments?.length, 2);
  });

  it('Review with Agent: the demo reviewer findings become its pending comments, a bad line a general one', async () => {
    const id = await vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt: 'create reviewed/c.txt: first\\nTODO second\\nthird\\n',
      profile: 'demo',
      isolation: 'worktree',
      title: 'Reviewed by an agent',
    });
    await waitFor(
      'the author to finish',
      () => agent(id).status === 'succeeded' && agent(id).changedFiles.length === 1,
    );
    const outcome = await vscode.commands.executeCommand<{ onLines: number; general: number }>(
      'parallelAgents.reviewWithAgent',
      { id, profile: 'demo', focus: 'print FINDING reviewed/c.txt:99: past the end of the file' },
    );
    assert.deepEqual(outcome && [outcome.onLines, outcome.general], [1, 1]);
    assert.deepEqual(
      agent(id).comments?.map((c) => [c.path, c.startLine, c.body, c.reviewer, c.general ?? false]),
      [
        ['reviewed/c.txt', 2, 'replace reviewed/c.txt: TODO => DONE', 'demo', false],
        ['reviewed/c.txt', 1, 'reviewed/c.txt:99: past the end of the file', 'demo', true],
      ],
    );
    await vscode.commands.executeCommand('parallelAgents.sendReview', { id });
    await waitFor('the author to act on the review', () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.followUps?.length === 1 && (r.comments ?? []).some((c) => c.addressed);
    });
    const cwd = agent(id).cwd;
    assert.equal(fs.readFileSync(path.join(cwd, 'reviewed/c.txt'), 'utf8'), 'first\nDONE second\nthird\n');
    assert.deepEqual(
      agent(id).runs?.map((r) => r.profile),
      ['demo', 'demo'],
    );
  });
});
