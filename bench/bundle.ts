// Figure 4: size of dist/extension.js as `node scripts/build.mjs --production` makes it. Bundled
// in memory with the same options, so dist/ and out/ are left as they are.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { repoRoot } from '../test/harness/paths';

export interface BundleResult {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Largest contributors to the minified output, by package (or src/ for our own code). */
  readonly largest: { source: string; bytes: number }[];
}

function sourceOf(input: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match ? match[1] : input.startsWith('src/') ? 'src/ (this extension)' : input;
}

/** dist/extension.js as the production build makes it, in memory. */
export async function productionBundle(): Promise<{ contents: Uint8Array; metafile: import('esbuild').Metafile }> {
  // Loaded at run time: esbuild's JS API finds its native binary next to itself and cannot be bundled.
  const esbuild = createRequire(path.join(repoRoot, 'package.json'))('esbuild') as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    absWorkingDir: repoRoot,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: false,
    minify: true,
    external: ['vscode'],
    // As scripts/build.mjs: ES module builds first, else jsonc-parser's UMD "main" is bundled with
    // inner require('./impl/format') calls that fail when the bundle loads.
    mainFields: ['module', 'main'],
    logLevel: 'warning',
    write: false,
    metafile: true,
  });
  const file = result.outputFiles.find((f) => f.path.endsWith('extension.js'));
  if (!file) {
    throw new Error('esbuild produced no extension.js');
  }
  return { contents: file.contents, metafile: result.metafile };
}

export async function measureBundle(): Promise<BundleResult> {
  const { contents, metafile } = await productionBundle();
  const bySource = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      bySource.set(sourceOf(input), (bySource.get(sourceOf(input)) ?? 0) + bytesInOutput);
    }
  }
  const largest = [...bySource]
    .map(([source, bytes]) => ({ source, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  return { bytes: contents.byteLength, gzipBytes: gzipSync(contents).byteLength, largest };
}
