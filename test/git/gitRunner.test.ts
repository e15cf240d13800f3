// The one git process runner with the real git binary: streamed output, cancellation, typed errors.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { GitProcessError } from '../../src/node/git/errors';
import { GitRunner } from '../../src/node/git/runner';
import { git } from './managerFixture';

describe('GitRunner (real git)', function () {
  this.timeout(60_000);
  let tmp: string;
  let repo: string;
  const runner = new GitRunner();

  before(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-runner-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    for (let i = 0; i < 300; i++) {
      fs.writeFileSync(path.join(repo, `file-${i}.txt`), `${i}\n`);
    }
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
  });

  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('streams stdout to a callback instead of collecting it', async () => {
    const chunks: Buffer[] = [];
    const result = await runner.exec(repo, ['ls-files', '-z'], { onStdout: (chunk) => chunks.push(chunk) });
    assert.equal(result.stdout, '');
    const names = Buffer.concat(chunks).toString('utf8').split('\0').filter(Boolean);
    assert.equal(names.length, 300);
    assert.equal((await runner.text(repo, ['ls-files', '-z'])).split('\0').filter(Boolean).length, 300);
  });

  it('ends the process when cancelled, and rejects with the cancelled code', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(runner.exec(repo, ['status'], { signal: controller.signal }), (e) =>
      AgentError.is(e, 'cancelled'),
    );
    const running = new AbortController();
    const started = runner.exec(repo, ['log', '--all', '-p', '--no-color'], {
      signal: running.signal,
      onStdout: () => running.abort(),
    });
    await assert.rejects(started, (e) => AgentError.is(e, 'cancelled'));
  });

  it('rejects outside the expected exit codes with git stderr, and maps it to a code', async () => {
    const error = await runner.text(repo, ['rev-parse', '--verify', 'refs/heads/nope']).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof GitProcessError);
    assert.ok(error.exitCode > 0);
    await assert.rejects(runner.run(path.join(tmp, 'missing'), ['status']), (e) =>
      AgentError.is(e, 'notGitRepository'),
    );
    const missing = new GitRunner({ binary: path.join(tmp, 'no-such-git') });
    await assert.rejects(missing.run(repo, ['status']), (e) => AgentError.is(e, 'gitNotFound'));
  });
});
