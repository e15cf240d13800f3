// dist/sandbox.js, which wraps sandboxed agents: in a module of its own, so that test files
// importing it do not register another file's tests a second time.
import * as path from 'node:path';

export const sandboxScript = path.resolve(__dirname, '../../../dist/sandbox.js');
