// Best of N through the real UI, like a person: Dispatch Best of N from the palette (a wrong count is
// refused while typing, one agent ticked is refused with a message, nothing made), two candidates of
// two demo profiles, the comparison document, the diff of the two, then Pick from a row's menu: the
// workspace gets the picked candidate's change, the other is discarded with its work saved.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerQuickInput, runCommand } from '../harness/palette';
import { waitFor } from '../harness/waitFor';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { agentRow, agentWorktrees, notification, rowMenu, showAgentsView, storedAgentOnce } from './agentsUi';

const quickInput = '.quick-input-widget';

describe('Best of N through the real UI: dispatch, compare, diff, Pick', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      viewport: { width: 1600, height: 900 },
      machineSettings: {
        // A second demo profile that answers the same task a little differently.
        'parallelAgents.profiles': [
          {
            name: 'demo-b',
            command: '${demoAgent}',
            args: ['${prompt}\nappend choice.txt:  from b'],
            mode: 'headless',
            env: { DEMO_AGENT_OUTPUT: 'parallel-agents-json' },
            output: 'parallel-agents-json',
          },
        ],
      },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot('best-of-failure').catch(() => undefined);
    }
  });

  /** Ticks the rows of a multi-select quick pick whose labels are `labels`, exactly (each row's checkbox is named by its label). */
  async function tick(labels: readonly string[]): Promise<void> {
    for (const label of labels) {
      const box = wb.page.locator(`${quickInput} .monaco-list-row [role="checkbox"][aria-label="${label}"]`).first();
      await box.waitFor({ timeout: 10_000 });
      await box.click();
      await wb.page
        .locator(`${quickInput} [role="checkbox"][aria-label="${label}"][aria-checked="true"]`)
        .waitFor({ timeout: 5_000 });
    }
  }

  /** The OK button of a multi-select quick pick (Enter on a ticked checkbox would untick it). */
  async function ok(): Promise<void> {
    await wb.page.locator(`${quickInput} .monaco-button`, { hasText: /^OK$/ }).click();
  }

  it('refuses a wrong count and a single agent, then dispatches two candidates, compares, diffs and picks one', async () => {
    const { page, repo } = wb;
    await showAgentsView(page, page.locator('.welcome-view-content', { hasText: 'No agents yet' }));

    // 1. Copies of one agent: 0 and 50 are refused while typing; Escape leaves nothing.
    await runCommand(page, 'Parallel Agents: Dispatch Best of N');
    await answerQuickInput(page, 'Dispatch Best of N: task', 'create choice.txt: answer');
    await answerQuickInput(page, 'Dispatch Best of N: candidates', 'Several copies');
    await answerQuickInput(page, 'Dispatch Best of N: agent', 'demo-b');
    await page.locator(`${quickInput} .quick-input-title`, { hasText: 'how many' }).waitFor({ timeout: 15_000 });
    const input = page.locator(`${quickInput} input.input`);
    const message = page.locator(`${quickInput} .quick-input-message`);
    for (const wrong of ['0', '50']) {
      await input.fill(wrong);
      await message.filter({ hasText: 'Enter a whole number from 2 to 10.' }).waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
      await page.waitForTimeout(500);
      assert.ok(await input.isVisible(), `${wrong} is not accepted: the input stays open`);
    }
    await page.keyboard.press('Escape');

    // 2. One of each chosen agent, with only one ticked: a clear message, nothing made.
    await runCommand(page, 'Parallel Agents: Dispatch Best of N');
    await answerQuickInput(page, 'Dispatch Best of N: task', 'create choice.txt: answer');
    await answerQuickInput(page, 'Dispatch Best of N: candidates', 'One of each');
    await page.locator(`${quickInput} .quick-input-title`, { hasText: 'agents' }).waitFor({ timeout: 15_000 });
    await tick(['demo']);
    await ok();
    const refused = await notification(page, 'Best of N takes from 2 to 10 candidates, not 1');
    assert.match(refused, /nothing was dispatched/);
    assert.deepEqual(await agentWorktrees(wb), [], 'no worktree after the refusals');
    assert.ok(
      await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).isVisible(),
      'no agent after the refusals',
    );

    // 3. Best of 2: demo and demo-b.
    await runCommand(page, 'Parallel Agents: Dispatch Best of N');
    await answerQuickInput(page, 'Dispatch Best of N: task', 'create choice.txt: answer');
    await answerQuickInput(page, 'Dispatch Best of N: candidates', 'One of each');
    await page.locator(`${quickInput} .quick-input-title`, { hasText: 'agents' }).waitFor({ timeout: 15_000 });
    await tick(['demo', 'demo-b']);
    await ok();
    await answerQuickInput(page, 'Dispatch Best of N: title', 'Choose');
    const first = agentRow(page, 'Choose (1/2)');
    const second = agentRow(page, 'Choose (2/2)');
    await first.filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    await second.filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    assert.match(await first.innerText(), /demo · succeeded/);
    assert.match(await second.innerText(), /demo-b · succeeded/);
    await notification(page, 'Dispatched 2 candidates of "Choose"');
    const worktrees = await agentWorktrees(wb);
    assert.equal(worktrees.length, 2);

    // 4. The comparison, from a candidate's row menu.
    await rowMenu(page, 'Choose (1/2)', 'Compare Best-of-N Candidates');
    await page.locator('.tab', { hasText: 'Best of 2 - Choose' }).waitFor({ timeout: 20_000 });
    const lines = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await waitFor('the comparison table', async () => /2\/2 \| demo-b \| succeeded/.test(await text(lines)), {
      timeoutMs: 20_000,
      everyMs: 500,
    });
    const comparison = await text(lines);
    assert.match(comparison, /# Best of 2: Choose/);
    assert.match(comparison, /\| 1\/2 \| demo \| succeeded \| 1 \| \+1 −0 \|/);
    assert.match(comparison, /\| 2\/2 \| demo-b \| succeeded \| 1 \| \+1 −0 \|/);
    await wb.screenshot('best-of-compare');

    // 5. Diff Two Candidates: one multi-file diff editor, candidate 1's file against candidate 2's.
    await rowMenu(page, 'Choose (1/2)', 'Diff Two Candidates');
    const multi = page.locator('.multiDiffEditor');
    await multi.waitFor({ timeout: 20_000 });
    await page.locator('.tab', { hasText: 'Choose (1/2) ↔ Choose (2/2)' }).waitFor({ timeout: 10_000 });
    await multi.locator('.view-lines', { hasText: 'from b' }).first().waitFor({ timeout: 20_000 });
    await wb.screenshot('best-of-diff');

    // 6. Pick candidate 2 from its row: confirm, commit its work as Merge Agent asks, merged.
    await rowMenu(page, 'Choose (2/2)', 'Pick This Candidate');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert.match((await dialog.innerText()).replace(/\s+/g, ' '), /Pick "Choose \(2\/2\)"\?.*1 other candidates/);
    await dialog.getByRole('button', { name: 'Pick' }).click();
    const commitAndMerge = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Commit and Merge' });
    await commitAndMerge.waitFor({ timeout: 20_000 });
    await commitAndMerge.click();
    await answerQuickInput(page, 'Commit Agent Work', undefined);
    await second.filter({ hasText: 'merged' }).waitFor({ timeout: 30_000 });
    await first.filter({ hasText: 'discarded' }).waitFor({ timeout: 30_000 });
    const picked = await notification(page, 'Picked "Choose (2/2)"');
    assert.match(picked, /merged into main\. 1 other candidates discarded/);

    assert.equal(readFileSync(join(repo.dir, 'choice.txt'), 'utf8'), 'answer from b');
    assert.equal(await repo.git('status', '--porcelain'), '', 'the workspace is clean after the Pick');
    const discarded = (await storedAgentOnce(wb, 'Choose (1/2)', (r) => r.status === 'discarded')).record as {
      status: string;
      savedRef?: string;
      worktreePath?: string;
    };
    assert.equal(discarded.status, 'discarded');
    assert.ok(discarded.savedRef?.startsWith('refs/parallel-agents/saved/'));
    assert.equal(await repo.git('show', `${discarded.savedRef}:choice.txt`), 'answer', 'its work is saved');
    assert.ok(!existsSync(discarded.worktreePath!), 'its worktree is removed');
    assert.deepEqual(await agentWorktrees(wb), [worktrees[1]], "only the picked candidate's worktree is left");
    await wb.screenshot('best-of-picked');
  });
});

async function text(locator: import('playwright-core').Locator): Promise<string> {
  return (await locator.innerText()).replace(/\u00a0/g, ' ');
}
