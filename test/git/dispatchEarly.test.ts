// A dispatch starts its agent's supervisor while git checks out the worktree (SupervisedRunner.prepare):
// seen waiting during a slow post-checkout hook, then running the agent; not started ahead when a
// setup command runs in between; and ended, with nothing left, when the worktree cannot be made.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { waitingSupervisors } from '../unit/processTestUtils';
import { git, ManagerFixture, supervisorScript } from './managerFixture';

/** Runs `work` while watching for waiting supervisors every 20 ms; what it resolved to and the pids seen. */
async function watching<T>(dir: string, work: Promise<T>): Promise<{ result: T | Error; seen: Set<number> }> {
  const seen = new Set<number>();
  let done = false;
  const settled = work.then(
    (result) => result,
    (e: Error) => e,
  );
  void settled.then(() => (done = true));
  while (!done) {
    waitingSupervisors(supervisorScript, dir).forEach((pid) => seen.add(pid));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { result: await settled, seen };
}

async function noneWaiting(dir: string): Promise<void> {
  for (let i = 0; i < 200 && waitingSupervisors(supervisorScript, dir).length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.deepEqual(waitingSupervisors(supervisorScript, dir), [], 'no supervisor is left waiting');
}

describe('Dispatch starts the supervisor during the checkout (real git, real supervisor)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;

  beforeEach(() => {
    fx = new ManagerFixture();
  });
  afterEach(() => fx.dispose());

  function hook(body: string): void {
    const file = path.join(fx.repo, '.git', 'hooks', 'post-checkout');
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  }

  it('is waiting while the checkout runs, then is the one that runs the agent', async () => {
    hook('sleep 1');
    const manager = fx.manager();
    const { result, seen } = await watching(
      fx.tmp,
      manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: fx.repo, title: 'early' }),
    );
    assert.ok(!(result instanceof Error), String(result));
    assert.equal(seen.size, 1, 'one supervisor waited during the checkout');
    const status = JSON.parse(fs.readFileSync(path.join(fx.tmp, 'agents', `${result.id}.status.json`), 'utf8')) as {
      supervisorPid: number;
    };
    assert.deepEqual([...seen], [status.supervisorPid], 'the waiting supervisor runs the agent');
    const done = await fx.finished(manager, result.id);
    assert.equal(done.status, 'succeeded', done.error);
    await noneWaiting(fx.tmp);
  });

  it('is not started ahead when a setup command runs between the checkout and the agent', async () => {
    hook('sleep 1');
    const manager = fx.manager({
      settings: () => ({
        branchPrefix: 'agents',
        logDir: path.join(fx.tmp, 'logs'),
        setupCommand: [process.execPath, '-e', '0'],
      }),
    });
    const { result, seen } = await watching(
      fx.tmp,
      manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: fx.repo, title: 'setup' }),
    );
    assert.ok(!(result instanceof Error), String(result));
    assert.equal(seen.size, 0);
    assert.equal((await fx.finished(manager, result.id)).status, 'succeeded');
  });

  it('ends it, leaving nothing, when the worktree cannot be made', async () => {
    hook('sleep 1; exit 3');
    const manager = fx.manager();
    const { result, seen } = await watching(
      fx.tmp,
      manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: fx.repo, title: 'fails' }),
    );
    assert.ok(AgentError.is(result, 'worktreeFailed'), String(result));
    assert.equal(seen.size, 1, 'it was started during the checkout');
    await noneWaiting(fx.tmp);
    assert.deepEqual(manager.list(), []);
    assert.equal(git(fx.repo, 'for-each-ref', 'refs/heads/agents/'), '');
    const state = path.join(fx.tmp, 'agents');
    assert.deepEqual(fs.existsSync(state) ? fs.readdirSync(state) : [], [], 'no spec or status written');
  });
});
