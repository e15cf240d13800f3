// The git spawn worker with the real git binary and the built dist/gitSpawnWorker.js: every
// semantic of a direct spawn through the worker (compared with spawnDirect where both can run),
// and the fail-over to direct spawns when the worker cannot start or dies mid-request.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { maxCollectedOutput, spawnDirect } from '../../src/node/git/directSpawn';
import { GitProcessError } from '../../src/node/git/errors';
import { GitSpawnWorker, gitSpawnWorker } from '../../src/node/git/gitSpawnWorker';
import { gitEnvironment, type GitExecOptions, type GitRawResult } from '../../src/node/git/process';
import { GitRunner } from '../../src/node/git/runner';
import { spawnThroughWorker } from '../../src/node/git/workerSpawner';
import { repoRoot } from '../harness/paths';
import { git } from './managerFixture';

const script = path.join(repoRoot, 'dist', 'gitSpawnWorker.js');
const env = gitEnvironment();

/** The rejection of `promise` (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  );
}

function gitError(e: unknown): GitProcessError {
  assert.ok(e instanceof GitProcessError, `expected a GitProcessError, got ${String(e)}`);
  return e;
}

describe('git spawn worker (real git)', function () {
  this.timeout(60_000);
  let tmp: string;
  let repo: string;
  let big: Buffer;
  let bigOid: string;
  let worker: GitSpawnWorker;
  const workers: GitSpawnWorker[] = [];
  const newWorker = (scriptPath = script, maxStarts?: number) => {
    const made = new GitSpawnWorker(scriptPath, maxStarts);
    workers.push(made);
    return made;
  };
  const viaWorker = (args: readonly string[], options?: GitExecOptions, cap?: number, cwd = repo) =>
    spawnThroughWorker(worker, 'git', env, cwd, args, options, cap);
  const viaDirect = (args: readonly string[], options?: GitExecOptions, cap?: number, cwd = repo) =>
    spawnDirect('git', env, cwd, args, options, cap);
  /**
   * A git command that runs `shell` (test only: git's own alias mechanism). A process of it that
   * should outlive git redirects its output: a holder of the pipes would keep the call open.
   */
  const alias = (shell: string) => ['-c', `alias.t=!${shell}`, 't'];

  before(() => {
    assert.ok(fs.existsSync(script), `${script} is missing: run node scripts/build.mjs first`);
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-spawn-worker-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    big = randomBytes(6 * 1024 * 1024 + 123);
    fs.writeFileSync(path.join(repo, 'big.bin'), big);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    bigOid = git(repo, 'rev-parse', 'HEAD:big.bin');
    worker = newWorker();
  });

  after(async () => {
    for (const made of workers) {
      made.dispose();
      await made.terminate();
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('is what the whole unit and git run uses (.mocharc.json), and answers GitRunner', async () => {
    const shared = gitSpawnWorker();
    assert.ok(shared, 'no spawn worker enabled: .mocharc.json should require out/test/harness/gitSpawnWorkerHook.js');
    const before = shared.served;
    assert.match(await new GitRunner().out(repo, ['rev-parse', '--abbrev-ref', 'HEAD']), /^main$/);
    assert.equal(shared.served, before + 1);
    assert.equal(shared.losses, 0);
  });

  it('collects stdout as bytes, byte for byte, and stderr as text', async () => {
    const result = await viaWorker(['cat-file', 'blob', bigOid]);
    assert.ok(Buffer.isBuffer(result.stdout));
    assert.equal(result.exitCode, 0);
    assert.ok(result.stdout.equals(big));
    const small = await viaWorker(['cat-file', 'blob', 'HEAD:a.txt']);
    assert.deepEqual(small, await viaDirect(['cat-file', 'blob', 'HEAD:a.txt']));
    const empty = await viaWorker(['diff', 'HEAD']);
    assert.equal(empty.stdout.length, 0);
    const warned = await viaWorker(alias('echo out; echo warn >&2'));
    assert.deepEqual([warned.stdout.toString('utf8'), warned.stderr], ['out\n', 'warn\n']);
  });

  it('streams stdout in order to onStdout, byte for byte, leaving the result empty', async () => {
    const chunks: Buffer[] = [];
    const result = await viaWorker(['cat-file', 'blob', bigOid], { onStdout: (chunk) => chunks.push(chunk) });
    assert.equal(result.stdout.length, 0);
    assert.ok(chunks.length > 1);
    assert.ok(Buffer.concat(chunks).equals(big));
  });

  it('writes input to stdin and closes it; a process that does not read it still answers', async () => {
    const input = 'hello\nworld\n';
    const hashed = await viaWorker(['hash-object', '--stdin'], { input });
    assert.equal(
      hashed.stdout.toString('utf8'),
      (await viaDirect(['hash-object', '--stdin'], { input })).stdout.toString(),
    );
    const blob = createHash('sha1').update(`blob ${input.length}\0${input}`).digest('hex');
    assert.equal(hashed.stdout.toString('utf8'), `${blob}\n`);
    // rev-parse never reads stdin: writing 8 MB to it meets a closed pipe (EPIPE), which is ignored.
    const head = await viaWorker(['rev-parse', 'HEAD'], { input: 'x'.repeat(8 * 1024 * 1024) });
    assert.equal(head.stdout.toString('utf8').trim(), git(repo, 'rev-parse', 'HEAD'));
  });

  it('adds env to the environment of that process only', async () => {
    const ident = await viaWorker(['var', 'GIT_AUTHOR_IDENT'], {
      env: { GIT_AUTHOR_NAME: 'Worker Tester', GIT_AUTHOR_EMAIL: 'w@t' },
    });
    assert.match(ident.stdout.toString('utf8'), /^Worker Tester <w@t> /);
    const plain = await viaWorker(alias('echo "[$GIT_AUTHOR_NAME][$LC_MESSAGES]"'));
    assert.equal(plain.stdout.toString('utf8'), '[][C]\n');
  });

  it('answers with the exit codes in okCodes, any code with "any", and rejects others with stderr or stdout', async () => {
    const ancestor = ['merge-base', '--is-ancestor', 'HEAD', 'refs/heads/nope-not-here'];
    assert.equal((await viaWorker(alias('exit 1'), { okCodes: [0, 1] })).exitCode, 1);
    assert.equal((await viaWorker(alias('exit 3'), { okCodes: 'any' })).exitCode, 3);
    const coded = gitError(await failure(viaWorker(alias('exit 1'))));
    assert.equal(coded.exitCode, 1);
    const withStderr = gitError(await failure(viaWorker(ancestor)));
    assert.equal(withStderr.exitCode, 128);
    assert.match(withStderr.stderr, /nope-not-here/);
    assert.equal(withStderr.stderr, gitError(await failure(viaDirect(ancestor))).stderr);
    fs.writeFileSync(path.join(repo, 'a.txt'), 'changed\n');
    try {
      // diff --exit-code: 1 with the diff on stdout and nothing on stderr.
      const withStdout = gitError(await failure(viaWorker(['diff', '--exit-code'])));
      assert.equal(withStdout.exitCode, 1);
      assert.match(withStdout.stderr, /^diff --git a\/a\.txt/);
    } finally {
      git(repo, 'checkout', '--', 'a.txt');
    }
  });

  it('rejects an aborted call as cancelled without spawning, and ends a running one when aborted', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const served = worker.served;
    assert.ok(AgentError.is(await failure(viaWorker(['status'], { signal: aborted.signal })), 'cancelled'));
    assert.equal(worker.served, served);
    const running = new AbortController();
    const started = Date.now();
    const call = viaWorker(alias('echo started; exec sleep 10 >/dev/null 2>&1'), {
      signal: running.signal,
      onStdout: () => running.abort(),
    });
    assert.ok(AgentError.is(await failure(call), 'cancelled'));
    assert.ok(Date.now() - started < 8000, 'the process was not ended');
    assert.ok(
      AgentError.is(
        await failure(viaWorker(alias('exec sleep 10 >/dev/null 2>&1'), { signal: AbortSignal.timeout(200) })),
        'cancelled',
      ),
    );
  });

  it('runs a low-priority process at nice 19', async function () {
    if (process.platform !== 'linux') {
      this.skip();
    }
    // Field 19 of /proc/<pid>/stat is the nice value: git's own, read by its alias's shell. The priority
    // is set once spawn returns, so a child git forks at once may start before it (not the git itself).
    const nice = async (lowPriority: boolean) =>
      (await viaWorker(alias('sleep 0.5; cut -d" " -f19 /proc/$PPID/stat'), { lowPriority })).stdout.toString().trim();
    assert.equal(await nice(true), '19');
    assert.equal(await nice(false), String(os.getPriority()));
  });

  it('kills a process whose collected output passes the cap', async () => {
    const capped = gitError(await failure(viaWorker(['cat-file', 'blob', bigOid], {}, 100_000)));
    assert.equal(capped.exitCode, -1);
    assert.equal(capped.stderr, 'git cat-file wrote more than 100000 bytes; stopped');
    assert.deepEqual(capped, gitError(await failure(viaDirect(['cat-file', 'blob', bigOid], {}, 100_000))));
    // Streamed output is not collected, so the cap does not count it.
    let streamed = 0;
    await viaWorker(['cat-file', 'blob', bigOid], { onStdout: (chunk) => (streamed += chunk.length) }, 100_000);
    assert.equal(streamed, big.length);
    assert.equal(maxCollectedOutput, 64 * 1024 * 1024);
  });

  it('reports a missing cwd as not a repository, a missing binary as not found, a signal as such', async () => {
    const missing = path.join(tmp, 'gone');
    const noCwd = gitError(await failure(viaWorker(['status'], {}, undefined, missing)));
    assert.deepEqual([noCwd.exitCode, noCwd.stderr], [128, `fatal: not a git repository: ${missing} does not exist`]);
    const noBinary = gitError(
      await failure(spawnThroughWorker(worker, path.join(tmp, 'no-such-git'), env, repo, ['status'])),
    );
    assert.ok(noBinary.notFound);
    assert.deepEqual(
      noBinary,
      gitError(await failure(spawnDirect(path.join(tmp, 'no-such-git'), env, repo, ['status']))),
    );
    // The alias's shell ends git itself, its parent.
    const ended = gitError(await failure(viaWorker(alias('kill -TERM $PPID; exec sleep 5 >/dev/null 2>&1'))));
    assert.deepEqual([ended.exitCode, ended.stderr], [-1, 'git -c was ended by SIGTERM']);
  });

  it('rejects arguments spawn refuses exactly as a direct spawn does', async () => {
    const direct = await failure(viaDirect(['log', 'a\0b']));
    const through = await failure(viaWorker(['log', 'a\0b']));
    assert.ok(through instanceof Error && direct instanceof Error);
    assert.equal((through as NodeJS.ErrnoException).code, (direct as NodeJS.ErrnoException).code);
    assert.equal(through.message, direct.message);
  });

  it('fails over to direct spawns when the worker script does not exist, then stays direct', async () => {
    const broken = newWorker(path.join(tmp, 'no-such-worker.js'), 2);
    const call = (options?: GitExecOptions) =>
      spawnThroughWorker(broken, 'git', env, repo, ['rev-parse', 'HEAD'], options);
    const head = git(repo, 'rev-parse', 'HEAD');
    const results: GitRawResult[] = await Promise.all([call(), call({ input: 'ignored' })]);
    assert.deepEqual(
      results.map((r) => r.stdout.toString().trim()),
      [head, head],
    );
    assert.equal((await call()).stdout.toString().trim(), head);
    assert.equal(broken.losses, 2);
    assert.ok(broken.direct);
    assert.equal((await call()).stdout.toString().trim(), head);
    assert.equal(broken.losses, 2);
    assert.equal(broken.served, 0);
  });

  it('runs a call again directly when its worker dies mid-request, after the first child ended', async () => {
    const dying = newWorker();
    const marker = path.join(tmp, 'runs.txt');
    fs.writeFileSync(marker, '');
    // Each run appends a line when it starts and one when it ends: the second run must not overlap the first.
    const slow = spawnThroughWorker(
      dying,
      'git',
      env,
      repo,
      alias(`echo start >> ${marker}; sleep 0.5; echo end >> ${marker}; echo done`),
    );
    await waitFor(() => fs.readFileSync(marker, 'utf8').includes('start'));
    await dying.terminate();
    const result = await slow;
    assert.equal(result.stdout.toString(), 'done\n');
    assert.equal(fs.readFileSync(marker, 'utf8'), 'start\nend\nstart\nend\n');
    assert.equal(dying.losses, 1);
    // The next call starts a new worker.
    assert.equal((await spawnThroughWorker(dying, 'git', env, repo, ['rev-parse', 'HEAD'])).exitCode, 0);
    assert.equal(dying.served, 1);
  });

  it('fails a streamed call whose worker died after some of its output was delivered', async () => {
    const dying = newWorker();
    let delivered = '';
    const call = spawnThroughWorker(dying, 'git', env, repo, alias('echo first; sleep 5; echo second'), {
      onStdout: (chunk) => {
        delivered += chunk.toString();
        void dying.terminate();
      },
    });
    const stopped = gitError(await failure(call));
    assert.deepEqual([stopped.exitCode, stopped.stderr], [-1, 'git -c was ended: the thread that started it stopped']);
    assert.equal(delivered, 'first\n');
  });

  it('keeps its process alive while a call is pending, and never while idle', async () => {
    // A Node process whose only work is one git call through a worker: it prints the answer, then exits.
    const fixture = path.join(repoRoot, 'out', 'test', 'git', 'spawnWorkerIdle.js');
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [fixture, script, repo], { timeout: 20_000 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    assert.equal(out, 'slow answer\n');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    assert.ok(Date.now() < deadline, 'condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
