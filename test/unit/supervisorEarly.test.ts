// SupervisedRunner.prepare: the real supervisor started before its run (while a dispatch checks
// out the worktree) waits on stdin; start() hands it the spec and it runs the agent as one started
// by start() alone does; release(), a supervisor gone before start() and the end of the host that
// prepared it all leave nothing running and nothing written.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SupervisedRunner, type SupervisedRunnerOptions } from '../../src/node/supervisedRunner';
import { pidAlive, waitForOutput, waitUntil, waitingSupervisors } from './processTestUtils';
import { supervisedFixture, supervisorScript } from './supervisedFixture';

/** Waits for `condition` and fails the test, naming `what`, when it does not come. */
async function until(condition: () => boolean, what: string): Promise<void> {
  await waitUntil(condition, 10_000);
  assert.ok(condition(), `timed out waiting: ${what}`);
}

const hostInput = process.env.PA_EARLY_HOST;
if (hostInput !== undefined) {
  // A host that readies a run, says so, and is then killed before it starts it.
  const options = JSON.parse(hostInput) as SupervisedRunnerOptions;
  new SupervisedRunner(options).prepare('h1', options.stateDir);
  process.stdout.write('prepared\n');
  setInterval(() => undefined, 1000);
} else if (process.platform !== 'win32') {
  describe('SupervisedRunner.prepare: a supervisor booted ahead of its run (real processes)', function () {
    this.timeout(60_000);
    const fx = supervisedFixture('pa-early-');

    it('is the supervisor that runs the agent once start() comes, with the same log, status and exit', async () => {
      const runner = fx.runner();
      const req = fx.request(["console.log('early ' + process.cwd()); process.exitCode = 3;"]);
      runner.prepare(req.agentId, req.cwd);
      let waiting: number[] = [];
      await until(
        () => (waiting = waitingSupervisors(supervisorScript, fx.stateDir)).length === 1,
        'one waiting supervisor',
      );
      assert.equal(fs.existsSync(path.join(fx.stateDir, 'a1.status.json')), false, 'nothing written before start');
      const agent = runner.start(req);
      assert.equal(fx.statusOf('a1')?.supervisorPid, waiting[0], 'the prepared supervisor is the one recorded');
      const text = await waitForOutput(agent, 'early ');
      assert.match(text, new RegExp(`early ${fx.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      assert.deepEqual(await agent.exit, { exitCode: 3 });
      assert.equal(fx.statusOf('a1')?.state, 'ended');
      assert.equal(fs.existsSync(path.join(fx.stateDir, 'a1.spec.json')), false, 'the spec is read and deleted');
      await until(() => !pidAlive(waiting[0]), 'the supervisor ends');
    });

    it('ends on release() with nothing written, and a second prepare of the same run starts no second one', async () => {
      const runner = fx.runner();
      runner.prepare('a1', fx.dir);
      runner.prepare('a1', fx.dir);
      let waiting: number[] = [];
      await until(
        () => (waiting = waitingSupervisors(supervisorScript, fx.stateDir)).length === 1,
        'one waiting supervisor',
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(waitingSupervisors(supervisorScript, fx.stateDir).length, 1);
      runner.release('a1');
      await until(() => !pidAlive(waiting[0]), 'the supervisor ends');
      assert.deepEqual(fs.readdirSync(fx.stateDir), []);
      runner.release('a1');
    });

    it('starts a new supervisor when the prepared one is gone before start()', async () => {
      const runner = fx.runner();
      const req = fx.request(["console.log('fresh');"]);
      runner.prepare(req.agentId, req.cwd);
      let waiting: number[] = [];
      await until(
        () => (waiting = waitingSupervisors(supervisorScript, fx.stateDir)).length === 1,
        'one waiting supervisor',
      );
      process.kill(waiting[0], 'SIGKILL');
      await until(() => !pidAlive(waiting[0]), 'the supervisor ends');
      // The kill is seen by the runner once Node reaps the child.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const agent = runner.start(req);
      assert.notEqual(fx.statusOf('a1')?.supervisorPid, waiting[0]);
      await waitForOutput(agent, 'fresh');
      assert.deepEqual(await agent.exit, { exitCode: 0 });
    });

    it('ends when the host that prepared it dies', async () => {
      const host = spawn(process.execPath, [__filename], {
        env: { ...process.env, PA_EARLY_HOST: JSON.stringify(fx.options()) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      await new Promise<void>((resolve) => host.stdout.on('data', (d: Buffer) => d.includes('prepared') && resolve()));
      let waiting: number[] = [];
      await until(
        () => (waiting = waitingSupervisors(supervisorScript, fx.stateDir)).length === 1,
        'one waiting supervisor',
      );
      host.kill('SIGKILL');
      await until(() => !pidAlive(waiting[0]), 'the supervisor ends');
      assert.deepEqual(fs.readdirSync(fx.stateDir), []);
    });
  });
}
