import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { AgentError } from '../../src/core/errors';
import { pushTarget } from '../../src/core/landing';
import type { Logger } from '../../src/core/ports';
import { NodeGit } from '../../src/node/git/createGit';
import { createTempRepo, type TempRepo } from '../harness/tempRepo';

const run = promisify(execFile);
const gitIn = async (cwd: string, ...args: string[]) => (await run('git', args, { cwd })).stdout.trim();

// Create Pull Request's push, against a real bare repository as the remote.
describe('Create Pull Request: pushing an agent branch', () => {
  let repo: TempRepo;
  let bare: string;
  let worktree: string;
  let agentCommit: string;
  const branch = 'agents/fix-bug';
  const logged: string[] = [];
  const logger = { info: (l: string) => logged.push(l), warn: (l: string) => logged.push(l) } as unknown as Logger;
  let git: NodeGit;

  beforeEach(async () => {
    logged.length = 0;
    git = new NodeGit({ logger });
    repo = await createTempRepo();
    bare = join(repo.dir, '..', 'remote.git');
    await run('git', ['init', '--quiet', '--bare', bare]);
    worktree = join(repo.dir, '..', 'sample-project.worktrees', 'fix-bug');
    await git.addWorktree(repo.dir, worktree, branch, await git.headSha(repo.dir));
    await writeFile(join(worktree, 'fix.txt'), 'fixed\n');
    agentCommit = (await git.commitAll(worktree, 'Fix the bug')) ?? '';
    assert.match(agentCommit, /^[0-9a-f]{40}$/);
  });

  afterEach(() => repo.dispose());

  it("pushes the branch to origin at the agent's commit and makes origin its upstream", async () => {
    await repo.git('remote', 'add', 'origin', bare);
    await repo.git('remote', 'add', 'other', bare);
    const remote = await pushTarget(git, repo.dir, branch);
    assert.deepEqual(remote, { name: 'origin', url: bare });
    await git.push(repo.dir, remote.name, branch);
    assert.equal(await gitIn(bare, 'rev-parse', `refs/heads/${branch}`), agentCommit);
    assert.equal(await repo.git('config', `branch.${branch}.remote`), 'origin\n');
    assert.equal(await repo.git('config', `branch.${branch}.merge`), `refs/heads/${branch}\n`);
    assert.equal(await git.upstreamRemote(repo.dir, branch), 'origin');
  });

  it("prefers the branch's upstream remote over origin, and pushes a new commit to it", async () => {
    const second = join(repo.dir, '..', 'second.git');
    await run('git', ['init', '--quiet', '--bare', second]);
    await repo.git('remote', 'add', 'origin', bare);
    await repo.git('remote', 'add', 'second', second);
    await git.push(repo.dir, 'second', branch);
    await writeFile(join(worktree, 'more.txt'), 'more\n');
    const next = await git.commitAll(worktree, 'More');
    const remote = await pushTarget(git, repo.dir, branch);
    assert.equal(remote.name, 'second');
    await git.push(repo.dir, remote.name, branch);
    assert.equal(await gitIn(second, 'rev-parse', `refs/heads/${branch}`), next);
    assert.equal(await gitIn(bare, 'for-each-ref'), '', 'origin got nothing');
  });

  it('refuses with noRemote when the repository has none, and pushes nothing', async () => {
    await assert.rejects(pushTarget(git, repo.dir, branch), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'noRemote'), String(e));
      assert.deepEqual(e.data, { branch, repoRoot: repo.dir });
      return true;
    });
    assert.equal(await gitIn(bare, 'for-each-ref'), '');
    assert.equal(await git.upstreamRemote(repo.dir, branch), undefined);
  });

  it('refuses with remoteAmbiguous among several remotes none of which is origin', async () => {
    await repo.git('remote', 'add', 'fork', bare);
    await repo.git('remote', 'add', 'upstream', bare);
    await assert.rejects(pushTarget(git, repo.dir, branch), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'remoteAmbiguous'), String(e));
      assert.deepEqual(e.data.remotes, ['fork', 'upstream']);
      return true;
    });
  });

  it("hides credentials in git's words of a failed push, in the error and in the log", async () => {
    await repo.git('remote', 'add', 'origin', bare);
    // A pre-push hook's stderr is git's stderr: here it names a URL with a token, as a remote may.
    const hooks = join(repo.dir, '.git', 'hooks');
    await mkdir(hooks, { recursive: true });
    const hook = join(hooks, 'pre-push');
    await writeFile(hook, "#!/bin/sh\necho 'rejected by https://bot:secret-token@example.com/o/r.git' >&2\nexit 1\n");
    await chmod(hook, 0o755);
    await assert.rejects(git.push(repo.dir, 'origin', branch), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'gitCommandFailed'), String(e));
      assert.ok(e.detail?.includes('https://***@example.com/o/r.git'), e.detail);
      assert.ok(!e.detail?.includes('secret-token'), e.detail);
      return true;
    });
    assert.ok(
      logged.some((l) => l.includes('***@example.com')),
      logged.join('\n'),
    );
    assert.ok(!logged.join('\n').includes('secret-token'), logged.join('\n'));
    assert.equal(await gitIn(bare, 'for-each-ref'), '', 'nothing pushed');
  });
});
