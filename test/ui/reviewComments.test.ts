// Line comments through the real UI, like a person: the demo agent (a real process) is dispatched
// with the selected lines of an editor; on the agent's side of two of its diffs the gutter's "+"
// opens VS Code's own comment widget, the comment is typed there and added; Send Review to Agent
// from the palette sends both as one follow-up, which the demo agent acts on. Before that, the bad
// inputs: an empty review (palette and row menu) and a comment on a file the agent deleted are
// refused with a message naming why, and neither the workspace, the worktree nor the record changes.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { runCommand, widenSideBar } from '../harness/palette';
import { assertRestored, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { openWorkbench, type Workbench } from '../harness/workbench';
import {
  agentRow,
  agentWorktrees,
  dispatchFileText,
  notification,
  openFileDiff,
  rowMenu,
  showAgentsView,
  storedAgent,
  threadGlyph,
  marginRow,
} from './agentsUi';

const task = 'replace review/a.txt: one => uno\nreplace review/b.txt: alpha => ALPHA\ndelete review/gone.txt\n';
const title = 'Review me';

/** The Accept Hunk / Revert Hunk CodeLenses drawn above the agent's changes: they move the lines when they come. */
async function hunkLenses(diff: Locator): Promise<void> {
  await diff.locator('.editor.modified .codelens-decoration').first().waitFor({ timeout: 20_000 });
}

/**
 * Presses the "+" in the gutter of line `from` on the agent's side and releases it on line `to` (a
 * drag over the gutter comments a range), types `text` into the comment widget that opens and
 * clicks its Add Comment button.
 */
async function comment(page: Page, diff: Locator, from: number, text: string, to = from): Promise<void> {
  const glyph = (line: number) => marginRow(page, diff, line).locator('.comment-range-glyph').first();
  const form = diff.locator('.editor.modified .review-widget .comment-form');
  await waitFor(`the comment widget of lines ${from}-${to}`, async () => {
    if ((await glyph(from).count()) === 0 || (await glyph(to).count()) === 0) {
      return false;
    }
    const [start, end] = [await glyph(from).boundingBox(), await glyph(to).boundingBox()];
    if (!start || !end) {
      return false; // the glyphs are drawn once the commenting ranges are known
    }
    // A line drawn in above (the Accept Hunk / Revert Hunk CodeLens) moves the lines: press only once they stay put.
    await page.waitForTimeout(200);
    const [startNow, endNow] = [await glyph(from).boundingBox(), await glyph(to).boundingBox()];
    if (startNow?.y !== start.y || endNow?.y !== end.y) {
      return false;
    }
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 3 });
    await page.mouse.up();
    // Another press on the glyph would close a widget that is still opening: wait for it first.
    return form
      .waitFor({ timeout: 3_000 })
      .then(() => true)
      .catch(() => false);
  });
  const widget = diff.locator('.editor.modified .review-widget').last();
  await widget.locator('.comment-form .monaco-editor').click();
  await page.keyboard.type(text);
  // The word suggestions the input offers would take an Enter; the button is clicked instead.
  await widget.getByRole('button', { name: 'Add Comment' }).click();
}

