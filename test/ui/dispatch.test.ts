// Through the real UI, like a person: activity bar → F1 "Dispatch Agent" → answer the inputs →
// the agent row → its file rows → the diff editor. Screenshots go to test-results/ (and to
// media/screenshots/ for the README when PA_UPDATE_SCREENSHOTS=1).
import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { answerQuickInput, runCommand, widenSideBar } from '../harness/palette';
import { repoRoot } from '../harness/paths';
import { openWorkbench, type Workbench } from '../harness/workbench';

async function shot(wb: Workbench, name: string): Promise<void> {
  const file = await wb.screenshot(name);
  if (process.env.PA_UPDATE_SCREENSHOTS === '1') {
    const dir = join(repoRoot, 'media', 'screenshots');
    mkdirSync(dir, { recursive: true });
    copyFileSync(file, join(dir, `${name}.png`));
  }
}

describe('Dispatch → sidebar → diff through the real UI', function () {
  this.timeout(240_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      viewport: { width: 1600, height: 900 },
      settings: { 'diffEditor.useInlineViewWhenSpaceIsLimited': false },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot('failure').catch(() => undefined);
    }
  });

  it('dispatches the demo agent like a person and reviews a file in the diff editor', async () => {
    const { page } = wb;
    // A wider side bar, as a person would drag it, so that rows show their whole description.
    await widenSideBar(page, 200);
    await page.locator('.activitybar [aria-label^="Parallel Agents"]').first().click();
    const welcome = page.locator('.welcome-view-content', { hasText: 'No agents yet' });
    await welcome.waitFor({ timeout: 30_000 });
    assert.ok(
      await welcome.locator('.monaco-button', { hasText: 'Dispatch Agent' }).isVisible(),
      'the welcome view offers Dispatch Agent',
    );
    await shot(wb, 'welcome');

    const dispatch = async (prompt: string, title: string) => {
      await runCommand(page, 'Parallel Agents: Dispatch Agent');
      await answerQuickInput(page, '(1/4)', prompt);
      await answerQuickInput(page, '(2/4)', 'demo');
      await answerQuickInput(page, '(3/4)', undefined); // isolation: the default, worktree
      await answerQuickInput(page, '(4/4)', title);
      await page.locator('.monaco-list-row', { hasText: title }).waitFor({ timeout: 30_000 });
    };
    await dispatch('replace src/math.js: a + b => b + a', 'Swap the operands');
    await dispatch('append src/math.js: // reviewed', 'Annotate math');
    await dispatch('sleep 40', 'Long task');

    const row = page.locator('.monaco-list-row', { hasText: 'Swap the operands' });
    await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 30_000 });
    assert.match(await row.innerText(), /demo · succeeded · \d+s/);
    await page
      .locator('.monaco-list-row', { hasText: 'Long task' })
      .filter({ hasText: 'running' })
      .waitFor({ timeout: 15_000 });
    // Both agents edit src/math.js: each is marked as overlapping the other.
    await row.filter({ hasText: 'overlaps' }).waitFor({ timeout: 15_000 });
    assert.match(await page.locator('.monaco-list-row', { hasText: 'Annotate math' }).innerText(), /overlaps/);
    await page.locator('.statusbar-item', { hasText: '1 agent running' }).waitFor({ timeout: 10_000 });

    await row.click();
    const fileRow = page.locator('.monaco-list-row', { hasText: 'math.js' });
    await fileRow.waitFor({ timeout: 15_000 });
    assert.match(await fileRow.innerText(), /src/);
    await shot(wb, 'agents-view');

    await fileRow.click();
    const diff = page.locator('.monaco-diff-editor');
    await diff.waitFor({ timeout: 20_000 });
    await page.locator('.tab', { hasText: 'math.js' }).first().waitFor({ timeout: 10_000 });
    const original = await diff.locator('.editor.original .view-lines').innerText();
    const modified = await diff.locator('.editor.modified .view-lines').innerText();
    assert.match(original.replace(/\u00a0/g, ' '), /a \+ b/);
    assert.match(modified.replace(/\u00a0/g, ' '), /b \+ a/);
    await shot(wb, 'diff');
    assert.ok(existsSync(join(repoRoot, 'test-results', 'diff.png')));

    // Review All Changes from the row's inline action: one multi-file diff editor.
    await row.hover();
    await row.locator('.action-label[aria-label="Review All Changes"]').click();
    const multi = page.locator('.multiDiffEditor');
    await multi.waitFor({ timeout: 20_000 });
    await multi.locator('.view-lines', { hasText: 'exports.add' }).first().waitFor({ timeout: 20_000 });
    await page.locator('.tab', { hasText: 'Agent: Swap the operands' }).waitFor({ timeout: 10_000 });
    await shot(wb, 'review-all');

    // The timeline of the three agents, opened from the palette; its figures are drawn in the webview.
    await runCommand(page, 'Parallel Agents: Show Timeline');
    await page.locator('.tab', { hasText: 'Agents Timeline' }).waitFor({ timeout: 15_000 });
    const frame = page.frameLocator('iframe.webview').frameLocator('iframe');
    await frame.getByText('Speedup').first().waitFor({ timeout: 20_000 });
    await frame.getByText('Long task').first().waitFor({ timeout: 10_000 });
    await shot(wb, 'timeline');
  });
});
