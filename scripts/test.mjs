// What `npm test` runs: build, typecheck, lint, unit + git tests (mocha in Node), the real agent
// CLIs against a scripted model (provisioned first), provisioning of code-server, the
// extension-host suite inside code-server (with the real CLIs), the UI tests (Playwright), then
// the packaged .vsix installed into code-server: a smoke suite (vsix) and an untrusted workspace
// (trust). Those two come last, since `npm run package` rebuilds dist/ for production.
// Every stage streams its output and runs even when an earlier one failed (as far as it can); the
// last line printed is `N passed, N failed`, the sum of all mocha tests, where a failed build,
// typecheck, lint or provisioning stage counts as one failure.
// Usage: node scripts/test.mjs [--only=build,unit,suite,trust,vsix,...]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'pa-test-'));
const reporter = join(root, 'scripts', 'countingReporter.cjs');
const mochaBin = join(root, 'node_modules', 'mocha', 'bin', 'mocha.js');
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;

/** @type {{name: string, passed: number, failed: number, seconds: number, note: string, failures?: {title: string, error: string}[]}[]} */
const results = [];
let provisionJson;
let clisJson;

/** The agent CLIs' paths (scripts/provision-clis.sh), provisioned once; undefined when that failed. */
async function provisionClis() {
  if (clisJson === undefined) {
    const { code, stdout } = await run('bash', ['scripts/provision-clis.sh'], { captureStdout: true });
    if (code !== 0) {
      console.error(`[test] provisioning the agent CLIs failed (scripts/provision-clis.sh exit code ${code})`);
      return undefined;
    }
    clisJson = stdout.trim();
  }
  return clisJson;
}

/** Runs argv with inherited output (stdout captured instead when asked); resolves, never rejects. */
function run(file, args, { env = {}, captureStdout = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', captureStdout ? 'pipe' : 'inherit', 'inherit'],
    });
    let stdout = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.on('error', (e) => {
      console.error(`[test] cannot start ${file}: ${e.message}`);
      resolve({ code: 127, stdout });
    });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout }));
  });
}

async function stage(name, body) {
  if (only && !only.has(name)) {
    return;
  }
  console.log(`\n===== ${name} =====`);
  const started = Date.now();
  let outcome;
  try {
    outcome = await body();
  } catch (e) {
    console.error(`[test] ${name}: ${e instanceof Error ? e.stack : e}`);
    outcome = { passed: 0, failed: 1, note: 'crashed' };
  }
  const seconds = (Date.now() - started) / 1000;
  results.push({ name, passed: 0, failed: 0, note: '', ...outcome, seconds });
}

/** A stage that passes or fails as a whole (build, typecheck, lint). */
async function command(file, args) {
  const { code } = await run(file, args);
  return code === 0 ? { note: 'ok' } : { failed: 1, note: `exit code ${code}` };
}

