// Extension-host entry for the activation figure (passed as extensionTestsPath): activates the
// extension, then writes what it measured as JSON to env PA_BENCH_ACTIVATION_OUT. No mocha.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { ParallelAgentsApi } from '../../src/extension';

export interface ActivationSample {
  /** The extension's own figure: activate() from its first line to its return. */
  readonly activationMs: number;
  /** Wall time of `extension.activate()` seen from here (includes loading dist/extension.js). */
  readonly activateCallMs: number;
  /** True when VS Code had already activated it (onStartupFinished) before this entry ran. */
  readonly wasActive: boolean;
  /** Median of 5 loads of a freshly compiled copy of dist/extension.js (module code, no activate()). */
  readonly moduleLoadMs?: number;
  /** The same for the production (minified) bundle, from env PA_BENCH_PRODUCTION_BUNDLE. */
  readonly productionLoadMs?: number;
  readonly moduleLoadError?: string;
  /**
   * api.viewSnapshot() once, right after activate(): every row of the Agents view and its file rows
   * built from memory, cold. More than a first draw, which builds the top-level rows only.
   */
  readonly viewSnapshotMs: number;
  /** Median of 5 more snapshots after that one: the tree built again as a refresh of the view does. */
  readonly viewSnapshotWarmMs: number;
  /** Agents the extension holds after activation (the records it restored). */
  readonly agentCount: number;
  readonly vscodeVersion: string;
  readonly nodeVersion: string;
}

const extensionId = 'parallel-agents.parallel-agents';

/**
 * Loads copies of a bundle whose sources differ by a comment, so V8's in-memory compilation cache
 * cannot serve them: reading, compiling and running its top-level code, as at activation. The
 * copies go to `scratch`, inside the extension's folder, so their `require('vscode')` is answered.
 */
function timeModuleLoad(file: string, scratch: string, times = 5): number {
  const source = readFileSync(file, 'utf8');
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const copy = join(scratch, `extension-copy-${randomUUID()}.js`);
    writeFileSync(copy, `${source}\n// ${randomUUID()}\n`);
    try {
      const started = performance.now();
      createRequire(__filename)(copy);
      samples.push(performance.now() - started);
    } finally {
      rmSync(copy, { force: true });
    }
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)];
}

export async function run(): Promise<void> {
  const out = process.env.PA_BENCH_ACTIVATION_OUT;
  const production = process.env.PA_BENCH_PRODUCTION_BUNDLE;
  if (!out || !production) {
    throw new Error('PA_BENCH_ACTIVATION_OUT or PA_BENCH_PRODUCTION_BUNDLE is not set');
  }
  const extension = vscode.extensions.getExtension<ParallelAgentsApi>(extensionId);
  if (!extension) {
    throw new Error(`${extensionId} is not loaded`);
  }
  const wasActive = extension.isActive;
  const started = performance.now();
  const api = await extension.activate();
  const activateCallMs = performance.now() - started;
  const snapshotStarted = performance.now();
  api.viewSnapshot();
  const viewSnapshotMs = performance.now() - snapshotStarted;
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    api.viewSnapshot();
    warm.push(performance.now() - t);
  }
  const viewSnapshotWarmMs = warm.sort((a, b) => a - b)[2];
  const agentCount = api.agents().length;
  let moduleLoadMs: number | undefined;
  let productionLoadMs: number | undefined;
  let moduleLoadError: string | undefined;
  try {
    moduleLoadMs = timeModuleLoad(join(extension.extensionPath, 'dist', 'extension.js'), dirname(production));
    productionLoadMs = timeModuleLoad(production, dirname(production));
  } catch (e) {
    moduleLoadError = e instanceof Error ? e.message : String(e);
  }
  const sample: ActivationSample = {
    activationMs: api.activationMs,
    activateCallMs,
    wasActive,
    moduleLoadMs,
    productionLoadMs,
    moduleLoadError,
    viewSnapshotMs,
    viewSnapshotWarmMs,
    agentCount,
    vscodeVersion: vscode.version,
    nodeVersion: process.version,
  };
  writeFileSync(out, JSON.stringify(sample, null, 2));
}
