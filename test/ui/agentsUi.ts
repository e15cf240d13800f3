// What the review UI tests do as a person would, in one place: open the Agents view, dispatch the
// demo agent from the palette (a one-line task, or the selected lines of an editor), open an agent
// file's diff, use a row's context menu, read a notification. Also what they check on disk: the
// agent's record in the registry and its linked worktrees.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { answerQuickInput, runCommand } from '../harness/palette';
import { waitFor } from '../harness/waitFor';
import type { Workbench } from '../harness/workbench';

/**
 * The agent's row (level 1) in the Agents view (the side bar) whose text holds `title`; the Comments
 * panel, once a file has threads, has rows at that level too.
 */
export function agentRow(page: Page, title: string): Locator {
  return page.locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: title });
}

/** Clicks the activity bar's Parallel Agents icon and waits for `shown` in the view. */
export async function showAgentsView(page: Page, shown: Locator): Promise<void> {
  const icon = page.locator('.activitybar [aria-label^="Parallel Agents"]').first();
  await icon.waitFor({ timeout: 30_000 });
  await icon.click();
  await shown.waitFor({ timeout: 30_000 });
}

/**
 * Dispatch Agent from the palette with the demo profile (or `profile`) in a new worktree: `task` typed
 * in the input box, or, when `task` is undefined, the editor's selected lines (the quick pick's first item).
 */
export async function dispatchDemo(
  page: Page,
  task: string | undefined,
  title: string,
  profile = 'demo',
): Promise<void> {
  await runCommand(page, 'Parallel Agents: Dispatch Agent', { keepSelection: task === undefined });
  await answerQuickInput(page, '(1/4)', task);
  await answerQuickInput(page, '(2/4)', profile);
  await answerQuickInput(page, '(3/4)', undefined);
  await answerQuickInput(page, '(4/4)', title);
}

/**
 * A task of several lines, as a person gives it: `file` opened with Go to File, a click on its line
 * holding `lineText` (the editor takes the keys), all selected, then Dispatch Agent with the selection.
 */
export async function dispatchFileText(page: Page, file: string, lineText: string, title: string): Promise<void> {
  await runCommand(page, 'Go to File...');
  await page.keyboard.type(file);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: file }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.editor-instance .view-line', { hasText: lineText }).click();
  await page.keyboard.press('Control+A');
  await dispatchDemo(page, undefined, title);
}

/** Expands the agent's row when its file rows are hidden, then clicks the file row: its diff opens. */
export async function openFileDiff(page: Page, title: string, fileName: string): Promise<Locator> {
  // In the side bar, as agentRow.
  const fileRow = page.locator('.part.sidebar .monaco-list-row[aria-level="2"]', { hasText: fileName });
  if (!(await fileRow.isVisible())) {
    await agentRow(page, title).click();
  }
  await fileRow.waitFor({ timeout: 15_000 });
  await fileRow.click();
  const tab = page.locator('.tabs-container .tab.active', { hasText: fileName });
  await tab.waitFor({ timeout: 20_000 });
  const diff = page.locator('.monaco-diff-editor');
  await diff.waitFor({ timeout: 20_000 });
  return diff;
}

/** The line-number row `line` (1-based) of the diff's agent side: its comment glyph is in the same margin row. */
export function marginRow(page: Page, diff: Locator, line: number): Locator {
  return diff
    .locator('.editor.modified .margin-view-overlays > div')
    .filter({ has: page.locator('.line-numbers', { hasText: new RegExp(`^\\s*${line}\\s*$`) }) });
}

/** A stored thread's glyph, drawn on its last line `line`: unresolved (pending, sent) or resolved (addressed). */
export function threadGlyph(page: Page, diff: Locator, line: number, state: 'unresolved' | 'resolved'): Locator {
  const glyph = marginRow(page, diff, line).locator(
    '.comment-range-glyph.comment-thread, .comment-range-glyph.comment-thread-unresolved',
  );
  return state === 'unresolved'
    ? glyph.and(page.locator('.comment-thread-unresolved'))
    : glyph.and(page.locator('.comment-thread'));
}

/** Clicks a menu item of the context menu `open` shows, until the menu closes (the workbench may drop an early click). */
export async function clickMenuItem(page: Page, open: () => Promise<void>, label: string): Promise<void> {
  const item = page.locator('.context-view .action-label', { hasText: label });
  await waitFor(
    `the menu item "${label}"`,
    async () => {
      if ((await item.count()) === 0) {
        await open();
      }
      await item
        .first()
        .click({ timeout: 2_000 })
        .catch(() => undefined);
      await page.waitForTimeout(300);
      return (await page.locator('.context-view .monaco-menu').count()) === 0;
    },
    { timeoutMs: 30_000, everyMs: 500 },
  );
}

