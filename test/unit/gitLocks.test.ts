import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { GitProcessError } from '../../src/node/git/errors';
import {
  failedOnLock,
  isLockFailure,
  lockRetryDelay,
  repeatableOnLock,
  retryOnLock,
  type LockRetry,
} from '../../src/node/git/locks';

const anotherProcess = `

Another git process seems to be running in this repository, e.g.
an editor opened by 'git commit'. Please make sure all processes
are terminated then try again. If it still fails, a git process
may have crashed in this repository earlier:
remove the file manually to continue.`;

// Messages printed by git 2.39.5 on this machine (the worktree registry ones by 16 concurrent
// `git worktree add`), except where noted.
const transient = [
  `fatal: Unable to create '/tmp/lockmsg/r/.git/index.lock': File exists.${anotherProcess}`,
  `fatal: cannot lock ref 'HEAD': Unable to create '/tmp/lockmsg/r/.git/refs/heads/main.lock': File exists.${anotherProcess}`,
  `fatal: update_ref failed for ref 'refs/heads/main': cannot lock ref 'refs/heads/main': Unable to create '/tmp/lockmsg/r/.git/refs/heads/main.lock': File exists.${anotherProcess}`,
  `error: could not delete reference refs/heads/zz: Unable to create '/tmp/lockmsg/r/.git/packed-refs.lock': File exists.${anotherProcess}`,
  `error: Unable to create '/tmp/lockmsg/r/.git/HEAD.lock': File exists.${anotherProcess}\nfatal: unable to update HEAD`,
  `fatal: Unable to create '/tmp/my repo ünï/.git/worktrees/a b/index.lock': File exists.${anotherProcess}`,
  `fatal: Unable to create 'C:\\Users\\me\\repo\\.git\\index.lock': File exists.`,
  'error: could not lock config file .git/config: File exists',
  'fatal: failed to read .git/worktrees/4-4/commondir: Success',
  'fatal: failed to read .git/worktrees/ghost/commondir: No such file or directory',
  // As reported in notes/git-and-processes-facts.md (not reproduced here).
  "fatal: could not open '.git/worktrees/tidy-up/locked' for reading: No such file or directory",
  "fatal: failed to read '/r/.git/worktrees/tidy-up/locked': No such file or directory",
];

const permanent = [
  "fatal: cannot lock ref 'refs/heads/a/b': 'refs/heads/a' exists; cannot create 'refs/heads/a/b'",
  "fatal: cannot lock ref 'refs/heads/x': reference already exists",
  "fatal: cannot lock ref 'refs/heads/x': is at 1111111111111111111111111111111111111111 but expected 2222222222222222222222222222222222222222",
  "fatal: cannot remove a locked working tree, lock reason: added with --lock\nuse 'remove -f -f' to override or unlock first",
  "fatal: cannot move a locked working tree, lock reason: added with --lock\nuse 'move -f -f' to override or unlock first",
  "fatal: '/tmp/w' is a missing but locked worktree;\nuse 'add -f -f' to override, or 'unlock' and 'prune' or 'remove' to clear",
  "fatal: Unable to create '/ro/.git/index.lock': Permission denied",
  "fatal: a branch named 'agents/x' already exists",
  'fatal: not a git repository (or any of the parent directories): .git',
  "fatal: '/tmp/w' already exists",
  '',
];

describe('git lock failures', () => {
  it('recognises git messages about a lock held by another process', () => {
    for (const message of transient) {
      assert.ok(isLockFailure(message), message);
    }
  });

  it('does not take deliberate locks, ref conflicts or other failures for one', () => {
    for (const message of permanent) {
      assert.ok(!isLockFailure(message), message);
    }
  });

  it('reads the message from a git process error, an AgentError detail or a plain error', () => {
    assert.ok(failedOnLock(new GitProcessError(128, transient[0])));
    assert.ok(!failedOnLock(new GitProcessError(128, permanent[0])));
    assert.ok(
      failedOnLock(new AgentError('worktreeCommandFailed', { command: 'git worktree add', cwd: '/r' }, transient[8])),
    );
    assert.ok(
      !failedOnLock(new AgentError('worktreeCommandFailed', { command: 'git worktree add', cwd: '/r' }, permanent[7])),
    );
    assert.ok(failedOnLock(new Error(transient[7])));
    assert.ok(!failedOnLock('index.lock'));
  });

  it('waits 50 ms doubling, with ±50% jitter', () => {
    const at = (random: number) =>
      [1, 2, 3, 4].map((n) => lockRetryDelay(n, { attempts: 5, baseDelayMs: 50, random: () => random }));
    assert.deepEqual(at(0.5), [50, 100, 200, 400]);
    assert.deepEqual(at(0), [25, 50, 100, 200]);
    assert.deepEqual(at(0.999), [75, 150, 300, 600]);
  });

  it('does not repeat a worktree add that creates a branch on its own', () => {
    assert.ok(!repeatableOnLock(['worktree', 'add', '-b', 'agents/x', '/w', 'HEAD']));
    assert.ok(!repeatableOnLock(['-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '-B', 'x', '/w']));
    assert.ok(repeatableOnLock(['worktree', 'add', '--detach', '/w', 'HEAD']));
    assert.ok(repeatableOnLock(['branch', '-b']));
    assert.ok(repeatableOnLock(['commit', '-m', 'worktree add -b']));
  });

  it('retries only lock failures, at most `attempts` times, reporting each wait', async () => {
    const policy = { attempts: 5, baseDelayMs: 1, random: () => 0.5 };
    const heard: LockRetry[] = [];
    let calls = 0;
    const value = await retryOnLock(
      async () => {
        if (++calls < 3) {
          throw new GitProcessError(128, transient[0]);
        }
        return 'done';
      },
      policy,
      (info) => heard.push(info),
    );
    assert.equal(value, 'done');
    assert.equal(calls, 3);
    assert.deepEqual(
      heard.map((h) => [h.retry, h.of, h.delayMs]),
      [
        [1, 4, 1],
        [2, 4, 2],
      ],
    );
    assert.match(heard[0].detail, /^fatal: Unable to create '.*index\.lock': File exists\.$/);

    calls = 0;
    await assert.rejects(
      retryOnLock(async () => {
        calls++;
        throw new GitProcessError(128, transient[1]);
      }, policy),
      /cannot lock ref 'HEAD'/,
    );
    assert.equal(calls, 5);

    calls = 0;
    await assert.rejects(
      retryOnLock(async () => {
        calls++;
        throw new GitProcessError(128, permanent[0]);
      }, policy),
      /'refs\/heads\/a' exists/,
    );
    assert.equal(calls, 1);
  });
});
