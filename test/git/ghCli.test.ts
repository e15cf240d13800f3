import * as assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentError } from '../../src/core/errors';
import { ghCreatePullRequest } from '../../src/node/ghCli';

// gh itself needs GitHub; a stand-in executable (a real process) shows what it is given and how its
// answers are read. It records its argv as JSON and prints what gh prints.
describe('Create Pull Request: running gh', () => {
  let dir: string;
  const standIn = async (body: string) => {
    const file = join(dir, 'gh');
    await writeFile(file, `#!/usr/bin/env node\n${body}\n`);
    await chmod(file, 0o755);
    return file;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pa-gh-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('passes the title and prompt as single argv elements and returns the URL gh prints', async () => {
    const gh = await standIn(
      `require('fs').writeFileSync(${JSON.stringify(join(dir, 'argv.json'))}, JSON.stringify(process.argv.slice(2)));` +
        `console.log('Creating pull request\\nhttps://github.com/o/r/pull/7');`,
    );
    const title = 'Fix "it"; $(rm -rf /)';
    const body = 'line 1\n`whoami` && echo hi';
    const url = await ghCreatePullRequest(gh, dir, { head: 'agents/a', base: 'main', title, body });
    assert.equal(url, 'https://github.com/o/r/pull/7');
    const argv = JSON.parse(await readFile(join(dir, 'argv.json'), 'utf8')) as string[];
    assert.deepEqual(argv, ['pr', 'create', '--head', 'agents/a', '--base', 'main', '--title', title, '--body', body]);
  });

  it("fails with pullRequestFailed and gh's words, credentials hidden", async () => {
    const gh = await standIn(
      `console.error('push to https://me:secret-token@github.com/o/r.git refused'); process.exit(1);`,
    );
    await assert.rejects(ghCreatePullRequest(gh, dir, { head: 'b', title: 't', body: '' }), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'pullRequestFailed'), String(e));
      assert.ok(e.detail?.includes('https://***@github.com/o/r.git'), e.detail);
      assert.ok(!e.detail?.includes('secret-token'), e.detail);
      return true;
    });
  });
});
