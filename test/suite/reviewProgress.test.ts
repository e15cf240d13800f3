// Review progress in a real VS Code, with the real demo agent: Mark as Viewed shows "1/2 viewed" on
// the agent's row and the mark on the file's row; Review All Changes opens the files not viewed yet
// first; a follow-up run that changes a viewed file makes it unviewed again; Next Agent to Review
// walks the agents waiting for review in the order they finished (not the order they started), and
// the status-bar item names the first of them.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import type { ParallelAgentsApi } from '../../src/extension';
import { reviewQueue } from '../../src/core/review';
import type { ViewRow } from '../../src/ui/agentsView/agentsTreeProvider';
import { activateApi, waitFor } from './helpers';

/** A multi-file diff tab's input (vscode.TabInputTextMultiDiff: in VS Code 1.139, newer than the 1.90 typings). */
interface MultiDiffInput {
  readonly textDiffs: readonly { readonly original: vscode.Uri; readonly modified: vscode.Uri }[];
}
const MultiDiff = (vscode as unknown as { TabInputTextMultiDiff: abstract new () => MultiDiffInput })
  .TabInputTextMultiDiff;

/** The files of the active multi-file diff, in its order (the agent's account, first, left out). */
function reviewedFiles(): string[] | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof MultiDiff
    ? input.textDiffs.filter((d) => d.modified.scheme === 'file').map((d) => path.basename(d.modified.fsPath))
    : undefined;
}

describe('Review progress in a real VS Code', function () {
  this.timeout(120_000);
  let api: ParallelAgentsApi;
  const agent = (id: string): AgentRecord => api.agents().find((a) => a.id === id)!;
  const row = (title: string): ViewRow | undefined => api.viewSnapshot().find((r) => r.label === title);
  const fileRow = (title: string, name: string) => row(title)?.children.find((c) => c.label === name);
  const finished = (id: string, files: number) =>
    waitFor(`"${id}" to finish with ${files} files`, () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.changedFiles.length === files && r;
    });
  const dispatch = (title: string, prompt: string) =>
    vscode.commands.executeCommand<string>('parallelAgents.dispatch', {
      prompt,
      profile: 'demo',
      isolation: 'worktree',
      title,
    });

  before(async () => {
    api = await activateApi();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('counts viewed files on the row, opens the unviewed first, and unviews a file changed again', async () => {
    const title = 'Progress of review';
    const id = await dispatch(title, 'create progress/a.txt: one\\n\ncreate progress/b.txt: two\\n');
    await finished(id, 2);
    assert.equal(row(title)?.description.includes('viewed'), false, 'nothing viewed yet, no count');
    assert.equal(fileRow(title, 'a.txt')?.contextValue, 'agentFile.untracked.unviewed');

    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: id, path: 'progress/a.txt' });
    const marked = await waitFor('the count on the row', () => row(title)?.description.endsWith(' · 1/2 viewed'));
    assert.ok(marked);
    assert.deepEqual(
      row(title)?.children.map((c) => [c.label, c.description, c.contextValue]),
      [
        ['a.txt', '✓ progress', 'agentFile.untracked.viewed'],
        ['b.txt', 'progress', 'agentFile.untracked.unviewed'],
      ],
    );

    // Review All Changes: the file not viewed yet comes first, the viewed one last.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('parallelAgents.reviewAll', id);
    assert.deepEqual(await waitFor('the multi-file diff', reviewedFiles), ['b.txt', 'a.txt']);

    // The agent changes the viewed file again: it is unviewed, and nothing is counted on the row.
    await vscode.commands.executeCommand('parallelAgents.followUp', { id, prompt: 'append progress/a.txt: more\\n' });
    await waitFor('the follow-up to end with a.txt unviewed', () => {
      const r = agent(id);
      return r.status === 'succeeded' && r.followUps?.length === 1 && r.viewedFiles?.['progress/a.txt'] === undefined;
    });
    await waitFor('the row to drop its count', () => row(title)?.description.includes('viewed') === false);
    assert.equal(fileRow(title, 'a.txt')?.contextValue, 'agentFile.untracked.unviewed');
    assert.equal(fileRow(title, 'a.txt')?.description, 'progress');

    // b.txt viewed now, a.txt not: the review opens at a.txt.
    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: id, path: 'progress/b.txt' });
    await waitFor('b.txt viewed', () => row(title)?.description.endsWith(' · 1/2 viewed'));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('parallelAgents.reviewAll', id);
    assert.deepEqual(await waitFor('the multi-file diff', reviewedFiles), ['a.txt', 'b.txt']);

    // All viewed: the agent leaves the review queue (its row says 2/2).
    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: id, path: 'progress/a.txt' });
    await waitFor('2/2 viewed', () => row(title)?.description.endsWith(' · 2/2 viewed'));
  });

  it('Next Agent to Review walks the agents in the order they finished; the status bar names the first', async () => {
    // Started first, finished last.
    const late = await dispatch('Finishes late', 'sleep 8\ncreate queue/late.txt: late\\n');
    await waitFor('the late agent to run', () => agent(late).status === 'running');
    const early = await dispatch('Finishes early', 'create queue/early.txt: early\\n');
    await finished(early, 1);
    await finished(late, 1);
    assert.ok(agent(early).endedAt! < agent(late).endedAt!, 'the early agent finished first');
    assert.ok(agent(late).createdAt < agent(early).createdAt, 'the late agent was dispatched first');

    // Agents left by other tests of this window may wait too: walk until the early one comes up.
    const waiting = reviewQueue(api.agents()).length;
    const shown: string[] = [];
    for (let i = 0; i <= waiting && shown[shown.length - 1] !== early; i++) {
      shown.push((await vscode.commands.executeCommand<string>('parallelAgents.nextToReview'))!);
    }
    assert.equal(shown[shown.length - 1], early, `the early agent comes up within ${waiting} steps`);
    assert.deepEqual(reviewedFiles(), ['early.txt'], 'its review is open');
    assert.equal(await vscode.commands.executeCommand<string>('parallelAgents.nextToReview'), late);
    assert.deepEqual(reviewedFiles(), ['late.txt']);
    // Nothing finished after the late one: the walk starts over at the first to finish, not at the early one.
    const first = await vscode.commands.executeCommand<string>('parallelAgents.nextToReview');
    const queue = reviewQueue(api.agents());
    assert.equal(first, queue[0].id);
    assert.ok(queue.findIndex((r) => r.id === early) < queue.findIndex((r) => r.id === late));

    const bar = api.statusBar();
    assert.ok(bar, 'the status-bar item shows');
    assert.equal(bar.command, 'parallelAgents.nextToReview');
    assert.match(bar.text, /agents? ready for review$/);
    assert.equal(bar.tooltip, `Next Agent to Review: "${queue[0].title}" (${queue.length} waiting)`);

    // Viewing both files takes both agents out of the queue and out of the status bar's count.
    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: early, path: 'queue/early.txt' });
    await vscode.commands.executeCommand('parallelAgents.markViewed', { agentId: late, path: 'queue/late.txt' });
    await waitFor('the status bar to count two fewer waiting', () =>
      queue.length > 2
        ? api.statusBar()?.tooltip.endsWith(`(${queue.length - 2} waiting)`)
        : api.statusBar()?.command === 'parallelAgents.focus',
    );
  });
});
