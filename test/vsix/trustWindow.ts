// What the window tells the user about Parallel Agents in Restricted Mode, read from the workbench
// with Playwright in the middle of the trust run (harness/runVsix.ts; test/suite/trust.untrusted.ts
// calls windowInterlude()): the banner, the Agents view's welcome with its Manage Workspace Trust
// button, no command that runs something in the palette or the view's title; then trust granted
// through that button, as a user would, after which the extension-host test checks the commands.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { WindowCheck } from '../harness/suiteRunner';
import { repoRoot } from '../harness/paths';

const quickInput = '.quick-input-widget';
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
    name: 'the Agents view shows why nothing runs and a Manage Workspace Trust button, and no Dispatch action',
    run: async (page: Page) => {
      await openAgentsView(page);
      const welcome = page.locator('.welcome-view-content', { hasText: 'This folder is in Restricted Mode' });
      await welcome.waitFor({ timeout: 15_000 });
      await welcome.locator('.monaco-button', { hasText: 'Manage Workspace Trust' }).waitFor({ timeout: 5_000 });
      if (await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).isVisible()) {
        throw new Error('the welcome for trusted folders (Dispatch Agent, Try the Demo Agent) shows too');
      }
      if ((await dispatchAction(page).count()) > 0) {
        throw new Error("the view's title offers Dispatch Agent");
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
    name: 'Manage Workspace Trust → Trust: the view welcomes a trusted folder and its title offers Dispatch Agent',
    run: async (page: Page) => {
      await openAgentsView(page);
      await page.locator('.welcome-view-content .monaco-button', { hasText: 'Manage Workspace Trust' }).first().click();
      // The Workspace Trust editor's button; its keybinding shows under it.
      await page.locator('.workspace-trust-buttons .monaco-button', { hasText: 'Trust' }).first().click();
      await page.getByText('You trust this folder').first().waitFor({ timeout: 15_000 });
      await page
        .locator('.statusbar-item', { hasText: 'Restricted Mode' })
        .first()
        .waitFor({ state: 'detached', timeout: 15_000 });
      await openAgentsView(page);
      await page.locator('.welcome-view-content', { hasText: 'No agents yet' }).waitFor({ timeout: 15_000 });
      await dispatchAction(page).first().waitFor({ timeout: 15_000 });
    },
  },
];
