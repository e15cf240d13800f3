// What the window tells the user about Parallel Agents in Restricted Mode, read from the workbench
// with Playwright after the extension-host tests of the trust run (harness/runVsix.ts).
import type { Page } from 'playwright-core';
import type { WindowCheck } from '../harness/suiteRunner';

const reason = /Parallel Agents is off in Restricted Mode/;

export const restrictedModeChecks: readonly WindowCheck[] = [
  {
    name: 'the window shows the Restricted Mode banner and status bar entry',
    run: async (page: Page) => {
      await page.getByText('Restricted Mode is intended for safe code browsing').first().waitFor({ timeout: 15_000 });
      await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: 15_000 });
    },
  },
  {
    name: 'the Extensions view shows the extension disabled, with its own reason (untrustedWorkspaces.description)',
    run: async (page: Page) => {
      await page.keyboard.press('Control+Shift+X');
      const row = page.locator(
        '.extensions-viewlet .monaco-list-row[data-extension-id="parallel-agents.parallel-agents"]',
      );
      await row.waitFor({ timeout: 20_000 });
      const classes = (await row.getAttribute('class')) ?? '';
      if (!/\bdisabled\b/.test(classes)) {
        throw new Error(`the extension's row is not disabled (class "${classes}")`);
      }
      // The hover opens after a delay and only for a pointer that arrives: move away and back until it shows.
      const hover = page.locator('.workbench-hover, .monaco-hover').filter({ hasText: reason }).first();
      for (let attempt = 1; ; attempt++) {
        await page.mouse.move(700, 500);
        await row.locator('.name').hover();
        try {
          await hover.waitFor({ timeout: 5_000 });
          return;
        } catch (e) {
          if (attempt === 4) {
            throw e;
          }
        }
      }
    },
  },
];
