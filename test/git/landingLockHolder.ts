// A second "window" for test/git/landingLock.test.ts: a separate Node process that takes a
// repository's landing lock with the real LandingLocks and reports on stdout, one JSON line each.
//   hold: takes the lock, says "held", keeps it until a line "release" arrives on stdin.
//   land: waits for a line "go", then lands `branch` (worktree `cwd`) into the repository with
//         real git while holding the lock, keeps it `holdMs` longer, says "landed".
// Usage: node out/test/git/landingLockHolder.js '<json config>'
import * as readline from 'node:readline';
import type { LockTimings } from '../../src/node/registry/lockFile';
import { LandingLocks } from '../../src/node/registry/landingLocks';
import { NodeGit } from '../../src/node/git/createGit';

interface Config {
  readonly mode: 'hold' | 'land';
  readonly repo: string;
  readonly timings: Partial<LockTimings>;
  readonly land?: { readonly cwd: string; readonly branch: string; readonly message: string; readonly holdMs: number };
}

const config = JSON.parse(process.argv[2]) as Config;
const say = (event: string, data: object = {}) => process.stdout.write(`${JSON.stringify({ event, ...data })}\n`);
const lines = readline.createInterface({ input: process.stdin });
const nextLine = (wanted: string) =>
  new Promise<void>((resolve) => {
    const onLine = (line: string) => {
      if (line.trim() === wanted) {
        lines.off('line', onLine);
        resolve();
      }
    };
    lines.on('line', onLine);
  });
const quiet = { info() {}, warn() {}, error() {} };
const locks = new LandingLocks({
  logger: quiet,
  timings: config.timings,
  onWait: (wait) => say('waiting', { holder: wait.holder }),
});

async function main(): Promise<void> {
  if (config.mode === 'hold') {
    await locks.withLandingLock(config.repo, async () => {
      say('held', { at: Date.now() });
      await nextLine('release');
    });
    say('released', { at: Date.now() });
  } else {
    const land = config.land!;
    say('ready');
    await nextLine('go');
    const git = new NodeGit();
    let heldAt = 0;
    let sha = '';
    await locks.withLandingLock(config.repo, async () => {
      heldAt = Date.now();
      const outcome = await git.land(config.repo, land.cwd, land.branch, 'merge', land.message);
      sha = outcome.ok ? outcome.sha : `conflicts: ${outcome.conflicts.join(', ')}`;
      await new Promise((resolve) => setTimeout(resolve, land.holdMs));
    });
    say('landed', { heldAt, releasedAt: Date.now(), sha });
  }
  lines.close();
}

main().catch((e: Error) => {
  say('error', { message: e.message });
  process.exitCode = 1;
  lines.close();
});
