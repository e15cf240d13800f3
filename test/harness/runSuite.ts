// Entry for the extension-host suite: `node out/test/harness/runSuite.js [--summary FILE] [--grep RE]`
// (env PA_SUITE_TIMEOUT_MS overrides the 10-minute limit of the whole run).
// Opens a throw-away git repository in code-server with this repository loaded as the extension
// under development and runs out/test/suite/index.js there.
import { argValue, runAsMain, runSuite } from './suiteRunner';

export { runSuite, type SuiteSummary } from './suiteRunner';

if (require.main === module) {
  const timeoutMs = Number(process.env.PA_SUITE_TIMEOUT_MS) || undefined;
  const grep = argValue('--grep') ?? process.env.PA_TEST_GREP;
  runAsMain('suite', () => runSuite({ grep, timeoutMs }));
}
