// Entry for the .vsix suites: `node out/test/harness/runVsix.js [--summary FILE] [--grep RE] [--only smoke|trust]`.
// Tests what users install: `npm run package` into a scratch folder, `code-server
// --install-extension` into a fresh extensions dir, then code-server with that dir and WITHOUT the
// repository as extension under development. The tests (out/test/vsix/index.js) still need a
// development extension to run in: a stub folder holding only a package.json under another id, so
// the extension the tests see is the installed one (test/vsix/installed.test.ts proves it).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { restrictedModeChecks, writeRegistryFixture } from '../vsix/trustWindow';
import { installExtension } from './codeServer';
import { repoRoot } from './paths';
import { provision } from './provision';
import { argValue, runAsMain, runSuite, type SuiteSummary } from './suiteRunner';

export const vsixEntry = join(repoRoot, 'out', 'test', 'vsix', 'index.js');

/** `npm run package -- --out <file>`; stdin closed, so vsce can never wait on a prompt. */
export function packageVsix(file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'package', '--', '--out', file], {
      cwd: repoRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve();
      } else {
        reject(new Error(`npm run package ended with ${signal ?? code}`));
      }
    });
  });
}

/** A development extension with no code and its own id: it only gives the tests a host to run in. */
async function writeRunnerStub(dir: string): Promise<void> {
  const manifest = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
    engines: { vscode: string };
  };
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'vsix-test-runner',
        publisher: 'parallel-agents-tests',
        version: '0.0.0',
        engines: { vscode: manifest.engines.vscode },
        extensionKind: ['workspace'],
      },
      null,
      2,
    ),
  );
}

/**
 * Packages and installs the extension, then runs the smoke suite (test/vsix/) and, unless `trust`
 * is false, test/suite/trust.untrusted.ts with workspace trust on and the folder untrusted: both
 * against the installed copy, which is what users get (an extension under development is exempt
 * from some of Restricted Mode's rules).
 */
export async function runVsix(
  options: { grep?: string; timeoutMs?: number; smoke?: boolean; trust?: boolean } = {},
): Promise<SuiteSummary> {
  const scratch = await mkdtemp(join(tmpdir(), 'pa-vsix-'));
  try {
    const vsix = join(scratch, 'parallel-agents.vsix');
    const extensionsDir = join(scratch, 'extensions');
    const runner = join(scratch, 'runner');
    await packageVsix(vsix);
    const paths = await provision();
    await mkdir(extensionsDir);
    console.log((await installExtension(vsix, extensionsDir, paths)).trim());
    await writeRunnerStub(runner);
    const common = {
      grep: options.grep,
      timeoutMs: options.timeoutMs,
      extensionDevelopmentPath: runner,
      extensionsDir,
      extensionEnvironment: { PA_VSIX_EXTENSIONS_DIR: extensionsDir },
    };
    const runs: SuiteSummary[] = [];
    if (options.smoke !== false) {
      runs.push(await runSuite({ ...common, label: 'vsix', entry: vsixEntry }));
    }
    if (options.trust !== false) {
      runs.push(
        await runSuite({
          ...common,
          label: 'trust',
          workspaceTrust: true,
          files: ['trust.untrusted.js'],
          interludeChecks: restrictedModeChecks,
          prepareWorkspace: writeRegistryFixture,
        }),
      );
    }
    return {
      passed: runs.reduce((n, r) => n + r.passed, 0),
      failed: runs.reduce((n, r) => n + r.failed, 0),
      exitCode: runs.some((r) => r.exitCode !== 0) ? 1 : 0,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const only = argValue('--only'); // smoke | trust
  runAsMain('vsix', () =>
    runVsix({
      grep: argValue('--grep'),
      timeoutMs: Number(process.env.PA_SUITE_TIMEOUT_MS) || undefined,
      smoke: only === undefined || only === 'smoke',
      trust: only === undefined || only === 'trust',
    }),
  );
}
