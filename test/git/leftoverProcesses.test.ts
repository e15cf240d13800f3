// What an agent's runs leave running (children in their process group), with real git, real
// supervised processes and real children: an agent's server outlives the agent (its app may run
// for the review) and ends when Discard removes its folder, after what it wrote is saved, as does
// the server of a run before a follow-up; what a check leaves ends with the check, in the agent's
// folder and in another folder; a run still going is not a leftover.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { pidAlive } from '../../src/supervisor/processIdentity';
import { lateWriter, leavesChild } from '../fixtures/leavesChild';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture, quiet } from './managerFixture';

/** A server: writes served.txt in its folder at once, then stays up. */
const server = 'require("fs").writeFileSync("served.txt", "up"); setInterval(() => undefined, 1000);';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('What an agent’s runs leave running (real git, real processes)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let pidFile: string;

  beforeEach(() => {
    fx = new ManagerFixture();
    pidFile = path.join(fx.tmp, 'child.pid');
  });

  afterEach(async () => {
    const pid = fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined;
    if (pid !== undefined && pidAlive(pid)) {
      process.kill(pid, 'SIGKILL');
    }
    await fx.dispose();
  });

  const childPid = (): number => Number(fs.readFileSync(pidFile, 'utf8'));
  /** An agent that starts a server in its folder and ends at once. */
  const serverProfile = () => ({
    name: 'leaves-server',
    command: process.execPath,
    args: ['-e', leavesChild(server, pidFile), '${prompt}'],
    mode: 'headless' as const,
  });

  it('an agent’s server outlives the agent; Discard ends it before saving, and Restore brings back what it wrote', async () => {
    const manager = fx.manager({ profiles: () => [...builtinProfiles, serverProfile()] });
    const landing = new AgentLanding(manager, fx.git, quiet);
    const record = await manager.dispatch({ prompt: 'serve', profile: 'leaves-server', folder: fx.repo });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    await waitFor('the server to write served.txt', () => fs.existsSync(path.join(done.cwd, 'served.txt')));
    await pause(300);
    assert.equal(pidAlive(childPid()), true, 'the server the agent started still runs once the agent has ended');

    await landing.discard(record.id);
    assert.equal(pidAlive(childPid()), false, 'Discard ended the server');
    assert.equal(fs.existsSync(done.cwd), false, 'the worktree is removed');
    const discarded = manager.get(record.id);
    assert.equal(discarded.status, 'discarded');
    assert.equal(git(fx.repo, 'show', `${discarded.savedRef!}:served.txt`), 'up', 'what the server wrote is saved');

    await landing.restore(record.id);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'served.txt'), 'utf8'), 'up');
  });

  it('a follow-up does not lose what the run before it left running: Discard ends both servers', async () => {
    const manager = fx.manager({ profiles: () => [...builtinProfiles, serverProfile()] });
    const landing = new AgentLanding(manager, fx.git, quiet);
    const record = await manager.dispatch({ prompt: 'serve', profile: 'leaves-server', folder: fx.repo });
    assert.equal((await fx.finished(manager, record.id)).status, 'succeeded');
    const first = childPid();
    await manager.followUp(record.id, 'serve again');
    assert.equal((await manager.whenEnded(record.id)).status, 'succeeded');
    const second = childPid();
    assert.notEqual(second, first);
    assert.equal(pidAlive(first) && pidAlive(second), true, 'both servers run once their runs have ended');

    await landing.discard(record.id);
    assert.equal(pidAlive(first), false, 'the server of the first run is ended too');
    assert.equal(pidAlive(second), false);
  });

  it('what a check leaves running ends with the check: the folder it judged stays as it was', async () => {
    const check = [process.execPath, '-e', leavesChild(lateWriter, pidFile)];
    const manager = fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), checkCommand: check }),
    });
    const done = await fx.ran(manager, 'create notes.txt: one', 'Checked');
    assert.equal(done.status, 'succeeded', done.error);
    const checked = await manager.whenCheckEnded(done.id);
    assert.equal(checked.check?.state, 'passed');
    assert.equal(pidAlive(childPid()), false, 'the child the check left is ended with the check');
    await pause(2500);
    assert.equal(fs.existsSync(path.join(done.cwd, 'late.txt')), false, 'nothing the check started wrote later');
    assert.equal(await manager.checks.verdict(done.id), 'passed', 'the check still judges the folder as it is');
  });

  it('what a check run in another folder leaves running ends with it, before its result is given', async () => {
    const check = [process.execPath, '-e', leavesChild(lateWriter, pidFile)];
    const manager = fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), checkCommand: check }),
    });
    const done = await fx.ran(manager, 'create notes.txt: one', 'Checked');
    await manager.whenCheckEnded(done.id);
    fs.rmSync(pidFile);
    const folder = path.join(fx.tmp, 'elsewhere');
    fs.mkdirSync(folder);
    const result = await manager.checks.inFolder(done.id, folder, 'elsewhere');
    assert.ok(result);
    assert.equal(result.check.state, 'passed');
    assert.match(result.output, /started/);
    assert.equal(pidAlive(childPid()), false, 'the child the check left is ended before its result');
    await pause(2500);
    assert.deepEqual(fs.readdirSync(folder), [], 'nothing the check started wrote the folder later');
  });

  it('a run still going is not a leftover: the runner ends only what an ended run left', async () => {
    const runner = fx.headlessRunner();
    const logPath = path.join(fx.tmp, 'logs', 'sleeper.log');
    const sleeper = runner.start({
      agentId: 'sleeper',
      title: 'Sleeper',
      file: process.execPath,
      args: ['-e', 'setInterval(() => undefined, 1000)'],
      cwd: fx.repo,
      env: {},
      logPath,
    });
    try {
      const status = await waitFor('the sleeper to run', () => {
        const text = fs.existsSync(runner.statusPath('sleeper'))
          ? fs.readFileSync(runner.statusPath('sleeper'), 'utf8')
          : '';
        const parsed = text ? (JSON.parse(text) as { state?: string; agentPid?: number }) : undefined;
        return parsed?.state === 'running' && parsed.agentPid !== undefined ? parsed : undefined;
      });
      // A damaged list of earlier runs' groups is read as none.
      fs.writeFileSync(runner.statusPath('sleeper').replace(/status\.json$/, 'leftovers.json'), '{not json');
      await runner.endLeftovers('sleeper');
      await pause(500);
      assert.equal(pidAlive(status.agentPid!), true, 'the running agent was left alone');
    } finally {
      await sleeper.stop();
    }
  });
});
