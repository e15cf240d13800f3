// The extension-host test entry (the `run()` that VS Code calls for extensionTestsPath, both in
// code-server and in @vscode/test-electron). Runs every compiled test/suite/**/*.test.ts with
// mocha's bdd interface, prints a spec report (forwarded to the harness's console) and writes a
// {passed, failed, pending, failures} summary to env PA_TEST_RESULTS. PA_TEST_GREP filters tests.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Mocha from 'mocha';
import CountingReporter from '../harness/countingReporter';

export async function run(): Promise<void> {
  // This file is out/test/suite/index.js; the tests are its siblings. mocha is resolved from the
  // repository's node_modules because out/ lives inside the repository.
  const files = readdirSync(__dirname, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js'))
    .sort()
    .map((f) => join(__dirname, f));
  if (files.length === 0) {
    throw new Error(`no *.test.js files under ${__dirname}`);
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
