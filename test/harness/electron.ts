// Entry for `npm run test:electron`: the same extension-host suite in desktop VS Code through
// @vscode/test-electron, for machines with a display (or xvfb) and network access; it cannot run
// on the offline CI machine, where runSuite.ts (code-server) does the job.
// VSCODE_EXECUTABLE uses an installed VS Code instead of downloading VSCODE_VERSION (default stable).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import type { TestResults } from './countingReporter';
import { repoRoot, suiteEntry } from './paths';
import { createTempRepo } from './tempRepo';

async function main(): Promise<number> {
  const repo = await createTempRepo();
  const scratch = await mkdtemp(join(tmpdir(), 'pa-electron-'));
  const resultsFile = join(scratch, 'results.json');
  try {
    const exitCode = await runTests({
      version: process.env.VSCODE_VERSION ?? 'stable',
      vscodeExecutablePath: process.env.VSCODE_EXECUTABLE,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: suiteEntry,
      extensionTestsEnv: {
        PA_TEST_RESULTS: resultsFile,
        PA_TEST_WORKSPACE: repo.dir,
        PA_TEST_GREP: process.env.PA_TEST_GREP,
      },
      launchArgs: [
        repo.dir,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        '--user-data-dir',
        join(scratch, 'user-data'),
        '--extensions-dir',
        join(scratch, 'extensions'),
      ],
    }).catch((e: unknown) => {
      console.error('[electron]', e instanceof Error ? e.message : e);
      return 1;
    });
    const results = await readFile(resultsFile, 'utf8')
      .then((text) => JSON.parse(text) as TestResults)
      .catch(() => undefined);
    if (results) {
      console.log(`${results.passed} passed, ${results.failed} failed`);
    }
    return exitCode;
  } finally {
    await repo.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    console.error('[electron] harness error:', e);
    process.exitCode = 1;
  },
);
