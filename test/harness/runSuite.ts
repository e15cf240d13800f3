// Entry for the extension-host suite: `node out/test/harness/runSuite.js [--summary FILE] [--grep RE]`
// (env PA_SUITE_TIMEOUT_MS overrides the 10-minute limit of the whole run).
// Opens a throw-away git repository in code-server with this repository loaded as the extension
// under development, runs out/test/suite/index.js there and prints the forwarded output.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExtensionTests } from './codeServer';
import type { TestResults } from './countingReporter';
import { repoRoot, suiteEntry } from './paths';
import { provision } from './provision';
import { createTempRepo } from './tempRepo';

export interface SuiteSummary {
  passed: number;
  failed: number;
  exitCode: number;
}

export async function runSuite(options: { grep?: string; timeoutMs?: number } = {}): Promise<SuiteSummary> {
  if (!existsSync(suiteEntry)) {
    console.error(`[suite] ${suiteEntry} is missing: run node scripts/build.mjs first`);
    return { passed: 0, failed: 1, exitCode: 1 };
  }
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    console.error('[suite] dist/extension.js is missing: the extension will not activate, the suite runs anyway');
  }
  const paths = await provision();
  const repo = await createTempRepo();
  const scratch = await mkdtemp(join(tmpdir(), 'pa-suite-'));
  const resultsFile = join(scratch, 'results.json');
  const started = Date.now();
  try {
    const extensionEnvironment: Record<string, string> = { PA_TEST_RESULTS: resultsFile, PA_TEST_WORKSPACE: repo.dir };
    if (options.grep) {
      extensionEnvironment.PA_TEST_GREP = options.grep;
    }
    const run = await runExtensionTests({
      paths,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: suiteEntry,
      workspaceFolder: repo.dir,
      extensionEnvironment,
      timeoutMs: options.timeoutMs,
      onLog: (line) => console.log(line),
    });
    const results = await readResults(resultsFile);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (run.timedOut) {
      console.error(`[suite] timed out after ${seconds} s`);
    }
    if (run.screenshot) {
      console.error(`[suite] the window at the end: ${run.screenshot}`);
    }
    if (!results) {
      console.error(`[suite] no results were written (exit code ${run.exitCode}); code-server said:`);
      console.error(run.serverOutput.slice(-40).join('\n'));
      return { passed: 0, failed: 1, exitCode: 1 };
    }
    // run() rejects without a failed test when, e.g., no test file was found.
    const failed = results.failed > 0 || run.exitCode === 0 ? results.failed : 1;
    console.log(`[suite] ${results.passed} passed, ${failed} failed in ${seconds} s (exit code ${run.exitCode})`);
    return { passed: results.passed, failed, exitCode: failed > 0 || run.exitCode !== 0 ? 1 : 0 };
  } finally {
    await repo.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}

async function readResults(file: string): Promise<TestResults | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as TestResults;
  } catch {
    return undefined;
  }
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (require.main === module) {
  const summaryFile = argValue('--summary');
  const timeoutMs = Number(process.env.PA_SUITE_TIMEOUT_MS) || undefined;
  runSuite({ grep: argValue('--grep') ?? process.env.PA_TEST_GREP, timeoutMs })
    .catch((e: unknown): SuiteSummary => {
      console.error('[suite] harness error:', e);
      return { passed: 0, failed: 1, exitCode: 1 };
    })
    .then(async (summary) => {
      if (summaryFile) {
        await writeFile(summaryFile, JSON.stringify(summary));
      }
      process.exitCode = summary.exitCode;
    });
}
