// One extension-host test run (the entries runSuite.ts and runVsix.ts): a throw-away git
// repository opened in code-server, a compiled `run()` entry executed there, its forwarded output
// printed and its counted results read back. PA_CLIS_JSON (scripts/provision-clis.sh) reaches the
// extension host as is.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { runExtensionTests } from './codeServer';
import { testResultsDir } from './paths';
import type { TestResults } from './countingReporter';
import { repoRoot, suiteEntry } from './paths';
import { provision } from './provision';
import { interludeDirVariable, serveInterlude } from './interlude';
import { createTempRepo } from './tempRepo';

export interface SuiteSummary {
  passed: number;
  failed: number;
  exitCode: number;
  /** Titles and first lines of the failed tests and checks, repeated by scripts/test.mjs at the end. */
  failures?: { title: string; error: string }[];
}

/** A check of what the window shows, run with Playwright after the extension-host tests; counted as a test. */
export interface WindowCheck {
  readonly name: string;
  run(page: Page): Promise<void>;
}

export interface SuiteOptions {
  grep?: string;
  timeoutMs?: number;
  /** Prefix of the lines this runner prints (default `suite`). */
  label?: string;
  /** The compiled `run()` entry (default out/test/suite/index.js). */
  entry?: string;
  /** Default: this repository, i.e. the extension from source. */
  extensionDevelopmentPath?: string;
  /** Installed extensions code-server loads (see installExtension). */
  extensionsDir?: string;
  workspaceTrust?: boolean;
  /** File names relative to the entry's folder, instead of every *.test.js there (PA_TEST_FILES). */
  files?: string[];
  extensionEnvironment?: Record<string, string>;
  windowChecks?: readonly WindowCheck[];
  /**
   * Window checks run in the middle of the tests: when a test calls windowInterlude()
   * (harness/interlude.ts), which waits until they are over. For what the window must show before
   * a test changes it, or for a step only the window can take (granting workspace trust, say).
   */
  interludeChecks?: readonly WindowCheck[];
  /** Writes what the workspace holds before the window opens (e.g. a registry of recorded agents). */
  prepareWorkspace?: (repoDir: string, git: (...args: string[]) => Promise<string>) => Promise<void>;
}

/** The variables every suite gets from the caller's environment when set. */
const passedThrough = ['PA_CLIS_JSON'];

export async function runSuite(options: SuiteOptions = {}): Promise<SuiteSummary> {
  const label = `[${options.label ?? 'suite'}]`;
  const entry = options.entry ?? suiteEntry;
  if (!existsSync(entry)) {
    console.error(`${label} ${entry} is missing: run node scripts/build.mjs first`);
    return { passed: 0, failed: 1, exitCode: 1 };
  }
  if (!options.extensionsDir && !existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    console.error(`${label} dist/extension.js is missing: the extension will not activate, the suite runs anyway`);
  }
  const paths = await provision();
  const repo = await createTempRepo();
  const scratch = await mkdtemp(join(tmpdir(), 'pa-suite-'));
  const resultsFile = join(scratch, 'results.json');
  const started = Date.now();
  try {
    await options.prepareWorkspace?.(repo.dir, repo.git);
    const extensionEnvironment: Record<string, string> = {
      ...options.extensionEnvironment,
      PA_TEST_RESULTS: resultsFile,
      PA_TEST_WORKSPACE: repo.dir,
    };
    for (const name of passedThrough) {
      const value = process.env[name];
      if (value) {
        extensionEnvironment[name] = value;
      }
    }
    if (options.grep) {
      extensionEnvironment.PA_TEST_GREP = options.grep;
    }
    if (options.files) {
      extensionEnvironment.PA_TEST_FILES = options.files.join(',');
    }
    const checks = { passed: 0, failed: 0, failures: [] as { title: string; error: string }[] };
    const runChecks = async (list: readonly WindowCheck[], page: Page): Promise<string[]> => {
      const failed: string[] = [];
      for (const check of list) {
        const error = await windowCheck(check, page, label);
        if (error === undefined) {
          checks.passed++;
        } else {
          checks.failed++;
          checks.failures.push({ title: `${check.name} (window)`, error });
          failed.push(check.name);
        }
      }
      return failed;
    };
    if (options.interludeChecks) {
      extensionEnvironment[interludeDirVariable] = scratch;
    }
    const run = await runExtensionTests({
      duringTests: options.interludeChecks
        ? (handle) => serveInterlude(scratch, handle, (page) => runChecks(options.interludeChecks ?? [], page))
        : undefined,
      afterTests: async (handle) => {
        await runChecks(options.windowChecks ?? [], handle.page);
      },
      paths,
      extensionDevelopmentPath: options.extensionDevelopmentPath ?? repoRoot,
      extensionTestsPath: entry,
      extensionsDir: options.extensionsDir,
      workspaceTrust: options.workspaceTrust,
      workspaceFolder: repo.dir,
      extensionEnvironment,
      timeoutMs: options.timeoutMs,
      onLog: (line) => console.log(line),
    });
    const results = await readResults(resultsFile);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (run.timedOut) {
      console.error(`${label} timed out after ${seconds} s`);
    }
    if (run.screenshot) {
      console.error(`${label} the window at the end: ${run.screenshot}`);
    }
    if (!results) {
      console.error(`${label} no results were written (exit code ${run.exitCode}); code-server said:`);
      console.error(run.serverOutput.slice(-40).join('\n'));
      return { passed: 0, failed: 1, exitCode: 1 };
    }
    // run() rejects without a failed test when, e.g., no test file was found.
    const failed = (results.failed > 0 || run.exitCode === 0 ? results.failed : 1) + checks.failed;
    const passed = results.passed + checks.passed;
    console.log(`${label} ${passed} passed, ${failed} failed in ${seconds} s (exit code ${run.exitCode})`);
    return {
      passed,
      failed,
      exitCode: failed > 0 || run.exitCode !== 0 ? 1 : 0,
      failures: [...results.failures, ...checks.failures],
    };
  } finally {
    await repo.dispose();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Runs one window check; resolves to undefined when it passed, else to its error message. */
async function windowCheck(check: WindowCheck, page: Page, label: string): Promise<string | undefined> {
  try {
    await check.run(page);
    console.log(`    ✔ ${check.name} (window)`);
    return undefined;
  } catch (e) {
    const shot = join(testResultsDir, `window-check-failure.png`);
    await page.screenshot({ path: shot }).catch(() => undefined);
    const message = e instanceof Error ? e.message : String(e);
    console.log(`    ✖ ${check.name} (window)\n      ${message}`);
    console.error(`${label} the window at the failed check: ${shot}`);
    return message;
  }
}

async function readResults(file: string): Promise<TestResults | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as TestResults;
  } catch {
    return undefined;
  }
}

export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** Runs `body` as a command-line entry: writes its summary to --summary FILE and sets the exit code. */
export function runAsMain(label: string, body: () => Promise<SuiteSummary>): void {
  const summaryFile = argValue('--summary');
  body()
    .catch((e: unknown): SuiteSummary => {
      console.error(`[${label}] harness error:`, e);
      return { passed: 0, failed: 1, exitCode: 1 };
    })
    .then(async (summary) => {
      if (summaryFile) {
        await writeFile(summaryFile, JSON.stringify(summary));
      }
      process.exitCode = summary.exitCode;
    });
}