/** Right-clicks the agent's row and runs `label` from its context menu. */
export async function rowMenu(page: Page, title: string, label: string): Promise<void> {
  await clickMenuItem(page, () => agentRow(page, title).click({ button: 'right' }), label);
}

/**
 * Waits for a notification holding `text` in the notification center (toasts may never show in this
 * headless window, or be gone already; the center keeps every message), returns its whole text,
 * then clears the notifications (Clear All) and closes the center.
 */
export async function notification(page: Page, text: string): Promise<string> {
  const center = page.locator('.notifications-center.visible');
  const found = page.locator('.notifications-center .notification-list-item-message', { hasText: text }).first();
  await waitFor(
    `a notification "${text}"`,
    async () => {
      if (!(await center.isVisible())) {
        await page.locator('.statusbar-item[id$="notifications"]').first().click();
      }
      return found.isVisible();
    },
    { timeoutMs: 20_000, everyMs: 500 },
  );
  const whole = await found.innerText();
  // Cleared until this one is gone and the center closed (Clear All closes it): a notification that
  // comes in just after a Clear All needs another. One with running progress stays by design (Clear
  // All leaves those), so "none left" is not waited for; the timeout names whatever is left.
  const items = page.locator('.notifications-center .notification-list-item');
  let left: string[] = [];
  const detached = (timeout: number) =>
    found
      .waitFor({ state: 'detached', timeout })
      .then(() => true)
      .catch(() => false);
  await waitFor(
    `the notification "${text}" cleared`,
    async () => {
      if ((await found.count()) === 0 && !(await center.isVisible())) {
        return true;
      }
      await runCommand(page, 'Notifications: Clear All Notifications');
      let gone = await detached(5_000);
      if (!gone && (await found.count()) > 0) {
        // Once in CI a Clear All from the palette left it for 30 s (cause not found): its own Clear action then.
        if (!(await center.isVisible())) {
          await page.locator('.statusbar-item[id$="notifications"]').first().click();
        }
        const item = items.filter({ has: found }).first();
        await item.hover({ timeout: 3_000 }).catch(() => undefined);
        await item
          .locator('.codicon-notifications-clear')
          .first()
          .click({ timeout: 3_000 })
          .catch(() => undefined);
        gone = await detached(3_000);
      }
      left = await items.allInnerTexts().catch(() => []);
      return gone && !(await center.isVisible());
    },
    { timeoutMs: 30_000, everyMs: 500 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; left in the notification center: ${JSON.stringify(left)}`);
  });
  if (await center.isVisible()) {
    await page.keyboard.press('Escape');
  }
  return whole;
}

/** The linked worktrees of the workbench's repository, oldest first (git lists them in order of creation). */
export async function agentWorktrees(wb: Workbench): Promise<string[]> {
  return (await wb.repo.git('worktree', 'list', '--porcelain'))
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .filter((p) => p !== wb.repo.dir);
}

/** An agent's record file in the registry as written: its revision and its record. */
export interface StoredAgent {
  readonly file: string;
  readonly revision: number;
  readonly record: {
    readonly id: string;
    readonly title: string;
    readonly status: string;
    readonly profile: string;
    readonly cwd: string;
    readonly logPath: string;
    readonly followUps?: string[];
    readonly comments?: {
      path: string;
      startLine: number;
      endLine: number;
      body: string;
      addressed?: boolean;
      sentAt?: number;
      reviewer?: string;
      general?: boolean;
    }[];
    readonly runs?: { profile: string; startedAt: number; endedAt?: number }[];
    readonly check?: { state: string; exitCode?: number; error?: string; logPath: string };
  };
}

/** Reads the record of the agent titled `title` from `<repo>/.git/parallel-agents/agents/`. */
export function storedAgent(wb: Workbench, title: string): StoredAgent {
  const dir = join(wb.repo.dir, '.git', 'parallel-agents', 'agents');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    const file = join(dir, name);
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Omit<StoredAgent, 'file'>;
    if (parsed.record.title === title) {
      return { file, ...parsed };
    }
  }
  throw new Error(`no agent titled "${title}" in ${dir}`);
}

/**
 * The stored record of the agent titled `title` once `ready` holds for it: the row may show a state
 * a moment before the registry file has it (the view follows the manager's events, the file its write).
 */
export async function storedAgentOnce(
  wb: Workbench,
  title: string,
  ready: (record: StoredAgent['record']) => boolean,
  timeoutMs = 20_000,
): Promise<StoredAgent> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stored = storedAgent(wb, title);
    if (ready(stored.record) || Date.now() > deadline) {
      return stored;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Changes the server's machine settings (Machine/settings.json, where openWorkbench's machineSettings
 * went) while the window is open, as a person editing that file would: the window reads it again.
 */
export function setMachineSettings(wb: Workbench, changes: Record<string, unknown>): void {
  const file = join(wb.userDataDir, 'Machine', 'settings.json');
  const now = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...now, ...changes }, null, 2));
}
