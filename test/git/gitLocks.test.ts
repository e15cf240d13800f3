// Lock failures with the real git binary: a lock file or a half-written worktree registry entry,
// as another git process leaves them while it runs, held for a while and then released.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import type { Logger } from '../../src/core/ports';
import { GitRunner } from '../../src/node/git/runner';
import { NodeGit } from '../../src/node/git/createGit';
import { git } from './managerFixture';
import { englishMessage } from '../../src/ui/errorText';

class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  info(message: string) {
    this.lines.push(`info ${message}`);
  }
  warn(message: string) {
    this.lines.push(`warn ${message}`);
  }
  error(message: string) {
    this.lines.push(`error ${message}`);
  }
  retries(): string[] {
    return this.lines.filter((l) => l.includes('hit a lock'));
  }
}

/** Creates `file` now (as another git process would) and removes it after `ms`. */
/**
 * Calls `release` once at least `ms` have passed AND `releaseWhen` holds (the code under test has
 * met the lock once), so a slow, loaded machine cannot start the operation after the release and
 * never meet the lock; after a minute it releases anyway.
 */
function releaseLater(ms: number, release: () => void, releaseWhen: () => boolean = () => true): Promise<void> {
  const start = Date.now();
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const waited = Date.now() - start;
      if ((waited >= ms && releaseWhen()) || waited >= 60000) {
        clearInterval(timer);
        release();
        resolve();
      }
    }, 10);
    timer.unref();
  });
}

function holdFile(file: string, ms: number, releaseWhen?: () => boolean): Promise<void> {
  fs.writeFileSync(file, '');
  return releaseLater(ms, () => fs.rmSync(file, { force: true }), releaseWhen);
}

