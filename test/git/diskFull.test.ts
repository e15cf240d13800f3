// A worktree root on a full disk: a real tmpfs (mounted by this test when run as root) too small
// for the checkout. Dispatch must fail with reason diskFull, leave nothing behind, and work once
// there is room. Where mounting is not permitted the test says why and skips.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { git, ManagerFixture } from './managerFixture';
import { manyFiles } from './processProbe';
import { englishMessage } from '../../src/ui/errorText';
import { englishStored } from '../../src/ui/errorText';

function mountTmpfs(dir: string, size: string): string | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return 'mounting a tmpfs needs Linux and root';
  }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs was refused: ${(e as Error).message.split('\n')[0]}`;
  }
}

function isMounted(dir: string): boolean {
  return fs
    .readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[1] === dir);
}

function unmount(dir: string): void {
  while (isMounted(dir)) {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  }
}

describe('Full disk under the worktree root (real tmpfs)', function () {
  this.timeout(180_000);
  let fx: ManagerFixture | undefined;
  let root = '';

  afterEach(() => {
    if (root) {
      unmount(root);
    }
    fx?.dispose();
    fx = undefined;
  });

  it('dispatch fails with diskFull, leaves nothing, and a retry with room succeeds', async function () {
    // About 6 MB of files: far more than the 2 MB tmpfs holds.
    fx = new ManagerFixture(manyFiles(3000, 2048));
    root = `${fx.repo}.worktrees`;
    fs.mkdirSync(root);
    const why = mountTmpfs(root, '2m');
    if (why) {
      console.log(`      (skipped: ${why})`);
      root = '';
      this.skip();
    }
    const manager = fx.manager();
    const headBefore = git(fx.repo, 'rev-parse', 'HEAD');
    const dispatch = () =>
      manager.dispatch({ prompt: 'print hello', profile: 'demo', folder: fx!.repo, title: 'Full disk' });
    await assert.rejects(dispatch(), (e) => {
      assert.ok(AgentError.is(e, 'diskFull'), `reason diskFull, got ${String(e)} ${(e as AgentError).detail ?? ''}`);
      assert.match(englishMessage(e), /disk is full/i);
      assert.match(e.detail ?? '', /unable to write|No space left on device/);
      return true;
    });
    assert.deepEqual(manager.list(), [], 'no agent record');
    assert.deepEqual(fx.store.records, [], 'no state entry');
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/*'), '', 'no agent branch');
    const registered = git(fx.repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '));
    assert.deepEqual(registered, [`worktree ${fx.repo}`], 'only the main worktree is registered');
    const registry = path.join(fx.repo, '.git', 'worktrees');
    assert.deepEqual(fs.existsSync(registry) ? fs.readdirSync(registry) : [], [], 'no worktree registry entry');
    assert.deepEqual(fs.readdirSync(root), [], 'nothing left on the full disk');
    assert.equal(git(fx.repo, 'status', '--porcelain'), '', 'the main worktree is untouched');
    assert.equal(git(fx.repo, 'rev-parse', 'HEAD'), headBefore, 'the main branch is untouched');

    // Free space: the tmpfs goes away, the root is an ordinary folder on a disk with room.
    unmount(root);
    const retry = await dispatch();
    assert.equal(retry.branch, 'agents/full-disk', 'the retry gets the same branch name');
    const done = await fx.finished(manager, retry.id);
    assert.equal(done.status, 'succeeded', done.error);
  });

  it('an agent that fills the disk while running ends failed with a clear reason, its work so far kept', async function () {
    fx = new ManagerFixture();
    root = `${fx.repo}.worktrees`;
    fs.mkdirSync(root);
    // Room for the small checkout, not for the 90 KB the agent then writes.
    const why = mountTmpfs(root, '64k');
    if (why) {
      console.log(`      (skipped: ${why})`);
      root = '';
      this.skip();
    }
    const manager = fx.manager();
    const chunk = 'x'.repeat(30_000);
    const prompt = ['create notes.txt: kept', ...[1, 2, 3].map(() => `append big.txt: ${chunk}`)].join('\n');
    const agent = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title: 'Fills disk' });
    const done = await fx.finished(manager, agent.id);
    assert.equal(done.status, 'failed', 'the agent failed');
    assert.equal(done.exitCode, 1, 'the agent exited with its error code');
    assert.equal(done.errorReason, 'diskFull', 'the record knows why it failed');
    assert.match(
      englishStored(done.error ?? ''),
      /^The disk is full: the agent could not write in .+ \(its log says "No space left on device"\) — free some space .+ Its work so far is kept\.$/,
    );
    assert.ok(done.error?.includes(done.cwd), `the error names the worktree: ${done.error}`);
    assert.equal(
      fx.store.records.find((r) => r.id === agent.id)?.errorReason,
      'diskFull',
      'the saved state entry has the reason too',
    );
    const log = fs.readFileSync(done.logPath ?? '', 'utf8');
    assert.match(log, /ENOSPC|no space left on device/i, 'the log says the disk is full');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'kept', 'its work so far is kept');
  });
});
