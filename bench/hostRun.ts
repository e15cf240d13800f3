// A bench entry run in a real VS Code (code-server's extension host, its workbench in Chromium)
// through the test harness: the entry measures inside the host and writes its figures as JSON to
// the file named by an environment variable; this side provisions, launches and reads them.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LaunchOptions, runExtensionTests } from '../test/harness/codeServer';
import { repoRoot } from '../test/harness/paths';
import { provision, type ProvisionedPaths } from '../test/harness/provision';
import { errorText } from './stats';

/** code-server ready to run `entry`, or why a bench in it cannot run here (a figure reported as unavailable). */
export async function provisionHost(entry: string): Promise<ProvisionedPaths | { readonly reason: string }> {
  let paths: ProvisionedPaths;
  try {
    paths = await provision();
  } catch (e) {
    return { reason: `code-server could not be provisioned: ${errorText(e)}` };
  }
  for (const file of [entry, join(repoRoot, 'dist', 'extension.js')]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run node scripts/build.mjs first`);
    }
  }
  return paths;
}

export interface HostRun {
  readonly entry: string;
  readonly workspaceFolder: string;
  /** The environment variable through which the entry learns where to write its figures. */
  readonly outVariable: string;
  readonly environment?: Record<string, string>;
  readonly viewport?: LaunchOptions['viewport'];
  readonly timeoutMs: number;
}

/** Runs the entry in the extension host on the workspace folder; resolves with the figures it wrote. */
export async function runInHost<T>(paths: ProvisionedPaths, run: HostRun): Promise<T> {
  const scratch = await mkdtemp(join(tmpdir(), 'pa-bench-host-'));
  const outFile = join(scratch, 'figures.json');
  try {
    const ran = await runExtensionTests({
      paths,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: run.entry,
      workspaceFolder: run.workspaceFolder,
      extensionEnvironment: { ...run.environment, [run.outVariable]: outFile },
      viewport: run.viewport,
      timeoutMs: run.timeoutMs,
    });
    try {
      return JSON.parse(await readFile(outFile, 'utf8')) as T;
    } catch {
      const tail = [...ran.log.slice(-15), ...ran.serverOutput.slice(-15)].join('\n');
      throw new Error(
        `the extension host wrote no figures (exit code ${ran.exitCode}${ran.timedOut ? ', timed out' : ''}):\n${tail}`,
      );
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