function testFiles(dir) {
  const abs = join(root, dir);
  if (!existsSync(abs)) {
    return [];
  }
  return readdirSync(abs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.js'));
}

/** Runs mocha with the counting reporter and reads back its summary. */
async function mocha(name, args, env = {}) {
  const output = join(scratch, `${name}.json`);
  const color = process.stdout.isTTY ? '--color' : '--no-color'; // CI=true alone would turn colours on in logs
  const { code } = await run(
    process.execPath,
    [mochaBin, ...args, color, '--reporter', reporter, '--reporter-option', `output=${output}`],
    { env },
  );
  let summary;
  try {
    summary = JSON.parse(readFileSync(output, 'utf8'));
  } catch {
    return { failed: 1, note: `mocha exited with ${code} and wrote no results` };
  }
  // A non-zero exit without a failed test (e.g. a file that throws on load) is still a failure.
  const failed = code !== 0 && summary.failed === 0 ? 1 : summary.failed;
  return { passed: summary.passed, failed, note: `exit code ${code}`, failures: summary.failures };
}

await stage('build', () => command(process.execPath, ['scripts/build.mjs']));

await stage('typecheck', () => command('npx', ['--no-install', 'tsc', '--noEmit', '-p', '.']));

await stage('lint', () => command('npm', ['run', '--silent', 'lint']));

await stage('unit', async () => {
  const count = testFiles('out/test/unit').length + testFiles('out/test/git').length;
  if (count === 0) {
    return { note: 'no unit or git tests yet' };
  }
  return mocha('unit', ['--config', '.mocharc.json']);
});

// Claude Code, Codex and Gemini CLI installed from npm (cached outside the clone), driven by a real
// AgentManager against a model server on loopback. A failed install fails the stage: never skipped.
await stage('clis', async () => {
  const clis = await provisionClis();
  if (!clis) {
    return { failed: 1, note: 'provisioning the CLIs failed' };
  }
  return mocha('clis', ['--no-config', '--ui', 'bdd', '--timeout', '180000', 'out/test/agents/**/*.test.js'], {
    PA_CLIS_JSON: clis,
  });
});

await stage('provision', async () => {
  const { code, stdout } = await run('bash', ['scripts/provision-vscode.sh', '--json'], { captureStdout: true });
  if (code !== 0) {
    return { failed: 1, note: `exit code ${code}` };
  }
  provisionJson = stdout.trim();
  console.log(provisionJson);
  return { note: 'ok' };
});

// Sandboxed agents under the real bubblewrap, which the provisioning above installs from Debian's
// packages (scripts/provision-vscode.sh): after it, so that a fresh clone has it.
// Real CLIs (Claude Code, Codex, Gemini, Copilot) run sandboxed there too: the CLIs provisioned for the clis stage.
await stage('sandbox', async () => {
  const clis = await provisionClis();
  if (!clis) {
    return { failed: 1, note: 'provisioning the CLIs failed' };
  }
  return mocha('sandbox', ['--no-config', '--ui', 'bdd', '--timeout', '60000', 'out/test/sandbox/**/*.test.js'], {
    PA_REQUIRE_BWRAP: provisionJson ? '1' : '',
    PA_CLIS_JSON: clis,
  });
});

/** Runs a harness entry (runSuite.js, runVsix.js) and reads the {passed, failed} it writes. */
async function harnessEntry(name, script, args = [], env = {}) {
  const summaryFile = join(scratch, `${name}.json`);
  const { code } = await run(process.execPath, [script, '--summary', summaryFile, ...args], {
    env: { PA_PROVISION_JSON: provisionJson, ...env },
  });
  try {
    const { passed, failed, failures } = JSON.parse(readFileSync(summaryFile, 'utf8'));
    return { passed, failed: code !== 0 && failed === 0 ? 1 : failed, note: `exit code ${code}`, failures };
  } catch {
    return { failed: 1, note: `exit code ${code}, no summary` };
  }
}

// The suite always gets the real CLIs (test/suite/realClis.test.ts): failing to provision them
// is a failure of this stage, never a skip.
await stage('suite', async () => {
  if (!provisionJson) {
    return { note: 'skipped: no code-server' };
  }
  const clis = await provisionClis();
  const outcome = await harnessEntry('suite', 'out/test/harness/runSuite.js', [], clis ? { PA_CLIS_JSON: clis } : {});
  return clis
    ? outcome
    : { ...outcome, failed: outcome.failed + 1, note: `${outcome.note}; provisioning the CLIs failed` };
});

await stage('ui', async () => {
  if (!provisionJson) {
    return { note: 'skipped: no code-server' };
  }
  if (testFiles('out/test/ui').length === 0) {
    return { note: 'no UI tests' };
  }
  return mocha('ui', ['--no-config', '--ui', 'bdd', '--timeout', '180000', 'out/test/ui/**/*.test.js'], {
    PA_PROVISION_JSON: provisionJson,
  });
});

// What users install: `npm run package`, `code-server --install-extension`, a smoke suite run
// against the installed copy (test/vsix/). Last: packaging rebuilds dist/ for production.
await stage('vsix', async () => {
  if (!provisionJson) {
    return { note: 'skipped: no code-server' };
  }
  return harnessEntry('vsix', 'out/test/harness/runVsix.js', ['--only', 'smoke']);
});

// The installed .vsix with workspace trust enabled and the folder untrusted: nothing may run.
await stage('trust', async () => {
  if (!provisionJson) {
    return { note: 'skipped: no code-server' };
  }
  return harnessEntry('trust', 'out/test/harness/runVsix.js', ['--only', 'trust']);
});

rmSync(scratch, { recursive: true, force: true });

console.log('\n===== summary =====');
for (const r of results) {
  const verdict = r.failed > 0 ? 'FAIL' : 'ok  ';
  console.log(
    `${verdict} ${r.name.padEnd(10)} ${String(r.passed).padStart(4)} passed ${String(r.failed).padStart(3)} failed  ${r.seconds.toFixed(1).padStart(6)} s  ${r.note}`,
  );
}
// The failed tests again, so a log that keeps only its tail still says which ones failed.
for (const r of results) {
  for (const f of r.failures ?? []) {
    const lines = f.error.split('\n').slice(0, 6).join('\n      ');
    console.log(`\n${r.name}: ${f.title}\n      ${lines}`);
  }
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
process.exitCode = failed > 0 ? 1 : 0;
console.log(`${passed} passed, ${failed} failed`);
