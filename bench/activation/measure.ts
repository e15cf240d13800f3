// Figure 3: activation time in a real VS Code (code-server's extension host), through the test
// harness, with bench/activation/entry.ts as the extension-tests entry.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../../test/harness/paths';
import { createTempRepo } from '../../test/harness/tempRepo';
import { productionBundle } from '../bundle';
import { provisionHost, runInHost } from '../hostRun';
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
  const paths = await provisionHost(entry);
  if ('reason' in paths) {
    return { available: false, reason: paths.reason };
  }
  await mkdir(scratchInExtension, { recursive: true });
  await writeFile(productionCopy, (await productionBundle()).contents);
  const repo = await createTempRepo();
  await options.prepare?.(repo.dir);
  const started = Date.now();
  try {
    const sample = await runInHost<ActivationSample>(paths, {
      entry,
      workspaceFolder: repo.dir,
      outVariable: 'PA_BENCH_ACTIVATION_OUT',
      environment: { PA_BENCH_PRODUCTION_BUNDLE: productionCopy },
      timeoutMs: 180_000,
    });
    return { available: true, launchSeconds: (Date.now() - started) / 1000, ...sample };
  } finally {
    await repo.dispose();
    await rm(scratchInExtension, { recursive: true, force: true });
  }
}
