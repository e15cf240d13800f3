// What the window tells the user about Parallel Agents in Restricted Mode, read from the workbench
// with Playwright in the middle of the trust run (harness/runVsix.ts; test/suite/trust.untrusted.ts
// calls windowInterlude()): the banner, the Agents view's welcome with its Manage Workspace Trust
// button, no command that runs something in the palette or the view's title; then trust granted
// through that button, as a user would, after which the extension-host test checks the commands.
import { mkdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { WindowCheck } from '../harness/suiteRunner';
import { repoRoot } from '../harness/paths';

const quickInput = '.quick-input-widget';

/** The agent the trust run's repository records before the window opens (see writeRegistryFixture). */
export const recordedAgent = { id: 'fixture1', title: 'Recorded before this window' };
const noticeLabel = 'Restricted Mode: read-only, nothing runs';

/**
 * A registry as a trusted window left it: one stopped terminal agent in the workspace folder (no
 * worktree, so granting trust later starts nothing for it).
 */
export async function writeRegistryFixture(
  repoDir: string,
  git: (...args: string[]) => Promise<string>,
): Promise<void> {
  const baseSha = (await git('rev-parse', 'HEAD')).trim();
  const dir = join(repoDir, '.git', 'parallel-agents', 'agents');
  await mkdir(dir, { recursive: true });
  const record = {
    ...recordedAgent,
    prompt: 'recorded by an earlier window',
    profile: 'demo',
    mode: 'terminal',
    isolation: 'terminal',
    status: 'stopped',
    repoRoot: repoDir,
    cwd: repoDir,
    baseSha,
    createdAt: Date.now() - 60_000,
    startedAt: Date.now() - 60_000,
    endedAt: Date.now() - 30_000,
    changedFiles: [],
  };
  const file = { schemaVersion: 1, revision: 1, writtenAt: Date.now(), writer: 'fixture:1', record };
  await writeFile(join(dir, `${recordedAgent.id}.json`), `${JSON.stringify(file, null, 2)}\n`);
}

/** The labels of the Agents view's rows. */
async function viewRows(page: Page): Promise<string[]> {
  return page.locator('.sidebar .monaco-list-row').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
}
const readOnlyCommands = ['parallelAgents.focus', 'parallelAgents.showLog'];

/** "Parallel Agents: <title>" of every contributed command the palette may offer once trusted. */
function paletteTitles(): { readOnly: string[]; running: string[] } {
  const read = <T>(file: string) => JSON.parse(readFileSync(join(repoRoot, file), 'utf8')) as T;
  const nls = read<Record<string, string>>('package.nls.json');
  const { contributes } = read<{
    contributes: { commands: { command: string; title: string }[]; menus: { commandPalette: Entry[] } };
  }>('package.json');
  const hidden = new Set(contributes.menus.commandPalette.filter((e) => e.when === 'false').map((e) => e.command));
  const title = (c: { title: string }) => `Parallel Agents: ${nls[c.title.replace(/%/g, '')]}`;
  const shown = contributes.commands.filter((c) => !hidden.has(c.command));
  return {
    readOnly: shown.filter((c) => readOnlyCommands.includes(c.command)).map(title),
    running: shown.filter((c) => !readOnlyCommands.includes(c.command)).map(title),
  };
}

interface Entry {
  readonly command: string;
  readonly when?: string;
}

/** The labels of the command palette's rows for `text` (typed after its `>`). */
async function paletteRows(page: Page, text: string): Promise<string[]> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator(`${quickInput} input.input`);
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${text}`);
  // The palette filters its cached list as the text changes; give it a moment to render.
  await page.waitForTimeout(400);
  const rows = await page
    .locator(`${quickInput} .monaco-list-row`)
    .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  await page.keyboard.press('Escape');
  return rows;
}

/** Opens the Parallel Agents side bar; its icon toggles the side bar, so it is clicked only when the bar is not open. */
async function openAgentsView(page: Page): Promise<void> {
  await page.keyboard.press('Escape');
  const title = page.locator('.sidebar .composite.title', { hasText: 'Parallel Agents' });
  if (!(await title.isVisible())) {
    await page.locator('.activitybar [aria-label^="Parallel Agents"]').first().click();
  }
  await title.waitFor({ timeout: 15_000 });
}

const dispatchAction = (page: Page) => page.locator('.sidebar .title-actions [aria-label^="Dispatch Agent"]');

export const restrictedModeChecks: readonly WindowCheck[] = [
  {
    name: 'the window shows the Restricted Mode banner and status bar entry',
    run: async (page: Page) => {
      await page.getByText('Restricted Mode is intended for safe code browsing').first().waitFor({ timeout: 15_000 });
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'the Agents view lists the recorded agent under a Restricted Mode notice row, with no action and no Dispatch',
    run: async (page: Page) => {
      await openAgentsView(page);
      const notice = page.locator('.sidebar .monaco-list-row', { hasText: noticeLabel });
      await notice.waitFor({ timeout: 15_000 });
      await page.locator('.sidebar .monaco-list-row', { hasText: recordedAgent.title }).waitFor({ timeout: 15_000 });
      const rows = await viewRows(page);
      if (rows.length !== 2 || !rows[0].includes(noticeLabel) || !rows[1].includes(recordedAgent.title)) {
        throw new Error(`the view's rows: ${JSON.stringify(rows)}`);
      }
      if (await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).isVisible()) {
        throw new Error('the welcome for trusted folders (Dispatch Agent, Try the Demo Agent) shows too');
      }
      if ((await dispatchAction(page).count()) > 0) {
        throw new Error("the view's title offers Dispatch Agent");
      }
      // No inline action (Stop, Show Output, Discard…) on the recorded agent's row, even when hovered.
      await page.locator('.sidebar .monaco-list-row', { hasText: recordedAgent.title }).hover();
      const actions = await page.locator('.sidebar .monaco-list-row .actions .action-label').count();
      if (actions > 0) {
        throw new Error(`${actions} row action(s) offered in Restricted Mode`);
      }
    },
  },
  {
    name: 'the command palette offers Show Log but no command that runs something',
    run: async (page: Page) => {
      const { readOnly, running } = paletteTitles();
      // The same look-up finds a command the palette does offer.
      for (const title of readOnly) {
        const rows = await paletteRows(page, title);
        if (!rows.some((r) => r.startsWith(title))) {
          throw new Error(`${title} is not offered; the palette shows ${JSON.stringify(rows)}`);
        }
      }
      const offered: string[] = [];
      for (const title of running) {
        const rows = await paletteRows(page, title);
        offered.push(...rows.filter((r) => r.startsWith(title)));
      }
      if (offered.length > 0) {
        throw new Error(`offered in Restricted Mode: ${offered.join(', ')}`);
      }
      if (running.length < 10) {
        throw new Error(`only ${running.length} commands checked`);
      }
    },
  },
  {
    name: 'the notice row → Trust: the live view lists the recorded agent, the notice is gone, the title offers Dispatch Agent',
    run: async (page: Page) => {
      await openAgentsView(page);
      await page.locator('.sidebar .monaco-list-row', { hasText: noticeLabel }).first().click();
      // The Workspace Trust editor's button; its keybinding shows under it.
      await page.locator('.workspace-trust-buttons .monaco-button', { hasText: 'Trust' }).first().click();
      await page.getByText('You trust this folder').first().waitFor({ timeout: 15_000 });
      await page
        .locator('.statusbar-item', { hasText: 'Restricted Mode' })
        .first()
        .waitFor({ state: 'detached', timeout: 15_000 });
      await openAgentsView(page);
      await dispatchAction(page).first().waitFor({ timeout: 15_000 });
      await page.locator('.sidebar .monaco-list-row', { hasText: recordedAgent.title }).waitFor({ timeout: 15_000 });
      await page
        .locator('.sidebar .monaco-list-row', { hasText: noticeLabel })
        .waitFor({ state: 'detached', timeout: 15_000 });
    },
  },
];
