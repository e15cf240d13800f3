// Fault test: the window reloads while agents run. Three headless demo agents (supervised: their
// processes outlive the extension host) must be re-adopted by the new window and end succeeded with
// every line they printed in their logs, in order, once. Driven like a person through the real UI.
import * as assert from 'node:assert/strict';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { testResultsDir } from '../harness/paths';
import { openWorkbench, type Workbench } from '../harness/workbench';

const lines = 30;

/** A demo-agent script that prints `<prompt> 1` … `<prompt> N`, a second apart: it runs about N seconds. */
function slowScript(count: number): string {
  const steps: string[] = [];
  for (let i = 1; i <= count; i++) {
    steps.push(`print \${prompt} ${i}`, 'sleep 1');
  }
  return steps.join('\n');
}

/** A row of the Agents view: a tree item, so that the terminal tabs' list ("Agent: echo") never matches. */
function agentRow(page: Page, text: string | RegExp) {
  return page.locator('.monaco-list-row[role="treeitem"]', { hasText: text });
}

async function answerQuickInput(page: Page, step: string, text: string | undefined, pick?: string): Promise<void> {
  await page
    .locator('.quick-input-widget .quick-input-title', { hasText: step })
    .waitFor({ state: 'visible', timeout: 15_000 });
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
  await page
    .locator(`.quick-input-widget .monaco-list-row[aria-label^="${title}"]`)
    .first()
    .waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

async function dispatch(page: Page, prompt: string, profile: string): Promise<void> {
  await runCommand(page, 'Parallel Agents: Dispatch Agent');
  await answerQuickInput(page, '(1/4)', prompt);
  await answerQuickInput(page, '(2/4)', profile, profile);
  await answerQuickInput(page, '(3/4)', undefined);
  await answerQuickInput(page, '(4/4)', prompt);
  await agentRow(page, prompt).waitFor({ timeout: 30_000 });
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

const profileSettings = {
  'parallelAgents.profiles': [
    { name: 'slowdemo', command: '${demoAgent}', args: [slowScript(lines)], mode: 'headless' },
    { name: 'slowterm', command: '${demoAgent}', args: [slowScript(lines)], mode: 'terminal' },
    { name: 'quickterm', command: '${demoAgent}', args: [slowScript(8)], mode: 'terminal' },
  ],
};

/** The lines of every window's Parallel Agents log (one per extension host), oldest host first. */
async function extensionLog(wb: Workbench): Promise<string> {
  const files = (await filesUnder(join(wb.userDataDir, 'logs'), 'Parallel Agents.log')).sort();
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

/**
 * Reloads the window and waits for the new one's Agents view to show `title`: like a browser's
 * reload (page.reload()), or through Developer: Reload Window, which lets the workbench save its
 * state (the terminals to revive among it) before it reloads.
 */
async function reloadWindow(wb: Workbench, title: string, how: 'page' | 'command'): Promise<void> {
  const { page } = wb;
  if (how === 'page') {
    await page.reload();
  } else {
    const navigated = page.waitForEvent('framenavigated', { timeout: 30_000 });
    await runCommand(page, 'Developer: Reload Window');
    await navigated;
  }
  await wb.waitForWorkbench(90_000);
  await showAgentsView(page, agentRow(page, title));
}

/** Opens the Agents view until `shown` is visible: the view may be open or closed, and a click on its icon toggles it. */
async function showAgentsView(page: Page, shown: ReturnType<Page['locator']>): Promise<void> {
  const icon = page
    .locator('.activitybar .action-item', { has: page.locator('[aria-label^="Parallel Agents"]') })
    .first();
  for (let attempt = 0; attempt < 15 && !(await shown.isVisible()); attempt++) {
    if (!/\bchecked\b/.test((await icon.getAttribute('class')) ?? '')) {
      await icon.click();
    }
    await shown.waitFor({ timeout: 2_000 }).catch(() => undefined);
  }
  await shown.waitFor({ timeout: 30_000 });
}

describe('Reloading the window while agents run', function () {
  this.timeout(300_000);
  let wb: Workbench;
  let reloaded = false;

  before(async () => {
    wb = await openWorkbench({ viewport: { width: 1400, height: 900 }, settings: profileSettings });
    // Profiles are machine-scoped: in a remote window (code-server) VS Code reads them from the
    // server's Machine settings, which it watches.
    await mkdir(join(wb.userDataDir, 'Machine'), { recursive: true });
    await writeFile(join(wb.userDataDir, 'Machine', 'settings.json'), JSON.stringify(profileSettings, null, 2));
  });

  after(async () => {
    await wb?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      await wb?.screenshot('reload-failure').catch(() => undefined);
      // The extension's own log, from every window: what each one restored, adopted and saw end.
      await extensionLog(wb)
        .then((log) => writeFile(join(testResultsDir, 'reload-failure.log'), log))
        .catch(() => undefined);
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
    await dispatch(page, 'delta', 'slowterm');
    for (const name of names) {
      await agentRow(page, name).filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
    }
    const terminalRow = agentRow(page, 'delta');
    // VS Code cannot tell whether the agent in the terminal waits for input: the row says so.
    await terminalRow.filter({ hasText: /running · \d+s · input: unknown/ }).waitFor({ timeout: 15_000 });
    await page.locator('.xterm-rows', { hasText: 'delta 1' }).first().waitFor({ timeout: 15_000 });
    await wb.screenshot('reload-before');

    // page.reload() ends the extension host; the new page starts a new one (logs/…/exthost2).
    await reloadWindow(wb, 'alpha', 'page');
    reloaded = true;
    for (const name of names) {
      await agentRow(page, name).waitFor({ timeout: 30_000 });
    }
    // Still running in the new window: adopted, not marked interrupted.
    const running = await agentRow(page, 'running').count();
    await wb.screenshot('reload-after');
    for (const name of names) {
      await agentRow(page, name).filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    }
    assert.ok(running >= 1, `at least one agent was still running after the reload (rows running: ${running})`);

    // Agent logs live in the repository's registry (<git common dir>/parallel-agents/logs), the
    // window's own logs in its user-data folder.
    const logs = [
      ...(await filesUnder(wb.userDataDir, '.log')),
      ...(await filesUnder(join(wb.repo.dir, '.git', 'parallel-agents', 'logs'), '.log')),
    ];
    for (const name of names) {
      const texts = await Promise.all(logs.map((f) => readFile(f, 'utf8')));
      const agentLogs = texts.filter((t) => t.includes(`${name} 1\n`) && !t.includes('[AgentManager]'));
      assert.equal(agentLogs.length, 1, `one log for ${name}`);
      const printed = agentLogs[0].split('\n').filter((l) => new RegExp(`^${name} \\d+$`).test(l));
      assert.deepEqual(
        printed,
        Array.from({ length: lines }, (_, i) => `${name} ${i + 1}`),
        `${name}'s log has every line, in order, once`,
      );
      assert.match(agentLogs[0], /summary: .* exit 0/);
    }
    const log = await extensionLog(wb);
    const adoptions = new Set([...log.matchAll(/\[AgentManager\] adopted (\S+), still running/g)].map((m) => m[1]));
    assert.equal(adoptions.size, names.length, 'a new extension host adopted each of the three runs');
    for (const id of adoptions) {
      assert.deepEqual(
        [...log.matchAll(new RegExp(`\\] ${id} ended: (\\S+)`, 'g'))].map((m) => m[1]),
        ['succeeded'],
        `${id} ended once, succeeded`,
      );
    }
  });

  it('re-adopts the terminal agent, or shows it detached with Reopen in Terminal, which runs it again', async () => {
    assert.ok(reloaded, 'the window was reloaded while the terminal agent ran (first test)');
    const { page } = wb;
    const row = agentRow(page, 'delta');
    await row.filter({ hasText: /running|detached/ }).waitFor({ timeout: 30_000 });
    // Up to 15 s waiting for its terminal to come back, then either way.
    await row.filter({ hasText: /succeeded|detached/ }).waitFor({ timeout: 60_000 });
    const detached = /detached/.test(await row.innerText());
    // page.reload() is a browser reload: the workbench may not get to save which terminals to revive.
    console.log(
      `      (after page.reload() the terminal agent was ${detached ? 'detached' : 're-adopted'}: ${/\[Terminals\].*/.exec(await extensionLog(wb))?.[0] ?? '?'})`,
    );
    if (detached) {
      await wb.screenshot('reload-detached');
      await row.hover();
      await row.locator('.action-label[aria-label="Reopen in Terminal"]').click();
      await row.filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
      await page.locator('.xterm-rows', { hasText: 'delta 1' }).first().waitFor({ timeout: 15_000 });
      await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    }
    assert.match(await row.innerText(), /slowterm · succeeded/);
    const log = await extensionLog(wb);
    const adopted = /\[AgentManager\] adopted (\S+), waiting for its terminal \(pid (\d+)\)/.exec(log);
    assert.ok(adopted, 'the new window looked for the terminal by its pid');
    // The window's shutdown closed the terminal in the old extension host: that did not end the agent.
    const ends = [...log.matchAll(new RegExp(`\\] ${adopted[1]} ended: (\\S+)`, 'g'))].map((m) => m[1]);
    assert.deepEqual(ends, detached ? ['detached', 'succeeded'] : ['succeeded']);
  });

  it('after Developer: Reload Window, re-adopts a running terminal agent: the same process, matched by its pid', async () => {
    const { page } = wb;
    // VS Code keeps a terminal's process over a reload only when the new window reattaches within the
    // pty host's short grace time (seconds); on a machine loaded enough to miss it, VS Code starts a new
    // process, which the extension rightly shows as detached (its log names the other pids it saw). That
    // is VS Code's limit, not the adoption under test: then the scenario is run once more, under a new title.
    for (const title of ['foxtrot', 'golf']) {
      await dispatch(page, title, 'slowterm');
      const row = agentRow(page, title);
      await row.filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
      await page
        .locator('.xterm-rows', { hasText: `${title} 2` })
        .first()
        .waitFor({ timeout: 15_000 });
      await reloadWindow(wb, title, 'command');
      await wb.screenshot(`reload-command-after-${title}`);
      await row.filter({ hasText: /succeeded|detached/ }).waitFor({ timeout: 60_000 });
      const log = await extensionLog(wb);
      const adopted = [...log.matchAll(/\[AgentManager\] adopted (\S+), waiting for its terminal \(pid (\d+)\)/g)].at(
        -1,
      );
      assert.ok(adopted, 'the new window looked for the terminal by its pid');
      const [, id, pid] = adopted;
      const replaced = new RegExp(`\\[Terminals\\] ${id}: no terminal with pid ${pid} within \\d+ ms \\(seen: \\d+`);
      if (title === 'foxtrot' && replaced.test(log)) {
        console.log(
          `      (VS Code replaced the terminal's process ${pid} on reload: detached, as it should; once more)`,
        );
        continue;
      }
      await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
      assert.match(log, new RegExp(`\\[Terminals\\] ${id}: its terminal \\(pid ${pid}\\) came back`));
      const ends = [...(await extensionLog(wb)).matchAll(new RegExp(`\\] ${id} ended: (\\S+)`, 'g'))].map((m) => m[1]);
      assert.deepEqual(ends, ['succeeded'], 'ended once, succeeded: the shutdown close did not end it');
      return;
    }
  });

  it('with persistent terminal sessions off, a reload leaves the terminal agent detached, its worktree kept; Reopen in Terminal runs it again', async () => {
    const { page } = wb;
    const settingsFile = join(wb.userDataDir, 'User', 'settings.json');
    const settings = JSON.parse(await readFile(settingsFile, 'utf8')) as Record<string, unknown>;
    await writeFile(
      settingsFile,
      JSON.stringify({ ...settings, 'terminal.integrated.enablePersistentSessions': false }, null, 2),
    );
    await dispatch(page, 'echo', 'quickterm');
    const row = agentRow(page, 'echo');
    await row.filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
    await page.locator('.xterm-rows', { hasText: 'echo 1' }).first().waitFor({ timeout: 15_000 });
    await reloadWindow(wb, 'echo', 'page');
    await row.filter({ hasText: 'detached' }).waitFor({ timeout: 40_000 });
    await wb.screenshot('reload-detached');
    const worktree = join(`${wb.repo.dir}.worktrees`, 'echo');
    assert.ok(existsSync(worktree), `the worktree ${worktree} is kept`);
    await row.hover();
    await row.locator('.action-label[aria-label="Reopen in Terminal"]').click();
    await row.filter({ hasText: 'running' }).waitFor({ timeout: 15_000 });
    await page.locator('.xterm-rows', { hasText: 'echo 1' }).first().waitFor({ timeout: 15_000 });
    await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 60_000 });
    assert.match(await row.innerText(), /quickterm · succeeded/);
  });

  it('a plan goes on after a reload: its running task is adopted, merged, and the dependent task starts from it', async () => {
    const { page } = wb;
    const plan = {
      title: 'Reload plan',
      tasks: [
        {
          id: 'slow',
          title: 'Slow step',
          profile: 'demo',
          prompt: `${slowScript(25).replaceAll('${prompt}', 'slow step')}\ncreate slow.txt: slow`,
        },
        // `replace X => X` fails unless slow.txt is in its worktree: it must start from the merged work.
        {
          id: 'after',
          title: 'After step',
          profile: 'demo',
          prompt: 'replace slow.txt: slow => slow\ncreate after.txt: after',
          dependsOn: ['slow'],
        },
      ],
    };
    await writeFile(join(wb.repo.dir, 'reload.agents.json'), JSON.stringify(plan, null, 2));
    await showAgentsView(page, page.locator('.part.sidebar .title-label', { hasText: 'Parallel Agents' }).first());
    await runCommand(page, 'Parallel Agents: Dispatch Plan');
    await page
      .locator('.quick-input-widget .monaco-list-row', { hasText: 'reload.agents.json' })
      .first()
      .waitFor({ timeout: 15_000 });
    await page.keyboard.press('Enter');
    const planRow = agentRow(page, 'Reload plan');
    // The task's agent itself runs (its dispatch is over), and the window has had a moment to save that.
    const slowRow = agentRow(page, 'Slow step').filter({ hasText: /slow · running · .*demo · running/ });
    await slowRow.waitFor({ timeout: 30_000 });
    await page.waitForTimeout(2_000);
    await agentRow(page, 'After step').filter({ hasText: 'waiting for slow' }).waitFor({ timeout: 15_000 });

    await reloadWindow(wb, 'Reload plan', 'page');
    await wb.screenshot('reload-plan-after');
    await planRow.filter({ hasText: /2\/2 done · finished/ }).waitFor({ timeout: 90_000 });
    await agentRow(page, 'After step').filter({ hasText: 'after · done' }).waitFor({ timeout: 15_000 });
    await wb.screenshot('reload-plan-finished');

    const branch = 'agents/plan-reload-plan';
    const files = (await wb.repo.git('ls-tree', '-r', '--name-only', branch)).split('\n');
    assert.ok(
      files.includes('slow.txt') && files.includes('after.txt'),
      `both tasks' work is on ${branch}: ${files.join(', ')}`,
    );
    const agentBranches = (await wb.repo.git('branch', '--list', 'agents/*-step*'))
      .split('\n')
      .map((b) => b.replace(/^[*+ ]+/, ''))
      .filter(Boolean)
      .sort();
    assert.deepEqual(
      agentBranches,
      ['agents/after-step', 'agents/slow-step'],
      'each task ran once: no second agent for the adopted one',
    );
    const log = await extensionLog(wb);
    assert.match(log, /\[PlanService\] restored plan run \S+ "Reload plan": slow running, after waiting/);
  });
});
