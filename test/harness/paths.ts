// Locations shared by the harness entries. Compiled files live in out/test/<dir>/, but the
// lookup walks up to the package.json so it does not depend on that depth.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'parallel-agents'
    ) {
      return dir;
    }
    if (dirname(dir) === dir) {
      throw new Error(`no parallel-agents package.json above ${start}`);
    }
  }
}

/** Absolute path of the repository (the extension's development path). */
export const repoRoot = findRepoRoot(__dirname);

/** The extension-host mocha entry, as compiled by scripts/build.mjs. */
export const suiteEntry = join(repoRoot, 'out', 'test', 'suite', 'index.js');

/** Where tests put screenshots and other artefacts (gitignored). */
export const testResultsDir = join(repoRoot, 'test-results');
