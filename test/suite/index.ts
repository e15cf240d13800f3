// The extension-host entry of the suite: every compiled test/suite/**/*.test.ts (harness/mochaEntry.ts).
// mocha is resolved from the repository's node_modules because out/ lives inside the repository.
import { runMochaIn } from '../harness/mochaEntry';

export function run(): Promise<void> {
  return runMochaIn(__dirname);
}
