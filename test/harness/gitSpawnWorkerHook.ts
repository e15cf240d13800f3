// Loaded by .mocharc.json before the unit and git tests: every git process of the run starts from
// the git spawn worker, as in the extension, so the whole git suite exercises it. The worker is
// unref'd while idle, so it never keeps mocha from exiting.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { useGitSpawnWorker } from '../../src/node/git/gitSpawnWorker';
import { repoRoot } from './paths';

const gitSpawnWorkerScript = path.join(repoRoot, 'dist', 'gitSpawnWorker.js');

if (!existsSync(gitSpawnWorkerScript)) {
  throw new Error(`${gitSpawnWorkerScript} is missing: run node scripts/build.mjs first`);
}
useGitSpawnWorker(gitSpawnWorkerScript);
