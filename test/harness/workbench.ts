// For UI tests (mocha in plain Node): a code-server workbench on a throw-away git repository with
// this extension loaded, ready to drive through `page`. One launch costs 20-30 s: share it across
// the tests of a file (open in before(), close in after()).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchCodeServer, type CodeServerHandle, type LaunchOptions } from './codeServer';
import { repoRoot, testResultsDir } from './paths';
import { createTempRepo, defaultFiles, type TempRepo } from './tempRepo';

export interface WorkbenchOptions {
  /** Files committed in the repository's first commit (default: a small sample project). */
  files?: Record<string, string>;
  settings?: Record<string, unknown>;
  /** Machine-scoped settings (profiles, checkCommand): see LaunchOptions.machineSettings. */
  machineSettings?: Record<string, unknown>;
  extensionEnvironment?: Record<string, string>;
  viewport?: { width: number; height: number };
  onLog?: (line: string) => void;
  /** How long to wait for the status bar (default 90 s). */
  readyTimeoutMs?: number;
  keybindings?: LaunchOptions['keybindings'];
}

/** Another window on the same folder: a new browser context (its own storage, like another browser). */
export interface OtherWindow {
  page: Page;
  /** Every line the window's workbench forwarded. */
  readonly log: readonly string[];
  close(): Promise<void>;
}

export interface Workbench extends CodeServerHandle {
  repo: TempRepo;
  /** Saves a full-window PNG as test-results/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
  /**
   * Opens the workbench's URL in a new browser context and waits for its status bar: a second
   * window on the folder, with an extension host of its own, as a second browser gets it.
   */
  openWindow(options?: { viewport?: { width: number; height: number }; readyTimeoutMs?: number }): Promise<OtherWindow>;
}

const defaultViewport = { width: 1400, height: 900 };

export async function openWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const repo = await createTempRepo(options.files ?? defaultFiles);
  let handle: CodeServerHandle | undefined;
  try {
    handle = await launchCodeServer({
      extensionDevelopmentPath: repoRoot,
      workspaceFolder: repo.dir,
      settings: options.settings,
      machineSettings: options.machineSettings,
      extensionEnvironment: options.extensionEnvironment,
      viewport: options.viewport,
      onLog: options.onLog,
      keybindings: options.keybindings,
    });
    await handle.waitForWorkbench(options.readyTimeoutMs ?? 90_000);
  } catch (e) {
    await handle?.close();
    await repo.dispose();
    throw e;
  }
  const h = handle;
  return {
    ...h,
    repo,
    screenshot: async (name) => {
      await mkdir(testResultsDir, { recursive: true });
      const file = join(testResultsDir, `${name}.png`);
      await h.page.screenshot({ path: file });
      return file;
    },
    openWindow: async (more = {}) => {
      const context = await h.browser.newContext({ viewport: more.viewport ?? options.viewport ?? defaultViewport });
      const page = await context.newPage();
      const log: string[] = [];
      // The workbench forwards its console here (smoke-test driver); nothing to exit for a UI window.
      await page.exposeFunction('codeAutomationLog', (_type: unknown, args: unknown) => log.push(String(args)));
      await page.exposeFunction('codeAutomationExit', () => undefined);
      try {
        await page.goto(h.url);
        await page
          .locator('.monaco-workbench .part.statusbar')
          .waitFor({ state: 'visible', timeout: more.readyTimeoutMs ?? 90_000 });
      } catch (e) {
        await context.close().catch(() => undefined);
        throw e;
      }
      return { page, log, close: () => context.close() };
    },
    close: async () => {
      await h.close();
      await repo.dispose();
    },
  };
}
