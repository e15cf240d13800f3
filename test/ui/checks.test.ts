// Checks through the real UI, like a person: parallelAgents.checkCommand set in the user settings
// (a real process reading a file in the agent's worktree) fails after the demo agent's run; the row
// shows ✗; Merge Agent from the row's menu asks first, and Cancel leaves everything as it was; Fix
// Failing Check sends the check's output to the demo agent, whose fix turns the row ✓. A profile
// whose check command is not installed: "check error" on the row, and Run Check says the command
// was not found, changing nothing.
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { widenSideBar } from '../harness/palette';
import { assertRestored, recordWorkspace } from '../harness/untouched';
import { openWorkbench, type Workbench } from '../harness/workbench';
import { statusCheck } from '../fixtures/statusCheck';
import {
  agentRow,
  agentWorktrees,
  dispatchDemo,
  notification,
  rowMenu,
  showAgentsView,
  storedAgent,
  storedAgentOnce,
} from './agentsUi';

describe('Checks through the real UI: badge, merge question, Fix Failing Check, a missing command', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      viewport: { width: 1600, height: 900 },
      machineSettings: {
        'parallelAgents.checkCommand': statusCheck,
        'parallelAgents.profiles': [
          {
            name: 'nocheck',
            command: '${demoAgent}',
            args: ['${prompt}'],
            mode: 'headless',
            checkCommand: ['definitely-not-an-installed-check', 'run'],
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
      await wb?.screenshot(`checks-failure-${this.currentTest.title.slice(0, 20)}`).catch(() => undefined);
    }
  });

  it('fails with ✗; Merge asks first and Cancel merges nothing; Fix Failing Check turns it ✓', async () => {
    const { page, repo } = wb;
    await widenSideBar(page, 160);
    await showAgentsView(page, page.locator('.welcome-view-content', { hasText: 'No agents yet' }));
    await dispatchDemo(page, 'create status.txt: broken', 'Status');
    const row = agentRow(page, 'Status');
    await row.filter({ hasText: '✗ check' }).waitFor({ timeout: 60_000 });
    // The row shows ✗: the file has it once written.
    const failed = (await storedAgentOnce(wb, 'Status', (r) => r.check?.state === 'failed')).record;
    assert.equal(failed.check?.state, 'failed');
    assert.equal(failed.check?.exitCode, 1);
    assert.match(readFileSync(failed.check!.logPath, 'utf8'), /status\.txt says "broken", expected ok/);

    const worktree = (await agentWorktrees(wb))[0];
    const before = { repo: recordWorkspace(repo.dir), worktree: recordWorkspace(worktree) };
    await rowMenu(page, 'Status', 'Merge Agent');
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 20_000 });
    assert.match((await dialog.innerText()).replace(/\s+/g, ' '), /The check of agent "Status" failed\./);
    assert.ok(await dialog.getByRole('button', { name: 'Merge Anyway' }).isVisible());
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Give a merge that should not happen the time to happen before looking.
    await page.waitForTimeout(2_000);
    assertRestored(before.repo, 'the workspace after a cancelled merge');
    assertRestored(before.worktree, "the agent's worktree after a cancelled merge");
    assert.equal(storedAgent(wb, 'Status').record.status, 'succeeded', 'not merged');

    await rowMenu(page, 'Status', 'Fix Failing Check');
    await row.filter({ hasText: '✓ check' }).waitFor({ timeout: 60_000 });
    const fixed = (await storedAgentOnce(wb, 'Status', (r) => r.check?.state === 'passed')).record;
    assert.equal(fixed.followUps?.length, 1);
    assert.match(fixed.followUps![0], /failed with exit code 1/);
    assert.match(fixed.followUps![0], /status\.txt says "broken", expected ok\ncreate status\.txt: ok/);
    assert.equal(fixed.check?.state, 'passed');
    assert.equal(readFileSync(join(worktree, 'status.txt'), 'utf8'), 'ok');
    await wb.screenshot('checks');
  });

  it('a check command that is not installed: "check error", and Run Check says so, changing nothing', async () => {
    const { page, repo } = wb;
    await dispatchDemo(page, 'create status.txt: ok', 'Missing check', 'nocheck');
    const row = agentRow(page, 'Missing check');
    await row.filter({ hasText: 'check error' }).waitFor({ timeout: 60_000 });

    const worktree = (await agentWorktrees(wb))[1];
    const before = { repo: recordWorkspace(repo.dir), worktree: recordWorkspace(worktree) };
    const stored = storedAgent(wb, 'Missing check');
    await rowMenu(page, 'Missing check', 'Run Check');
    assert.match(
      await notification(page, 'The check command definitely-not-an-installed-check was not found'),
      /nothing else was changed/,
    );
    assertRestored(before.repo, 'the workspace after a check that could not start');
    assertRestored(before.worktree, "the agent's worktree after a check that could not start");
    const now = storedAgent(wb, 'Missing check');
    assert.deepEqual({ ...now.record, check: undefined }, { ...stored.record, check: undefined }, 'only the check');
    assert.equal(now.record.check?.state, 'error');
    assert.equal(now.record.followUps, undefined);
  });
});
