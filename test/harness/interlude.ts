// Window checks in the middle of an extension-host test run (SuiteOptions.interludeChecks): the
// test calls windowInterlude() and waits; the harness, which holds the Playwright page, sees the
// request file, runs its checks, then writes the done file with the names of the failed ones.
// Plain Node on both sides (no vscode, no playwright import): the two share only a folder.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from './waitFor';

/** The extension host's variable naming the folder of the two files. */
export const interludeDirVariable = 'PA_INTERLUDE_DIR';
const requestFile = 'interlude-request';
const doneFile = 'interlude-done.json';

/** Extension-host side: asks for the checks and resolves when they have run; rejects if any failed. */
export async function windowInterlude(timeoutMs = 240_000): Promise<void> {
  const dir = process.env[interludeDirVariable];
  if (!dir) {
    throw new Error(`${interludeDirVariable} is not set: this run has no interlude checks`);
  }
  writeFileSync(join(dir, requestFile), '');
  const failed = await waitFor(
    'the window checks of the interlude',
    () => existsSync(join(dir, doneFile)) && (JSON.parse(readFileSync(join(dir, doneFile), 'utf8')) as string[]),
    { timeoutMs, everyMs: 200 },
  );
  if (failed.length > 0) {
    throw new Error(`window checks failed: ${failed.join('; ')}`);
  }
}

/**
 * Harness side: waits for the request (or for the tests to end without one), then runs `checks`,
 * which resolves to the names of the failed ones, and answers.
 */
export async function serveInterlude(
  dir: string,
  handle: { page: Page; exited: Promise<number> },
  checks: (page: Page) => Promise<string[]>,
): Promise<void> {
  let ended = false;
  void handle.exited.then(() => (ended = true));
  while (!existsSync(join(dir, requestFile))) {
    if (ended) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const failed = await checks(handle.page);
  // Written whole then renamed: the extension host polls for the file and must never read it half-written
  // (a CI run once failed on JSON.parse of an empty file).
  const partial = join(dir, `${doneFile}.partial`);
  await writeFile(partial, JSON.stringify(failed));
  await rename(partial, join(dir, doneFile));
}
