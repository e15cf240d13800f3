// Fault test: the window reloads while agents run. Three headless demo agents (supervised: their
// processes outlive the extension host) must be re-adopted by the new window and end succeeded with
// every line they printed in their logs, in order, once. Driven like a person through the real UI.
import * as assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbench, type Workbench } from '../harness/workbench';

const lines = 22;

/** A demo-agent script that prints `<prompt> 1` … `<prompt> N`, a second apart: it runs about N seconds. */
function slowScript(): string {
  const steps: string[] = [];
  for (let i = 1; i <= lines; i++) {
    steps.push(`print \${prompt} ${i}`, 'sleep 1');
  }
  return steps.join('\n');
}

async function answerQuickInput(page: Page, step: string, text: string | undefined, pick?: string): Promise<void> {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: step }).waitFor({ state: 'visible', timeout: 15_000 });
  const input = page.locator('.quick-input-widget input.input');
  if (text !== undefined) {
    await input.fill(text);
  }
  if (pick !== undefined) {
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: pick }).first().waitFor({ timeout: 15_000 });
  }
  await page.keyboard.press('Enter');
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator(`.quick-input-widget .monaco-list-row[aria-label^="${title}"]`).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

async function dispatch(page: Page, prompt: string, profile: string): Promise<void> {
  await runCommand(page, 'Parallel Agents: Dispatch Agent');
  await answerQuickInput(page, '(1/4)', prompt);
  await answerQuickInput(page, '(2/4)', profile, profile);
  await answerQuickInput(page, '(3/4)', undefined);
  await answerQuickInput(page, '(4/4)', prompt);
  await page.locator('.monaco-list-row', { hasText: prompt }).waitFor({ timeout: 30_000 });
}

/** Every file under `dir` whose name ends with `suffix`. */
async function filesUnder(dir: string, suffix: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(suffix)) {
      found.push(join(entry.parentPath, entry.name));
    }
  }
  return found;
}

describe('Reloading the window while agents run', function () {
  this.timeout(300_000);
  let wb: Workbench;

  before(async () => {
    wb = await openWorkbench({
      viewport: { width: 1400, height: 900 },
      settings: {
        'parallelAgents.profiles': [
          { name: 'slowdemo', command: '${demoAgent}', args: [slowScript()], mode: 'headless' },
        ],
      },
    });
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot('reload-failure').catch(() => undefined);
    }
  });

  it('re-adopts three running headless agents, which end succeeded with their complete output', async () => {
    const { page } = wb;
    await page.locator('.activitybar [aria-label^="Parallel Agents"]').first().click();
    await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).waitFor({ timeout: 30_000 });
    const names = ['alpha', 'bravo', 'charlie'];
    for (const name of names) {
      await dispatch(page, name, 'slowdemo');
    }
    for (const name of names) {
      await page.locator('.monaco-list-row', { hasText: name }).filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
    }
    await wb.screenshot('reload-before');

    await page.reload();
    await wb.waitForWorkbench(90_000);
    await page.locator('.activitybar [aria-label^="Parallel Agents"]').first().waitFor({ timeout: 30_000 });
    // The view may come back open or closed; open it when it is not showing our rows.
    if (!(await page.locator('.monaco-list-row', { hasText: 'alpha' }).isVisible())) {
      await page.locator('.activitybar [aria-label^="Parallel Agents"]').first().click();
    }
    for (const name of names) {
      await page.locator('.monaco-list-row', { hasText: name }).waitFor({ timeout: 30_000 });
    }
    // Still running in the new window: adopted, not marked interrupted.
    const running = await page.locator('.monaco-list-row', { hasText: 'running' }).count();
    await wb.screenshot('reload-after');
    for (const name of names) {
      await page.locator('.monaco-list-row', { hasText: name }).filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    }
    assert.ok(running >= 1, `at least one agent was still running after the reload (rows running: ${running})`);

    const logs = await filesUnder(wb.userDataDir, '.log');
    for (const name of names) {
      const texts = await Promise.all(logs.map((f) => readFile(f, 'utf8')));
      const agentLogs = texts.filter((t) => t.includes(`${name} 1\n`) && !t.includes('[AgentManager]'));
      assert.equal(agentLogs.length, 1, `one log for ${name}`);
      const printed = agentLogs[0].split('\n').filter((l) => new RegExp(`^${name} \\d+$`).test(l));
      assert.deepEqual(printed, Array.from({ length: lines }, (_, i) => `${name} ${i + 1}`), `${name}'s log has every line, in order, once`);
      assert.match(agentLogs[0], /summary: .* exit 0/);
    }
    const extensionLog = (await Promise.all(logs.map((f) => readFile(f, 'utf8')))).join('\n');
    for (const name of names) {
      assert.ok(extensionLog.includes('adopted'), `the extension log says ${name} was adopted`);
    }
  });
});