describe('Review comments through the real comment widget, sent to the demo agent', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      files: {
        'review/a.txt': 'one\ntwo\nthree\n',
        'review/b.txt': 'alpha\nbeta\n',
        'review/gone.txt': 'bye\n',
        'task.md': task,
      },
      viewport: { width: 1600, height: 900 },
      settings: { 'diffEditor.useInlineViewWhenSpaceIsLimited': false, 'diffEditor.renderSideBySide': true },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot(`review-comments-failure-${this.currentTest.title.slice(0, 20)}`).catch(() => undefined);
    }
  });

  it('refuses an empty review and a comment on a deleted file, changing nothing', async () => {
    const { page } = wb;
    await widenSideBar(page, 120);
    await showAgentsView(page, page.locator('.welcome-view-content', { hasText: 'No agents yet' }));
    // The task is three lines: written in an editor, selected, dispatched.
    await dispatchFileText(page, 'task.md', 'delete review/gone.txt', title);
    await agentRow(page, title).filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });

    const worktree = (await agentWorktrees(wb))[0];
    const before = { repo: recordWorkspace(wb.repo.dir), worktree: recordWorkspace(worktree) };
    const stored = storedAgent(wb, title);

    await runCommand(page, 'Parallel Agents: Send Review to Agent');
    assert.match(await notification(page, 'No agent has a pending review comment'), /Nothing was sent/);
    await rowMenu(page, title, 'Send Review to Agent');
    assert.match(
      await notification(page, `Agent "${title}" has no pending review comment`),
      /comment on lines of its changed files .* Nothing was sent/,
    );

    const diff = await openFileDiff(page, title, 'gone.txt');
    await comment(page, diff, 1, 'why was this removed?');
    assert.match(
      await notification(page, `Agent "${title}" deleted review/gone.txt`),
      /no lines to comment on .* Nothing was changed/,
    );
    assert.equal(await diff.locator('.review-widget').count(), 0, 'the refused draft is gone');

    assertRestored(before.repo, 'the workspace after the refusals');
    assertRestored(before.worktree, 'the worktree after the refusals');
    const now = storedAgent(wb, title);
    assert.equal(now.revision, stored.revision, "the agent's record was not written");
    assert.equal(now.record.comments, undefined);
    assert.equal(now.record.followUps, undefined);
  });

  it('sends comments on two files as one prompt; the demo agent edits the named lines', async () => {
    const { page } = wb;
    const worktree = (await agentWorktrees(wb))[0];

    let diff = await openFileDiff(page, title, 'a.txt');
    await diff.locator('.editor.modified .view-line', { hasText: 'two' }).waitFor();
    await hunkLenses(diff);
    await comment(page, diff, 2, 'replace review/a.txt: two => TWO');
    await threadGlyph(page, diff, 2, 'unresolved').waitFor();

    // A range: a drag over the gutter from line 1 to line 2.
    diff = await openFileDiff(page, title, 'b.txt');
    await diff.locator('.editor.modified .view-line', { hasText: 'ALPHA' }).waitFor();
    await hunkLenses(diff);
    await comment(page, diff, 1, 'replace review/b.txt: beta => BETA', 2);
    await threadGlyph(page, diff, 2, 'unresolved').waitFor();
    assert.deepEqual(
      storedAgent(wb, title).record.comments?.map((c) => [c.path, c.startLine, c.endLine, c.body]),
      [
        ['review/a.txt', 2, 2, 'replace review/a.txt: two => TWO'],
        ['review/b.txt', 1, 2, 'replace review/b.txt: beta => BETA'],
      ],
    );

    await runCommand(page, 'Parallel Agents: Send Review to Agent');
    const done = await waitFor(
      'the review run to end with both comments addressed',
      () => {
        const { record } = storedAgent(wb, title);
        return record.status === 'succeeded' && record.comments?.every((c) => c.addressed) && record;
      },
      { timeoutMs: 60_000 },
    );
    assert.equal(done.followUps?.length, 1, 'one prompt for both comments');
    const prompt = done.followUps![0];
    assert.match(prompt, /review\/a\.txt, line 2:\n {3}> two\n {3}replace review\/a\.txt: two => TWO/);
    assert.match(
      prompt,
      /review\/b\.txt, lines 1-2:\n {3}> ALPHA\n {3}> beta\n {3}replace review\/b\.txt: beta => BETA/,
    );
    // The demo agent received that prompt and did both steps of it in one run.
    const log = readFileSync(done.logPath, 'utf8');
    assert.match(log, /\[demo\] replace review\/a\.txt[\s\S]*\[demo\] replace review\/b\.txt/);
    assert.equal(readFileSync(join(worktree, 'review/a.txt'), 'utf8'), 'uno\nTWO\nthree\n');
    assert.equal(readFileSync(join(worktree, 'review/b.txt'), 'utf8'), 'ALPHA\nBETA\n');
    // The thread on the open diff shows it: resolved, and opened, labelled Addressed.
    const resolved = threadGlyph(page, diff, 2, 'resolved');
    await resolved.waitFor({ timeout: 20_000 });
    await resolved.click();
    await diff.locator('.review-widget', { hasText: 'Addressed: the agent changed these lines' }).waitFor();
    await wb.screenshot('review-comments');
  });
});
