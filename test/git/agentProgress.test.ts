// Structured progress with real processes: a small node script replays the JSON lines recorded from
// the real claude CLI (test/fixtures/agentOutput) in a real worktree, under the real supervisor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { ManagerFixture } from './managerFixture';
import { recordedClaudeProfile } from './recordedCli';

const fullRun = {
  step: 'Write notes/hello.txt',
  turns: 2,
  inputTokens: 20,
  outputTokens: 10,
  costUsd: 0.00028000000000000003,
  result: 'DONE',
};

describe('structured progress of a headless CLI (real processes, recorded claude stream-json)', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let profiles: Profile[];

  beforeEach(() => {
    fx = new ManagerFixture();
    profiles = [...builtinProfiles, recordedClaudeProfile(fx.tmp)];
  });

  afterEach(() => fx.dispose());

  const manager = () => fx.manager({ profiles: () => profiles });

  async function until<T>(what: string, probe: () => T | undefined): Promise<T> {
    for (let i = 0; i < 400; i++) {
      const value = probe();
      if (value !== undefined && value !== false) {
        return value;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  it('records step, turns, tokens, cost and result of a run, and saves them with the agent', async () => {
    const m = manager();
    const record = await m.dispatch({
      prompt: 'claude-edit.jsonl',
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Recorded edit',
    });
    const done = await fx.finished(m, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.deepEqual(done.activity, fullRun);
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['notes/hello.txt'],
    );
    await m.flush();
    assert.deepEqual(fx.store.records.find((r) => r.id === record.id)?.activity, fullRun);
  });

  it('ends a clean exit whose CLI reports a denied tool as "needs permission"; a follow-up runs again and clears it', async () => {
    const m = manager();
    const record = await m.dispatch({
      prompt: 'claude-permission-denied.jsonl',
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Denied',
    });
    const done = await fx.finished(m, record.id);
    assert.equal(done.status, 'needs-permission');
    assert.equal(done.exitCode, 0);
    assert.deepEqual(done.activity?.denials, ['Write notes/hello.txt']);
    assert.equal(done.activity?.result, 'DONE');
    assert.deepEqual(done.changedFiles, []);
    await m.followUp(record.id, 'claude-edit.jsonl');
    const again = await fx.finished(m, record.id);
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(again.activity, fullRun);
  });

  it("ends a clean exit whose CLI reports an error (claude is_error) as failed, with the CLI's text as the error", async () => {
    // claude-error-result.jsonl: the recorded init line, then the recorded result line with is_error set.
    const m = manager();
    const record = await m.dispatch({
      prompt: 'claude-error-result.jsonl',
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Errored',
    });
    const done = await fx.finished(m, record.id);
    assert.equal(done.exitCode, 0);
    assert.equal(done.status, 'failed');
    assert.match(done.error ?? '', /^API Error: 529 .*Overloaded/);
    assert.equal(done.activity?.reportedError, true);
  });

  it('shows the step while the agent runs, before its run ends', async () => {
    const m = manager();
    const gate = path.join(fx.tmp, 'gate-running');
    const record = await m.dispatch({
      prompt: `claude-edit.jsonl\n${gate}`,
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Slow edit',
    });
    const running = await until('the step', () => (m.get(record.id).activity?.step ? m.get(record.id) : undefined));
    assert.equal(running.status, 'running');
    assert.deepEqual(running.activity, { step: 'Write notes/hello.txt' });
    fs.writeFileSync(gate, '');
    assert.deepEqual((await fx.finished(m, record.id)).activity, fullRun);
  });

  it('rebuilds the progress of a run adopted after a reload from its log, then follows it to its end', async () => {
    const gate = path.join(fx.tmp, 'gate-adopt');
    const first = manager();
    const record = await first.dispatch({
      prompt: `claude-edit.jsonl\n${gate}`,
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Survivor',
    });
    await until('the step', () => first.get(record.id).activity?.step);
    await first.flush();
    first.dispose();
    // State saved before the step was known: only the log can tell the next window.
    fx.store.records = fx.store.records.map((r) => ({ ...r, activity: undefined }));
    const second = manager();
    assert.ok(second.isRunning(record.id), 'adopted');
    const rebuilt = await until('the rebuilt step', () => second.get(record.id).activity?.step);
    assert.equal(rebuilt, 'Write notes/hello.txt');
    fs.writeFileSync(gate, '');
    const done = await fx.finished(second, record.id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(done.activity, fullRun);
  });

  it('a run that ended while no window was open gets its result and its "needs permission" from the log', async () => {
    const gate = path.join(fx.tmp, 'gate-closed');
    const first = manager();
    const record = await first.dispatch({
      prompt: `claude-permission-denied.jsonl\n${gate}`,
      profile: 'recorded-claude',
      folder: fx.repo,
      title: 'Ended unseen',
    });
    await until('the step', () => first.get(record.id).activity?.step);
    await first.flush();
    first.dispose();
    fx.store.records = fx.store.records.map((r) => ({ ...r, activity: undefined }));
    fs.writeFileSync(gate, '');
    const statusFile = path.join(fx.tmp, 'agents', `${record.id}.status.json`);
    await until(
      'the supervisor to record the end',
      () => fs.existsSync(statusFile) && fs.readFileSync(statusFile, 'utf8').includes('"ended"'),
    );
    const second: AgentManager = manager();
    const done: AgentRecord = await fx.finished(second, record.id);
    assert.equal(done.status, 'needs-permission');
    assert.deepEqual(done.activity?.denials, ['Write notes/hello.txt']);
    assert.equal(done.activity?.result, 'DONE');
  });
});
