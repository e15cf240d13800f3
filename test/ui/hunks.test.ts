// Accept and Revert Selected Lines through the real UI, like a person: open an agent's diff from
// the Agents view, select two lines of one hunk on the agent's side, Accept Selected Lines into
// Workspace from the editor's context menu; put the cursor in another hunk, Revert Selected Lines in
// Agent's Worktree from the diff title's "..." menu. Then the CodeLenses above each change of another
// agent's diff: Accept Hunk on one change, Revert Hunk on another. The files are compared byte for byte.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { answerQuickInput, runCommand, widenSideBar } from '../harness/palette';
import { waitFor } from '../harness/waitFor';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { agentWorktrees, clickMenuItem } from './agentsUi';

const base = 'uno\n\tdos\ntres\ncuatro\ncinco\nseis\nsiete\n';
// Lines 4-6 are one hunk (an insertion), line 10 another (a changed line).
const agent = 'uno\n\tdos\ntres\nnuevo 1\n\tnuevo 2 ñ\nnuevo 3\ncuatro\ncinco\nseis\nSIETE ✓\n';
// Three changes: line 2 changed, line 7 changed, a line added at the end.
const lensBase = 'alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\ngolf\nhotel\n';
const lensAgent = 'alpha\nBRAVO\ncharlie\ndelta\necho\nfoxtrot\nGOLF ✓\nhotel\nindia\n';
const escaped = (text: string) => text.replace(/\n/g, '\\n').replace(/\t/g, '\\t');

/**
 * Clicks the CodeLens titled `title` drawn just above the modified side's line `line` of the open diff
 * (each change has its lenses on the line above its first line).
 */
async function clickLensAbove(page: Page, line: Locator, title: string): Promise<void> {
  const lenses = page.locator('.monaco-diff-editor .editor.modified .codelens-decoration');
  await waitFor(
    `the "${title}" lens above ${await line.textContent()}`,
    async () => {
      const lineBox = await line.boundingBox();
      if (!lineBox) {
        return false;
      }
      for (const lens of await lenses.all()) {
        const box = await lens.boundingBox();
        // The lens of this line sits right above it: its bottom within a line's height of the line's top.
        if (box && box.y + box.height <= lineBox.y + 2 && box.y + box.height > lineBox.y - lineBox.height) {
          await lens.locator('a', { hasText: title }).click({ timeout: 2_000 });
          return true;
        }
      }
      return false;
    },
    { timeoutMs: 30_000, everyMs: 500 },
  );
}

describe('Accept and Revert Selected Lines of an agent diff through the real UI', function () {
  this.timeout(240_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      files: { 'src/list.txt': base, 'src/lens.txt': lensBase },
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

    const worktree = await waitFor('the agent worktree', async () => (await agentWorktrees(wb))[0]);
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

  it("Accept Hunk and Revert Hunk above a change of an agent's diff take exactly that change", async () => {
    const { page, repo } = wb;
    await runCommand(page, 'Parallel Agents: Dispatch Agent');
    await answerQuickInput(page, '(1/4)', `create src/lens.txt: ${escaped(lensAgent)}`);
    await answerQuickInput(page, '(2/4)', 'demo');
    await answerQuickInput(page, '(3/4)', undefined);
    await answerQuickInput(page, '(4/4)', 'Shout the words');

    const row = page.locator('.monaco-list-row[aria-level="1"]', { hasText: 'Shout the words' });
    await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    await row.click();
    const fileRow = page.locator('.monaco-list-row[aria-level="2"]', { hasText: 'lens.txt' });
    await fileRow.waitFor({ timeout: 15_000 });
    await fileRow.click();
    const diff = page.locator('.monaco-diff-editor');
    const modifiedLine = (text: string): Locator =>
      diff.locator('.editor.modified .view-line', { hasText: text }).first();
    await modifiedLine('GOLF').waitFor({ timeout: 20_000 });
    // Each of the three changes has its pair of lenses; the base side has none.
    await waitFor('three Accept Hunk lenses', async () => {
      const count = await diff.locator('.editor.modified .codelens-decoration a', { hasText: 'Accept Hunk' }).count();
      return count === 3;
    });
    assert.equal(await diff.locator('.editor.original .codelens-decoration').count(), 0, 'no lens on the base side');

    const worktree = (await agentWorktrees(wb))[1];
    assert.ok(worktree, "the second agent's worktree");
    const workspaceFile = join(repo.dir, 'src', 'lens.txt');
    const worktreeFile = join(worktree, 'src', 'lens.txt');
    assert.ok(readFileSync(worktreeFile).equals(Buffer.from(lensAgent)), "the agent's file as the demo agent wrote it");

    await clickLensAbove(page, modifiedLine('GOLF'), 'Accept Hunk');
    const accepted = lensBase.replace('golf\n', 'GOLF ✓\n');
    await waitFor('the accepted change in the workspace file', () =>
      readFileSync(workspaceFile).equals(Buffer.from(accepted)),
    );
    assert.ok(readFileSync(worktreeFile).equals(Buffer.from(lensAgent)), "accepting leaves the agent's file alone");

    await clickLensAbove(page, modifiedLine('BRAVO'), 'Revert Hunk');
    await waitFor('the reverted change in the worktree file', () =>
      readFileSync(worktreeFile).equals(Buffer.from(lensAgent.replace('BRAVO\n', 'bravo\n'))),
    );
    assert.ok(readFileSync(workspaceFile).equals(Buffer.from(accepted)), 'reverting leaves the workspace alone');
    // The reverted change's lenses are gone; the two changes left keep theirs.
    await waitFor('two Accept Hunk lenses left', async () => {
      const count = await diff.locator('.editor.modified .codelens-decoration a', { hasText: 'Accept Hunk' }).count();
      return count === 2;
    });
    await wb.screenshot('hunk-lenses');
  });
});
