// Faults from outside, with real processes: the real git killed in the middle of `worktree add`, a
// running agent SIGKILLed by its pid. Each must end in a clear error or a true status, and leave
// nothing half made.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { NodeGit } from '../../src/node/git/createGit';
import { parseStatus } from '../../src/supervisor/protocol';
import { git, ManagerFixture } from './managerFixture';
import { childrenOf, commandLine, gitProcessesIn, manyFiles, waitFor } from './processProbe';
import { englishMessage } from '../../src/ui/errorText';

/** What a failed dispatch must leave: no agent, no agent branch, only the main worktree, an empty worktree root. */
function assertNothingLeft(manager: AgentManager, repo: string, worktreeRoot: string): void {
  assert.deepEqual(manager.list(), [], 'no agent record');
  assert.equal(git(repo, 'branch', '--list', 'agents/*'), '', 'no agent branch');
  const registered = git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
  assert.deepEqual(registered, [`worktree ${repo}`], 'only the main worktree is registered');
  assert.deepEqual(
    fs.existsSync(path.join(repo, '.git', 'worktrees')) ? fs.readdirSync(path.join(repo, '.git', 'worktrees')) : [],
    [],
    'no worktree registry entry',
  );
  assert.deepEqual(fs.existsSync(worktreeRoot) ? fs.readdirSync(worktreeRoot) : [], [], `nothing in ${worktreeRoot}`);
  assert.equal(git(repo, 'status', '--porcelain'), '', 'the main worktree is untouched');
}

describe('Faults with real processes', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;

  afterEach(() => fx?.dispose());

  // 'separate': the add registers with --no-checkout and `read-tree -mu` checks the files out
  // outside the write queue; 'inline': `git worktree add` does both (git before 2.36).
  for (const checkout of ['separate', 'inline'] as const) {
    it(`git killed during worktree add (${checkout} checkout): a clear error, nothing half made, and the same dispatch then succeeds`, async () => {
      // Enough files that the checkout lasts long enough to be caught.
      fx = new ManagerFixture(manyFiles(3000, 2048));
      const manager = fx.manager({ git: new NodeGit({ worktreeCheckout: checkout }) });
      const root = `${fx.repo}.worktrees`;
      const registry = path.join(fx.repo, '.git', 'worktrees');
      let killed: string[] = [];
      const killer = (async () => {
        // The checkout holds the new worktree's index.lock while it writes files: kill git right then.
        await waitFor(
          () =>
            fs.existsSync(registry) &&
            fs.readdirSync(registry).some((id) => fs.existsSync(path.join(registry, id, 'index.lock'))),
          60_000,
          2,
        );
        const writers =
          checkout === 'inline'
            ? gitProcessesIn(fx.repo).filter((pid) => /\bworktree\0add\0/.test(commandLine(pid)))
            : fs
                .readdirSync(root)
                .flatMap((name) => gitProcessesIn(path.join(root, name)))
                .filter((pid) => /\bread-tree\0/.test(commandLine(pid)));
        assert.equal(writers.length, 1, `one git ${checkout === 'inline' ? 'worktree add' : 'read-tree'} is running`);
        const tree = [writers[0], ...childrenOf(writers[0])];
        killed = tree.map((pid) => commandLine(pid).replace(/\0/g, ' ').trim());
        // The whole git process tree, as the OOM killer or a closed session would: the real git dies mid-write.
        tree.forEach((pid) => process.kill(pid, 'SIGKILL'));
      })();
      const dispatch = () =>
        manager.dispatch({ prompt: 'print hello', profile: 'demo', folder: fx.repo, title: 'Killed git' });
      await assert.rejects(dispatch(), (e) => {
        assert.ok(AgentError.is(e, 'worktreeFailed'), String(e));
        assert.match(`${englishMessage(e)}\n${e.detail}`, /worktree add/);
        return true;
      });
      await killer;
      assert.ok(
        killed.some((c) => (checkout === 'inline' ? / worktree add / : / read-tree /).test(c)),
        `the real git was killed: ${killed.join(' | ')}`,
      );
      assertNothingLeft(manager, fx.repo, root);

      const retry = await dispatch();
      assert.equal(
        retry.branch,
        'agents/killed-git',
        'the retry gets the same branch name: nothing of the first try is in the way',
      );
      const done = await fx.finished(manager, retry.id);
      assert.equal(done.status, 'succeeded', done.error);
      assert.equal(
        git(fx.repo, 'worktree', 'list', '--porcelain').match(/^locked/m),
        null,
        'no worktree is left locked',
      );
      assert.equal(git(retry.worktreePath!, 'ls-files').split('\n').length, 3000);
      assert.equal(git(retry.worktreePath!, 'status', '--porcelain'), '', 'every file checked out');
    });
  }

  it('an agent SIGKILLed by its pid ends failed with the signal, reported by its supervisor', async () => {
    fx = new ManagerFixture();
    const manager = fx.manager();
    const record = await manager.dispatch({
      prompt: 'print started\nsleep 30\nprint never',
      profile: 'demo',
      folder: fx.repo,
      title: 'Victim',
    });
    const statusPath = path.join(fx.tmp, 'agents', `${record.id}.status.json`);
    const running = await waitFor(() => {
      const status = fs.existsSync(statusPath) ? parseStatus(fs.readFileSync(statusPath, 'utf8')) : undefined;
      return status?.state === 'running' && fs.readFileSync(record.logPath!, 'utf8').includes('started')
        ? status
        : undefined;
    }, 30_000);
    const agentPid = running.agentPid!;
    assert.match(commandLine(agentPid), /demoAgent\.js/, 'the pid is the demo agent itself');
    process.kill(agentPid, 'SIGKILL');
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'failed');
    assert.equal(done.signal, 'SIGKILL');
    assert.equal(done.exitCode, undefined);
    const ended = parseStatus(fs.readFileSync(statusPath, 'utf8'));
    assert.ok(ended?.state === 'ended', 'the supervisor recorded the end');
    assert.equal(ended.signal, 'SIGKILL', 'the supervisor recorded the signal');
    assert.ok(!ended.stopRequested, 'not mistaken for a Stop');
    const log = fs.readFileSync(record.logPath!, 'utf8');
    assert.match(log, /started/);
    assert.doesNotMatch(log, /never/);
    // The worktree and branch stay for review: a killed agent's work is not thrown away.
    assert.ok(fs.existsSync(done.worktreePath!));
    assert.match(git(fx.repo, 'branch', '--list', 'agents/victim'), /agents\/victim$/);
  });
});