describe('git lock failures are retried with backoff (real git)', function () {
  this.timeout(30000);
  let tmp: string;
  let repo: string;
  let logger: RecordingLogger;
  let context: GitRunner;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-locks-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 't');
    git(repo, 'config', 'user.email', 't@t');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    logger = new RecordingLogger();
    context = new GitRunner({ logger });
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a write waits out an index.lock held for 300 ms, logging each retry at info level', async () => {
    fs.writeFileSync(path.join(repo, 'b.txt'), 'b\n');
    const released = holdFile(path.join(repo, '.git', 'index.lock'), 300, () => logger.retries().length > 0);
    const t0 = Date.now();
    await context.write(repo, () => context.run(repo, ['add', '--', 'b.txt']));
    const elapsed = Date.now() - t0;
    await released;
    assert.equal(git(repo, 'diff', '--cached', '--name-only'), 'b.txt');
    const retries = logger.retries();
    assert.ok(retries.length >= 1 && retries.length <= 4, retries.join('\n'));
    assert.ok(
      retries.every(
        (l) =>
          l.startsWith('info [Git] add -- in ') && /index\.lock': File exists\.\); retry \d of 4 in \d+ ms$/.test(l),
      ),
      retries.join('\n'),
    );
    assert.ok(elapsed >= 300, `succeeded after ${elapsed} ms, before the lock was released`);
    assert.ok(!logger.lines.some((l) => l.startsWith('warn')), 'no failure was reported');
    console.log(
      `      index.lock held 300 ms: add succeeded after ${elapsed} ms; ${retries.map((l) => /in (\d+) ms$/.exec(l)?.[1]).join(' + ')} ms of waits`,
    );
  });

  it('a command that accepts any exit code is retried too, and gets its answer', async () => {
    const released = holdFile(path.join(repo, '.git', 'index.lock'), 150, () => logger.retries().length > 0);
    const result = await context.run(repo, ['commit', '--allow-empty', '-q', '-m', 'second'], { okCodes: 'any' });
    await released;
    assert.equal(result.exitCode, 0, result.stderr);
    assert.equal(git(repo, 'log', '-1', '--format=%s'), 'second');
    assert.ok(logger.retries().length >= 1);
  });

  it("gives up after 5 tries on a lock that stays, with git's message", async () => {
    const lock = path.join(repo, '.git', 'index.lock');
    fs.writeFileSync(lock, '');
    const t0 = Date.now();
    await assert.rejects(context.run(repo, ['add', '--', 'a.txt']), (e) => {
      assert.ok(AgentError.is(e, 'gitFailed'));
      assert.match(e.detail ?? '', /Unable to create '.*index\.lock': File exists/);
      return true;
    });
    const elapsed = Date.now() - t0;
    assert.equal(logger.retries().length, 4);
    // Waits of 25-75, 50-150, 100-300 and 200-600 ms.
    assert.ok(elapsed >= 375 && elapsed < 3000, `gave up after ${elapsed} ms`);
    assert.ok(fs.existsSync(lock), 'a lock of another process is never removed');
    console.log(`      index.lock held for good: gave up after ${elapsed} ms`);
  });

  it('never retries a failure that is not a lock', async () => {
    git(repo, 'branch', 'agents');
    const t0 = Date.now();
    await assert.rejects(
      context.run(repo, ['branch', 'agents/x']),
      (e) => AgentError.isCode(e, 'gitCommandFailed') && /git branch failed/.test(englishMessage(e)),
    );
    assert.equal(logger.retries().length, 0);
    assert.ok(Date.now() - t0 < 1000);
  });

  it('a read that meets a worktree entry another add is still writing is retried', async () => {
    const released = holdGhostWorktree(repo, 250, () => logger.retries().length > 0);
    const listed = await context.out(repo, ['worktree', 'list', '--porcelain']);
    await released;
    assert.match(listed, /^worktree /);
    assert.ok(
      logger.retries().some((l) => /worktree list .*failed to read .*commondir/.test(l)),
      logger.lines.join('\n'),
    );
  });

  it('addWorktree retries the whole add, undoing each failed try, while another add is in progress', async () => {
    const service = new NodeGit({ runner: context });
    const base = git(repo, 'rev-parse', 'HEAD');
    const target = path.join(tmp, 'repo.worktrees', 'one');
    // Git itself leaves the branch of a `worktree add -b` that failed this way; a plain rerun would
    // then fail with "a branch named ... already exists".
    const released = holdGhostWorktree(repo, 300, () => logger.retries().some((l) => l.includes('worktree add in')));
    const t0 = Date.now();
    await service.addWorktree(repo, target, 'agents/one', base);
    const elapsed = Date.now() - t0;
    await released;
    assert.ok(
      logger.retries().some((l) => /worktree add in .*failed to read .git\/worktrees\/ghost\/commondir/.test(l)),
      logger.lines.join('\n'),
    );
    assert.equal(git(target, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/one');
    assert.equal(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/agents/'), 'refs/heads/agents/one');
    const worktrees = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '));
    assert.deepEqual(worktrees, [`worktree ${repo}`, `worktree ${target}`]);
    console.log(
      `      registry entry being written for 300 ms or more: worktree add succeeded after ${elapsed} ms, ${logger.retries().length} retries`,
    );
  });

  it('addWorktree that still meets the lock after 5 tries leaves nothing behind', async () => {
    const service = new NodeGit({ runner: context });
    const base = git(repo, 'rev-parse', 'HEAD');
    const target = path.join(tmp, 'repo.worktrees', 'two');
    const ghost = path.join(repo, '.git', 'worktrees', 'ghost');
    const released = holdGhostWorktree(repo, 60000);
    await assert.rejects(
      service.addWorktree(repo, target, 'agents/two', base),
      (e) => AgentError.is(e, 'worktreeFailed') && /commondir/.test(e.detail ?? ''),
    );
    assert.ok(logger.retries().filter((l) => l.includes('worktree add in')).length === 4, logger.lines.join('\n'));
    fs.rmSync(ghost, { recursive: true, force: true });
    void released;
    assert.equal(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/heads/agents/'), '');
    assert.ok(!fs.existsSync(target));
    assert.equal(
      git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
    );
  });
});

/**
 * What a concurrent `git worktree add` looks like to other git commands for a moment: its registry
 * entry is locked "initializing" (so prune leaves it), has its gitdir file and a commondir file not
 * written yet. Git answers "failed to read .git/worktrees/<id>/commondir". Removed after `ms`.
 */
/** A worktree registration being written (no commondir yet), removed as releaseLater says. */
function holdGhostWorktree(repo: string, ms: number, releaseWhen?: () => boolean): Promise<void> {
  const ghost = path.join(repo, '.git', 'worktrees', 'ghost');
  fs.mkdirSync(ghost, { recursive: true });
  fs.writeFileSync(path.join(ghost, 'locked'), 'initializing');
  fs.writeFileSync(path.join(ghost, 'gitdir'), `${path.join(path.dirname(repo), 'ghost')}/.git\n`);
  fs.writeFileSync(path.join(ghost, 'commondir'), '');
  return releaseLater(ms, () => fs.rmSync(ghost, { recursive: true, force: true }), releaseWhen);
}
