// Bundles the extension, the demo agent and the tests with esbuild.
// Usage: node scripts/build.mjs [--production] [--watch]
import * as esbuild from 'esbuild';
import { readdirSync, statSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePlanValidator } from './planValidator.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

function listTs(dir) {
  const abs = join(root, dir);
  let out = [];
  for (const name of readdirSync(abs)) {
    const full = join(abs, name);
    if (statSync(full).isDirectory()) {
      out = out.concat(listTs(relative(root, full)));
    } else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
      out.push(relative(root, full));
    }
  }
  return out;
}

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  absWorkingDir: root,
  // ES module builds first: jsonc-parser's "main" is a UMD build whose inner require()s esbuild cannot follow.
  mainFields: ['module', 'main'],
};

const configs = [
  // vscode is provided by the host; everything else is bundled.
  { ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] },
  { ...common, entryPoints: ['src/demoAgent/demoAgent.ts'], outfile: 'dist/demoAgent.js' },
  { ...common, entryPoints: ['src/supervisor/supervisor.ts'], outfile: 'dist/supervisor.js' },
  // A worker thread of the extension host: starts git processes off the host's thread.
  { ...common, entryPoints: ['src/node/git/spawnWorker.ts'], outfile: 'dist/gitSpawnWorker.js' },
  // Run inside bubblewrap where socat or nsenter is missing: the bridge to the supervisor's network filter.
  { ...common, entryPoints: ['src/node/sandbox/sandboxMain.ts'], outfile: 'dist/sandbox.js' },
  // Run by VS Code (vscode:uninstall) without its API: removes the warm worktree pools.
  { ...common, entryPoints: ['src/uninstall/uninstall.ts'], outfile: 'dist/uninstall.js' },
];
if (!production) {
  const testEntries = ['test', 'bench'].flatMap((d) => {
    try {
      return listTs(d);
    } catch {
      return [];
    }
  });
  configs.push({
    ...common,
    entryPoints: testEntries,
    outdir: 'out',
    outbase: '.',
    external: ['vscode', 'mocha', 'playwright-core'],
  });
}

if (!production) {
  rmSync(join(root, 'out'), { recursive: true, force: true });
}
// The plan validator is compiled from the plan schema before anything that imports it is bundled.
writePlanValidator();
if (watch) {
  for (const config of configs) {
    const ctx = await esbuild.context(config);
    await ctx.watch();
  }
  console.log('[build] watching');
} else {
  // Each bundle builds on its own: a broken extension does not keep the tests from being bundled.
  const outcomes = await Promise.allSettled(configs.map((c) => esbuild.build(c)));
  if (outcomes.some((o) => o.status === 'rejected')) {
    process.exitCode = 1;
  }
}
