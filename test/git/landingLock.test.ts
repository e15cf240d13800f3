import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import type { RepositoryLocks } from '../../src/core/ports';
import { landingLockFile } from '../../src/node/registry/landingLocks';
import { delay } from '../../src/util/async';
import { PlanRun } from '../../src/core/plans/planRun';
import { LockFixture, tracked } from './landingLockFixture';
import { git } from './managerFixture';
import { planRunDeps } from './planRunFixture';

// The landing lock across processes: a real second Node process holds or contends for the lock
// of a real repository while this process lands a real demo agent's branch with real git.

const fast = { refreshMs: 100, staleMs: 600, giveUpMs: 20_000, pollMs: 25 };

describe('landing lock: one landing at a time on a repository, across processes', function () {
  this.timeout(60_000);
  let lf: LockFixture;
  let lockFile: string;

  beforeEach(() => {
    lf = new LockFixture();
    lockFile = landingLockFile(lf.fx.repo);
  });
  afterEach(() => lf.dispose());

  const head = () => git(lf.fx.repo, 'rev-parse', 'HEAD');
  const token = () => (JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { token: string }).token;

  it('waits while another process holds the lock (past the stale period: it refreshes), then lands', async () => {
    const agent = await lf.committedAgent('a.txt', 'from A');
    const holder = lf.holder({ mode: 'hold', timings: fast });
    await holder.event('held');
    assert.equal(lockFile, path.join(lf.fx.repo, '.git', 'parallel-agents', 'landing.lock'));
    const before = head();
    const merge = tracked(lf.landing(lf.locks(fast)).merge(agent.id, 'merge', 'Land A'));
    await holder.event('held');
    await delay(fast.staleMs * 3);
    assert.equal(merge.settled(), false, 'the landing waits for the holder');
    assert.equal(head(), before, 'nothing landed while the other process held the lock');
    assert.equal(lf.waits.length, 1, 'the wait was reported once');
    assert.equal(lf.waits[0].holder.pid, holder.pid);
    assert.equal(lf.waits[0].holder.host, os.hostname());
    assert.equal(lf.waits[0].repoRoot, lf.fx.repo);
    holder.send('release');
    const result = await merge.promise;
    assert.equal(result.kind, 'merged');
    assert.equal(fs.readFileSync(path.join(lf.fx.repo, 'a.txt'), 'utf8'), 'from A');
    assert.equal((await holder.exited).code, 0);
    await holder.event('released');
    assert.equal(fs.existsSync(lockFile), false, 'released after the landing');
  });

  it('takes over promptly from a holder killed with SIGKILL (its pid is gone), long before the stale period', async () => {
    const agent = await lf.committedAgent('a.txt', 'from A');
    const holder = lf.holder({ mode: 'hold', timings: fast });
    await holder.event('held');
    const merge = tracked(lf.landing(lf.locks({ ...fast, staleMs: 60_000 })).merge(agent.id, 'merge', 'Land A'));
    await waitForWait();
    holder.kill();
    const killed = Date.now();
    assert.equal((await holder.exited).signal, 'SIGKILL');
    const result = await merge.promise;
    const took = Date.now() - killed;
    assert.equal(result.kind, 'merged');
    assert.ok(took < 5_000, `taken over ${took} ms after the kill`);
    assert.equal(fs.existsSync(lockFile), false);
  });

  it('takes over a stale lock of another host only after it stayed unchanged for the stale period (no pid check there)', async () => {
    const agent = await lf.committedAgent('a.txt', 'from A');
    fs.mkdirSync(path.dirname(lockFile), { recursive: true });
    // A pid that is dead here: on another host it means nothing, so only staleness may free it.
    const foreign = { pid: 2 ** 22 + 7, host: 'another-host.invalid', token: 'theirs', since: Date.now() - 3_600_000 };
    fs.writeFileSync(lockFile, JSON.stringify(foreign));
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(lockFile, hourAgo, hourAgo);
    const staleMs = 1_000;
    const started = Date.now();
    const merge = tracked(lf.landing(lf.locks({ ...fast, staleMs })).merge(agent.id, 'merge', 'Land A'));
    await waitForWait();
    assert.equal(lf.waits[0].holder.host, 'another-host.invalid');
    assert.equal(lf.waits[0].holder.pid, foreign.pid);
    await delay(staleMs / 2);
    assert.equal(merge.settled(), false, 'not taken over before the stale period');
    const result = await merge.promise;
    const took = Date.now() - started;
    assert.equal(result.kind, 'merged');
    assert.ok(took >= staleMs, `taken over after ${took} ms (stale period ${staleMs} ms)`);
    assert.ok(took < staleMs + 5_000, `taken over after ${took} ms`);
    assert.equal(fs.existsSync(lockFile), false);
  });

  it('lands two branches started at once in two processes one after the other; both merges are in the history', async () => {
    const agent = await lf.committedAgent('a.txt', 'from A');
    const wtB = path.join(lf.fx.tmp, 'wt-b');
    git(lf.fx.repo, 'worktree', 'add', '-q', '-b', 'other/b', wtB, 'main');
    fs.writeFileSync(path.join(wtB, 'b.txt'), 'from B');
    git(wtB, 'add', 'b.txt');
    git(wtB, 'commit', '-q', '-m', 'B');
    const holder = lf.holder({
      mode: 'land',
      timings: fast,
      land: { cwd: wtB, branch: 'other/b', message: 'Land B', holdMs: 300 },
    });
    await holder.event('ready');
    const locks = lf.locks(fast);
    let heldAt = 0;
    let releasedAt = 0;
    const recording: RepositoryLocks = {
      withLandingLock: (repoRoot, body, onWait) =>
        locks.withLandingLock(
          repoRoot,
          async () => {
            heldAt = Date.now();
            try {
              return await body();
            } finally {
              releasedAt = Date.now();
            }
          },
          onWait,
        ),
    };
    holder.send('go');
    const result = await lf.landing(recording).merge(agent.id, 'merge', 'Land A');
    const other = await holder.event('landed');
    assert.equal(result.kind, 'merged');
    assert.ok(heldAt > 0 && releasedAt >= heldAt, 'this landing ran under the lock');
    assert.match(String(other.sha), /^[0-9a-f]{40}$/, `the other process landed: ${String(other.sha)}`);
    const [otherHeld, otherReleased] = [Number(other.heldAt), Number(other.releasedAt)];
    assert.ok(
      releasedAt <= otherHeld || otherReleased <= heldAt,
      `the two landings held the lock at different times: here ${heldAt}-${releasedAt}, there ${otherHeld}-${otherReleased}`,
    );
    const subjects = git(lf.fx.repo, 'log', '--format=%s', 'main').split('\n');
    assert.ok(subjects.includes('Land A'), subjects.join(' | '));
    assert.ok(subjects.includes('Land B'), subjects.join(' | '));
    assert.equal(fs.readFileSync(path.join(lf.fx.repo, 'a.txt'), 'utf8'), 'from A');
    assert.equal(fs.readFileSync(path.join(lf.fx.repo, 'b.txt'), 'utf8'), 'from B');
    assert.equal(git(lf.fx.repo, 'status', '--porcelain'), '');
    assert.equal(fs.existsSync(lockFile), false);
  });

  it('Land Plan waits for the lock held by another process too, then lands the integration branch', async () => {
    const deps = { ...planRunDeps(lf.fx, lf.manager, 1), locks: lf.locks(fast) };
    const plan = { title: 'Locked', tasks: [{ id: 'one', title: 'One', prompt: 'create plan.txt: planned' }] };
    const run = await PlanRun.create(deps, 'locked', plan, lf.fx.repo);
    assert.equal(await run.run(plan.tasks[0], 'base'), 'succeeded');
    assert.equal(await run.integrate(plan.tasks[0]), 'merged');
    const holder = lf.holder({ mode: 'hold', timings: fast });
    await holder.event('held');
    const before = head();
    const landing = tracked(run.land('merge'));
    await waitForWait();
    assert.equal(lf.waits[0].holder.pid, holder.pid);
    await delay(fast.staleMs * 2);
    assert.equal(landing.settled(), false, 'Land Plan waits for the holder');
    assert.equal(head(), before);
    holder.send('release');
    const result = await landing.promise;
    assert.equal(result.kind, 'merged');
    assert.equal(fs.readFileSync(path.join(lf.fx.repo, 'plan.txt'), 'utf8'), 'planned');
    assert.equal(fs.existsSync(lockFile), false);
  });

  it('removes the lock on release only while its token is still ours', async () => {
    const locks = lf.locks(fast);
    await locks.withLandingLock(lf.fx.repo, async () => {
      assert.ok(fs.existsSync(lockFile), 'held during the body');
    });
    assert.equal(fs.existsSync(lockFile), false, 'our own lock is removed');
    let ours = '';
    await locks.withLandingLock(lf.fx.repo, async () => {
      ours = token();
      // Another process took it over (as a waiter does with a stale lock) while this one held it.
      fs.rmSync(lockFile);
      fs.writeFileSync(lockFile, JSON.stringify({ pid: 1, host: 'elsewhere', token: 'theirs', since: Date.now() }));
    });
    assert.notEqual(ours, '');
    assert.ok(fs.existsSync(lockFile), "another's lock is left in place");
    assert.equal(token(), 'theirs');
    assert.ok(
      lf.warnings.some((w) => w.includes('taken over')),
      `the loss is logged: ${lf.warnings.join(' | ')}`,
    );
  });

  it('gives up after its limit with landingLocked naming the holder, and a cancelled wait touches nothing', async () => {
    const agent = await lf.committedAgent('a.txt', 'from A');
    const holder = lf.holder({ mode: 'hold', timings: fast });
    await holder.event('held');
    const theirs = token();
    const before = head();
    const error = await lf
      .landing(lf.locks({ ...fast, giveUpMs: 700 }))
      .merge(agent.id, 'merge', 'Land A')
      .then(
        () => assert.fail('landed while another process held the lock'),
        (e: unknown) => e,
      );
    assert.ok(AgentError.isCode(error, 'landingLocked'), String(error));
    assert.equal(error.reason, 'repositoryBusy');
    assert.equal(error.data.pid, holder.pid);
    assert.equal(error.data.host, os.hostname());
    assert.equal(error.data.lockFile, lockFile);
    assert.equal(error.data.repoRoot, lf.fx.repo);
    const cancelling = lf.locks(fast, (wait) => setTimeout(() => wait.cancel(), 100));
    const cancelled = await lf
      .landing(cancelling)
      .merge(agent.id, 'merge', 'Land A')
      .then(
        () => assert.fail('landed after the wait was cancelled'),
        (e: unknown) => e,
      );
    assert.ok(AgentError.isCode(cancelled, 'cancelled'), String(cancelled));
    assert.equal(head(), before, 'nothing landed');
    assert.equal(lf.manager.get(agent.id).status, 'succeeded');
    assert.equal(token(), theirs, "the holder's lock is untouched");
    holder.send('release');
    assert.equal((await holder.exited).code, 0);
  });

  async function waitForWait(): Promise<void> {
    for (let i = 0; i < 400 && lf.waits.length === 0; i++) {
      await delay(10);
    }
    assert.equal(lf.waits.length, 1, 'the wait was reported');
  }
});
