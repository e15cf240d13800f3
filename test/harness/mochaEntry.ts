// The body of every extension-host test entry (the `run()` VS Code calls for extensionTestsPath,
// in code-server and in @vscode/test-electron): runs the compiled *.test.js files of one folder
// with mocha's bdd interface, prints a spec report (forwarded to the harness's console) and writes
// a {passed, failed, pending, failures} summary to env PA_TEST_RESULTS. PA_TEST_GREP filters
// tests; PA_TEST_FILES (comma-separated names relative to the folder) picks other files instead.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import CountingReporter from './countingReporter';

export async function runMochaIn(dir: string): Promise<void> {
  const chosen = process.env.PA_TEST_FILES?.split(',').filter(Boolean);
  const files = (
    chosen ?? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.js'))
  )
    .sort()
    .map((f) => join(dir, f));
  if (files.length === 0) {
    throw new Error(`no *.test.js files under ${dir}`);
  }
  // The output is forwarded as plain text. `color: false` does not reach mocha's ✔, which
  // log-symbols coloured when it loaded (CI=true is enough for that).
  Mocha.reporters.Base.symbols.ok = '✔';
  Mocha.reporters.Base.symbols.err = '✖';
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 60_000,
    reporter: CountingReporter,
    reporterOptions: { output: process.env.PA_TEST_RESULTS },
  });
  const grep = process.env.PA_TEST_GREP;
  if (grep) {
    mocha.grep(grep);
  }
  files.forEach((f) => mocha.addFile(f));
  const failures = await new Promise<number>((resolve) => mocha.run(resolve));
  if (failures > 0) {
    throw new Error(`${failures} extension test(s) failed`);
  }
}
