// The check command with real git, the real demo agent and a real check process: a failing check
// is recorded with its output in its log, Fix Failing Check sends that output to the agent, and
// the agent's fix turns the check green by itself.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { AgentRecord } from '../../src/core/agent';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import type { ManagerSettings } from '../../src/core/ports';
import { statusCheck } from '../fixtures/statusCheck';
import { ManagerFixture } from './managerFixture';

describe('Checks with real git, the real demo agent and a real check process', function () {
  this.timeout(60000);
  let fx: ManagerFixture;

  beforeEach(() => {
    fx = new ManagerFixture();
  });
  afterEach(() => fx.dispose());

  const withCheck = (extra: Partial<ManagerSettings>, profiles?: readonly Profile[]): AgentManager =>
    fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), ...extra }),
      ...(profiles ? { profiles: () => profiles } : {}),
    });

  async function dispatched(manager: AgentManager, prompt: string): Promise<AgentRecord> {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title: 'Status' });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    return manager.whenCheckEnded(record.id);
  }

  it('fails with its output logged, sends that output on Fix Failing Check, and passes after the fix', async () => {
    const manager = withCheck({ checkCommand: statusCheck });
    const failed = await dispatched(manager, 'create status.txt: broken');
    const check = failed.check!;
    assert.equal(check.state, 'failed');
    assert.equal(check.exitCode, 1);
    assert.deepEqual(check.command, statusCheck);
    assert.match(check.tree ?? '', /^[0-9a-f]{40}$/);
    assert.equal(check.logPath, path.join(fx.tmp, 'logs', `${failed.id}.check.log`));
    const log = fs.readFileSync(check.logPath, 'utf8');
    assert.match(log, /──── check: /);
    assert.match(log, /status\.txt says "broken", expected ok/);
    assert.equal(await manager.checks.verdict(failed.id), 'failed');

    const prompt = await manager.fixFailingCheck(failed.id);
    assert.match(prompt, /failed with exit code 1/);
    assert.match(prompt, /status\.txt says "broken", expected ok\ncreate status\.txt: ok/);
    assert.ok(!prompt.includes('──── check'), "the prompt has the check's own output, not the log's banner");
    assert.deepEqual(manager.get(failed.id).followUps, [prompt]);
    const fixed = await manager.whenEnded(failed.id);
    assert.equal(fixed.status, 'succeeded', fixed.error);
    const green = (await manager.whenCheckEnded(failed.id)).check!;
    assert.equal(green.state, 'passed');
    assert.equal(green.exitCode, 0);
    assert.ok(green.startedAt > fixed.endedAt! - 1, "the agent's end started the check again by itself");
    assert.equal(fs.readFileSync(path.join(fixed.cwd, 'status.txt'), 'utf8'), 'ok');
    assert.equal(await manager.checks.verdict(failed.id), 'passed');
    // Both runs are in the one check log, each after its banner.
    assert.equal(fs.readFileSync(green.logPath, 'utf8').match(/──── check: /g)?.length, 2);

    // The worktree changes after the check passed: the check no longer speaks for it.
    fs.writeFileSync(path.join(fixed.cwd, 'status.txt'), 'changed by hand\n');
    assert.equal(await manager.checks.verdict(failed.id), 'stale');
    fs.writeFileSync(path.join(fixed.cwd, 'status.txt'), 'ok');
    assert.equal(await manager.checks.verdict(failed.id), 'passed', 'the same content again: fresh again');
    fs.writeFileSync(path.join(fixed.cwd, 'new-file.txt'), 'untracked\n');
    assert.equal(await manager.checks.verdict(failed.id), 'stale', 'an untracked file counts too');
  });

  it('runs on demand, and a check command that is not found is recorded as an error and changes nothing else', async () => {
    const manager = withCheck({ checkCommand: ['definitely-not-an-installed-check', 'run'] });
    const record = await dispatched(manager, 'create status.txt: ok');
    assert.equal(record.check?.state, 'error', 'the automatic check found no executable');
    const before = manager.get(record.id);
    const head = fs.readFileSync(path.join(record.cwd, 'status.txt'), 'utf8');
    await assert.rejects(manager.checks.start(record.id), (e) => AgentError.isCode(e, 'checkCommandNotFound'));
    const after = manager.get(record.id);
    assert.equal(after.check?.state, 'error');
    assert.match(after.check?.error ?? '', /^checkCommandNotFound \{"command":"definitely-not-an-installed-check"\}/);
    assert.deepEqual({ ...after, check: undefined }, { ...before, check: undefined }, 'only the check changed');
    assert.equal(fs.readFileSync(path.join(record.cwd, 'status.txt'), 'utf8'), head);
    assert.ok(!fs.existsSync(after.check!.logPath), 'nothing ran, so no log');
    await assert.rejects(manager.fixFailingCheck(record.id), (e) => AgentError.isCode(e, 'noFailingCheck'));
    assert.equal(manager.get(record.id).followUps, undefined);
  });

  it('without a check command: no check after the agent, Run Check refuses with a clear error, nothing changed', async () => {
    const manager = withCheck({});
    const record = await dispatched(manager, 'create status.txt: ok');
    assert.equal(record.check, undefined);
    await assert.rejects(manager.checks.start(record.id), (e) => AgentError.isCode(e, 'noCheckCommand'));
    assert.deepEqual(manager.get(record.id), record);
    assert.equal(await manager.checks.verdict(record.id), undefined);
  });

  it("a profile's checkCommand takes the setting's place", async () => {
    const demo = builtinProfiles.find((p) => p.name === 'demo')!;
    const manager = withCheck({ checkCommand: ['definitely-not-an-installed-check'] }, [
      { ...demo, checkCommand: statusCheck },
    ]);
    const record = await dispatched(manager, 'create status.txt: ok');
    assert.deepEqual(record.check?.command, statusCheck);
    assert.equal(record.check?.state, 'passed');
    // On demand too, and a second start while one runs is refused.
    const running = await manager.checks.start(record.id);
    assert.equal(running.state, 'running');
    await assert.rejects(manager.checks.start(record.id), (e) => AgentError.isCode(e, 'checkStillRunning'));
    assert.equal((await manager.whenCheckEnded(record.id)).check?.state, 'passed');
  });
});
