// Run by gitSpawnWorker.test.ts as its own Node process: `node spawnWorkerIdle.js <worker script> <repo>`.
// Its only work is one slow git call through the spawn worker: it must print the answer (the
// worker kept the process alive while the call was pending), then exit (the idle worker did not).
import { useGitSpawnWorker } from '../../src/node/git/gitSpawnWorker';
import { GitRunner } from '../../src/node/git/runner';

const [script, repo] = process.argv.slice(2);
useGitSpawnWorker(script);
void new GitRunner()
  .text(repo, ['-c', 'alias.t=!sleep 0.3; echo slow answer', 't'])
  .then((out) => process.stdout.write(out));
