// For UI tests (mocha in plain Node): a code-server workbench on a throw-away git repository with
// this extension loaded, ready to drive through `page`. One launch costs 20-30 s: share it across
// the tests of a file (open in before(), close in after()).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { launchCodeServer, type CodeServerHandle } from './codeServer';
import { repoRoot, testResultsDir } from './paths';
import { createTempRepo, defaultFiles, type TempRepo } from './tempRepo';

export interface WorkbenchOptions {
  /** Files committed in the repository's first commit (default: a small sample project). */
  files?: Record<string, string>;
  settings?: Record<string, unknown>;
  extensionEnvironment?: Record<string, string>;
  viewport?: { width: number; height: number };
  onLog?: (line: string) => void;
  /** How long to wait for the status bar (default 90 s). */
  readyTimeoutMs?: number;
}

export interface Workbench extends CodeServerHandle {
  repo: TempRepo;
  /** Saves a full-window PNG as test-results/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

export async function openWorkbench(options: WorkbenchOptions = {}): Promise<Workbench> {
  const repo = await createTempRepo(options.files ?? defaultFiles);
  let handle: CodeServerHandle | undefined;
  try {
    handle = await launchCodeServer({
      extensionDevelopmentPath: repoRoot,
      workspaceFolder: repo.dir,
      settings: options.settings,
      extensionEnvironment: options.extensionEnvironment,
      viewport: options.viewport,
      onLog: options.onLog,
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
    close: async () => {
      await h.close();
      await repo.dispose();
    },
  };
}
