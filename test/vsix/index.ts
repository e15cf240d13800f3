// The extension-host entry of the .vsix smoke suite (harness/runVsix.ts): test/vsix/*.test.ts.
import { runMochaIn } from '../harness/mochaEntry';

export function run(): Promise<void> {
  return runMochaIn(__dirname);
}
