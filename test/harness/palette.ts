// Driving the workbench like a person: the command palette, the quick inputs of a multi-step
// command, the side bar's width. Shared by the UI tests (test/ui/).
import type { Page } from 'playwright-core';

const quickInput = '.quick-input-widget';

/** Waits for the quick input whose title contains `step` (each step of the flow has its own title). */
export async function answerQuickInput(page: Page, step: string | undefined, text: string | undefined): Promise<void> {
  if (step) {
    await page
      .locator(`${quickInput} .quick-input-title`, { hasText: step })
      .waitFor({ state: 'visible', timeout: 15_000 });
  }
  const input = page.locator(`${quickInput} input.input`);
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  if (text !== undefined) {
    await input.fill(text);
  }
  await page.keyboard.press('Enter');
}

/**
 * F1, type the command's title, wait until the palette shows it, run it. `keepSelection`: no Escape
 * first (it closes a quick input left open, but in an editor it also drops the selection).
 */
export async function runCommand(page: Page, title: string, options: { keepSelection?: boolean } = {}): Promise<void> {
  // A quick input left open by an earlier step would take F1's text as its own.
  if (!options.keepSelection) {
    await page.keyboard.press('Escape');
  }
  await page.keyboard.press('F1');
  const input = page.locator(`${quickInput} input.input`);
  await input.waitFor({ state: 'visible', timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator(`${quickInput} .monaco-list-row[aria-label^="${title}"]`).first().waitFor({ timeout: 10_000 });
  await page.keyboard.press('Enter');
}

/** Drags the sash right of the primary side bar `px` to the right, so rows show their whole description. */
export async function widenSideBar(page: Page, px: number): Promise<void> {
  const sashes = await page.locator('.monaco-sash.vertical').all();
  const boxes = await Promise.all(sashes.map((sash) => sash.boundingBox()));
  const box = boxes.find((b) => b && b.x > 250 && b.x < 450 && b.height > 300);
  if (box) {
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + px, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
  }
}
