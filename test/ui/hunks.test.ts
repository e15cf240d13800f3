// Accept and Revert Selected Lines through the real UI, like a person: open an agent's diff from
// the Agents view, select two lines of one hunk on the agent's side, Accept Selected Lines into
// Workspace from the editor's context menu; put the cursor in another hunk, Revert Selected Lines in
// Agent's Worktree from the diff title's "..." menu. The files are compared byte for byte.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { answerQuickInput, runCommand, widenSideBar } from '../harness/palette';
import { waitFor } from '../harness/waitFor';
import { openWorkbench, type Workbench } from '../harness/workbench';

const base = 'uno\n\tdos\ntres\ncuatro\ncinco\nseis\nsiete\n';
// Lines 4-6 are one hunk (an insertion), line 10 another (a changed line).
const agent = 'uno\n\tdos\ntres\nnuevo 1\n\tnuevo 2 ñ\nnuevo 3\ncuatro\ncinco\nseis\nSIETE ✓\n';
const escaped = (text: string) => text.replace(/\n/g, '\\n').replace(/\t/g, '\\t');

/** Clicks a menu item of the open context menu until the menu closes (the workbench may drop an early click). */
async function clickMenuItem(page: Page, open: () => Promise<void>, label: string): Promise<void> {
  const item = page.locator('.context-view .action-label', { hasText: label });
  await waitFor(
    `the menu item "${label}"`,
    async () => {
      if ((await item.count()) === 0) {
        await open();
      }
      await item
        .first()
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      await page.waitForTimeout(300);
      return (await page.locator('.context-view .monaco-menu').count()) === 0;
    },
    { timeoutMs: 30_000, everyMs: 500 },
  );
}

describe('Accept and Revert Selected Lines of an agent diff through the real UI', function () {
  this.timeout(240_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      files: { 'src/list.txt': base },
      viewport: { width: 1600, height: 900 },
      settings: {
        'diffEditor.useInlineViewWhenSpaceIsLimited': false,
        'diffEditor.renderSideBySide': true,
        // The right click that opens the context menu keeps the selection wherever it lands.
        'editor.rightClickMovesCursor': false,
      },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot('hunks-failure').catch(() => undefined);
    }
  });

  it('accepts two selected lines of a hunk into the workspace, then reverts another hunk in the worktree', async () => {
    const { page, repo } = wb;
    await widenSideBar(page, 120);
    const icon = page.locator('.activitybar [aria-label^="Parallel Agents"]').first();
    await icon.waitFor({ timeout: 30_000 });
    await icon.click();
    await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).waitFor({ timeout: 30_000 });

    await runCommand(page, 'Parallel Agents: Dispatch Agent');
    await answerQuickInput(page, '(1/4)', `create src/list.txt: ${escaped(agent)}`);
    await answerQuickInput(page, '(2/4)', 'demo');
    await answerQuickInput(page, '(3/4)', undefined);
    await answerQuickInput(page, '(4/4)', 'Number the list');

    const row = page.locator('.monaco-list-row[aria-level="1"]', { hasText: 'Number the list' });
    await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    await row.click();
    const fileRow = page.locator('.monaco-list-row[aria-level="2"]', { hasText: 'list.txt' });
    await fileRow.waitFor({ timeout: 15_000 });
    await fileRow.click();
    const diff = page.locator('.monaco-diff-editor');
    await diff.waitFor({ timeout: 20_000 });
    const modifiedLine = (text: string): Locator =>
      diff.locator('.editor.modified .view-line', { hasText: text }).first();
    await modifiedLine('nuevo 3').waitFor({ timeout: 20_000 });

    const worktree = await waitFor('the agent worktree', async () =>
      (await repo.git('worktree', 'list', '--porcelain'))
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice('worktree '.length))
        .find((p) => p !== repo.dir),
    );
    const workspaceFile = join(repo.dir, 'src', 'list.txt');
    const worktreeFile = join(worktree, 'src', 'list.txt');
    assert.ok(readFileSync(worktreeFile).equals(Buffer.from(agent)), "the agent's file as the demo agent wrote it");

    // Select lines 5 and 6 ("\tnuevo 2 ñ", "nuevo 3") of the three-line hunk on the agent's side.
    await modifiedLine('nuevo 2').click();
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    await clickMenuItem(
      page,
      () => modifiedLine('nuevo 3').click({ button: 'right' }),
      'Accept Selected Lines into Workspace',
    );
    const accepted = 'uno\n\tdos\ntres\n\tnuevo 2 ñ\nnuevo 3\ncuatro\ncinco\nseis\nsiete\n';
    await waitFor('the accepted lines in the workspace file', () =>
      readFileSync(workspaceFile).equals(Buffer.from(accepted)),
    );
    assert.ok(readFileSync(worktreeFile).equals(Buffer.from(agent)), "accepting leaves the agent's file alone");

    // The cursor in the last hunk; Revert Selected Lines from the diff title's "..." menu.
    await modifiedLine('SIETE').click();
    const more = page.locator('.editor-actions .action-label[aria-label^="More Actions"]').first();
    await clickMenuItem(page, () => more.click(), "Revert Selected Lines in Agent's Worktree");
    await waitFor('the reverted hunk in the worktree file', () =>
      readFileSync(worktreeFile).equals(Buffer.from(agent.replace('SIETE ✓\n', 'siete\n'))),
    );
    assert.ok(readFileSync(workspaceFile).equals(Buffer.from(accepted)), 'reverting leaves the workspace alone');
    await wb.screenshot('hunks');
  });
});
