// Figure 3: activation time in a real VS Code (code-server's extension host), through the test
// harness, with bench/activation/entry.ts as the extension-tests entry.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExtensionTests } from '../../test/harness/codeServer';
import { repoRoot } from '../../test/harness/paths';
import { provision, type ProvisionedPaths } from '../../test/harness/provision';
import { createTempRepo } from '../../test/harness/tempRepo';
import { productionBundle } from '../bundle';
import { errorText } from '../stats';
import type { ActivationSample } from './entry';

export type ActivationResult =
  | ({ readonly available: true; readonly launchSeconds: number } & ActivationSample)
  | { readonly available: false; readonly reason: string };

const entry = join(repoRoot, 'out', 'bench', 'activation', 'entry.js');
/**
 * Inside the extension's folder, so that its `require('vscode')` is answered in the host; not in
 * out/, which a concurrent build may wipe.
 */
const scratchInExtension = join(repoRoot, 'bench-results', '.activation');
const productionCopy = join(scratchInExtension, 'extension.production.js');

export interface ActivationOptions {
  /** Runs on the sample repository before VS Code opens it (e.g. writes records into its registry). */
  readonly prepare?: (repoDir: string) => Promise<void>;
}

export async function measureActivation(options: ActivationOptions = {}): Promise<ActivationResult> {
  let paths: ProvisionedPaths;
  try {
    paths = await provision();
  } catch (e) {
    return { available: false, reason: `code-server could not be provisioned: ${errorText(e)}` };
  }
  for (const file of [entry, join(repoRoot, 'dist', 'extension.js')]) {
    if (!existsSync(file)) {
      throw new Error(`${file} is missing: run node scripts/build.mjs first`);
    }
  }
  await mkdir(scratchInExtension, { recursive: true });
  await writeFile(productionCopy, (await productionBundle()).contents);
  const repo = await createTempRepo();
  await options.prepare?.(repo.dir);
  const scratch = await mkdtemp(join(tmpdir(), 'pa-bench-activation-'));
  const outFile = join(scratch, 'activation.json');
  const started = Date.now();
  try {
    const run = await runExtensionTests({
      paths,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: entry,
      workspaceFolder: repo.dir,
      extensionEnvironment: { PA_BENCH_ACTIVATION_OUT: outFile, PA_BENCH_PRODUCTION_BUNDLE: productionCopy },
      timeoutMs: 180_000,
    });
    let sample: ActivationSample;
    try {
      sample = JSON.parse(await readFile(outFile, 'utf8')) as ActivationSample;
    } catch {
      const tail = [...run.log.slice(-15), ...run.serverOutput.slice(-15)].join('\n');
      throw new Error(
        `the extension host wrote no figures (exit code ${run.exitCode}${run.timedOut ? ', timed out' : ''}):\n${tail}`,
      );
    }
    return { available: true, launchSeconds: (Date.now() - started) / 1000, ...sample };
  } finally {
    await repo.dispose();
    await rm(scratch, { recursive: true, force: true });
    await rm(scratchInExtension, { recursive: true, force: true });
  }
}
