// Mocha's spec output plus a machine-readable summary, so scripts/test.mjs can add up the counts
// of every stage. The summary goes to reporter option `output` (or env PA_MOCHA_RESULTS):
//   mocha --reporter out/test/harness/countingReporter.js --reporter-option output=FILE
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import Mocha from 'mocha';

export interface TestFailure {
  title: string;
  error: string;
}

export interface TestResults {
  passed: number;
  failed: number;
  pending: number;
  failures: TestFailure[];
}

export default class CountingReporter extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options: Mocha.MochaOptions & { reporterOption?: { output?: string } }) {
    super(runner, options);
    const output = options.reporterOption?.output ?? options.reporterOptions?.output ?? process.env.PA_MOCHA_RESULTS;
    const results: TestResults = { passed: 0, failed: 0, pending: 0, failures: [] };
    const { EVENT_TEST_PASS, EVENT_TEST_FAIL, EVENT_TEST_PENDING, EVENT_RUN_END } = Mocha.Runner.constants;
    runner.on(EVENT_TEST_PASS, () => results.passed++);
    runner.on(EVENT_TEST_PENDING, () => results.pending++);
    // Hook failures arrive here too; mocha counts them as failures and so do we.
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Runnable, err: unknown) => {
      results.failed++;
      results.failures.push({ title: test.fullTitle(), error: describeError(err) });
    });
    runner.once(EVENT_RUN_END, () => {
      if (output) {
        mkdirSync(dirname(output), { recursive: true });
        writeFileSync(output, JSON.stringify(results, null, 2));
      }
    });
  }
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    return err.stack ?? `${err.name}: ${err.message}`;
  }
  return String(err);
}
