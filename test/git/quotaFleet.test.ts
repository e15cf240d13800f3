// Quota-aware fleet with real git and real demo-agent processes under the supervisor:
// parallelAgents.providerLimits caps live agents per provider; an agent that stops on a usage limit
// is paused (paused: quota), holds its provider's queue back, and resumes by itself after the reset
// as a follow-up in the same worktree, its files complete.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager, AgentManagerDeps } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture } from './managerFixture';

describe('quota-aware fleet (providerLimits, paused: quota) with real git and real agents', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let providerLimits: unknown;

  beforeEach(() => {
    fx = new ManagerFixture();
    providerLimits = {};
  });

  afterEach(() => fx.dispose());

  const makeManager = (overrides: Partial<AgentManagerDeps> = {}) =>
    fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), providerLimits }),
      ...overrides,
    });
  const dispatch = (manager: AgentManager, prompt: string, title: string) =>
    manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title });
  const isLive = (r: AgentRecord) => ['preparing', 'running', 'waiting-for-input'].includes(r.status);

  it('provider cap 2, five dispatches: never more than 2 run at once, all five finish in order', async () => {
    providerLimits = { demo: 2 };
    const manager = makeManager();
    let most = 0;
    const watch = manager.onDidChangeAgent(() => {
      most = Math.max(most, manager.list().filter(isLive).length);
    });
    const titles = ['One', 'Two', 'Three', 'Four', 'Five'];
    const records = [];
    for (const title of titles) {
      records.push(await dispatch(manager, `sleep 1\ncreate ${title.toLowerCase()}.txt: ${title}`, title));
    }
    assert.deepEqual(
      records.map((r) => r.status),
      ['running', 'running', 'queued', 'queued', 'queued'],
    );
    assert.deepEqual(
      records.slice(2).map((r) => [r.provider, r.queuedFor]),
      [
        ['demo', 'provider'],
        ['demo', 'provider'],
        ['demo', 'provider'],
      ],
    );
    const done = [];
    for (const r of records) {
      done.push(await manager.whenEnded(r.id));
    }
    watch.dispose();
    assert.deepEqual(
      done.map((r) => r.status),
      ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded'],
    );
    assert.ok(most <= 2, `at most 2 live at once, saw ${most}`);
    assert.equal(most, 2, 'the cap was used');
    for (const r of done) {
      assert.equal(fs.readFileSync(path.join(r.cwd, `${r.title.toLowerCase()}.txt`), 'utf8'), r.title);
    }
    // The third started only once one of the first two had ended.
    const firstEnd = Math.min(done[0].endedAt!, done[1].endedAt!);
    assert.ok(done[2].startedAt! >= firstEnd);
  });

  it('another provider is not held back by a capped one', async () => {
    providerLimits = { demo: 1 };
    const manager = fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), providerLimits }),
      profiles: () => [
        { name: 'demo', command: '${demoAgent}', args: ['${prompt}'], mode: 'headless' },
        { name: 'other', command: '${demoAgent}', args: ['${prompt}'], mode: 'headless', provider: 'other' },
      ],
    });
    const a = await dispatch(manager, 'sleep 30', 'A');
    const b = await dispatch(manager, 'sleep 30', 'B');
    const c = await manager.dispatch({ prompt: 'create c.txt: c', profile: 'other', folder: fx.repo, title: 'C' });
    assert.deepEqual([a.status, b.status, c.status], ['running', 'queued', 'running']);
    assert.equal((await manager.whenEnded(c.id)).status, 'succeeded');
    assert.equal(manager.get(b.id).status, 'queued', 'demo is still at its cap');
    await manager.stop(a.id);
    await waitFor('B to start', () => manager.get(b.id).status === 'running');
  });

  it('a rate-limited agent pauses (paused: quota), holds its provider back, resumes after the reset and completes', async () => {
    const manager = makeManager();
    const prompt = 'create part1.txt: first half\nratelimit: resets in 2s\ncreate part2.txt: second half';
    const limited = await dispatch(manager, prompt, 'Limited');
    const paused = await fx.finished(manager, limited.id);
    assert.equal(paused.status, 'paused', paused.error);
    assert.equal(paused.exitCode, 1);
    assert.equal(paused.quota?.provider, 'demo');
    assert.equal(paused.quota?.resetGiven, true);
    assert.equal(paused.quota?.attempt, 1);
    assert.match(paused.quota!.message, /usage limit/);
    assert.ok(paused.quota!.resumeAt >= paused.endedAt! + 2000, 'resumes at the reset the CLI gave');
    assert.equal(fs.readFileSync(path.join(paused.cwd, 'part1.txt'), 'utf8'), 'first half', 'partial work kept');
    assert.ok(!fs.existsSync(path.join(paused.cwd, 'part2.txt')));
    // Meanwhile a new agent of the same provider waits rather than start into the same wall.
    const waiting = await dispatch(manager, 'create w.txt: w', 'Waiting');
    assert.equal(waiting.status, 'queued');
    assert.equal(waiting.queuedFor, 'quota');

    await waitFor('the resume', () => manager.get(limited.id).status === 'running', {
      timeoutMs: 15_000,
    });
    const done = await manager.whenEnded(limited.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.ok(done.startedAt! >= paused.quota!.resumeAt);
    assert.equal(done.followUps?.length, 1, 'resumed as a follow-up');
    assert.match(done.followUps![0], /Continue your task/);
    assert.equal(done.quota, undefined, 'a run that ends otherwise clears the pause');
    assert.equal(done.cwd, paused.cwd, 'in the same worktree');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'part1.txt'), 'utf8'), 'first half');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'part2.txt'), 'utf8'), 'second half');
    const after = await manager.whenEnded(waiting.id);
    assert.equal(after.status, 'succeeded', after.error);
    assert.ok(after.startedAt! >= done.startedAt!, 'the queued agent started only once the paused one resumed');
  });

  it('a paused agent stays paused across a reload and resumes in the new window; Stop and Discard cancel a resume', async () => {
    // One provider each: a pause of one does not queue the others.
    const profiles = () =>
      ['a', 'b', 'c'].map((name) => ({
        name,
        command: '${demoAgent}',
        args: ['${prompt}'],
        mode: 'headless' as const,
        provider: name,
      }));
    const before = makeManager({ profiles });
    const start = (profile: string, prompt: string, title: string) =>
      before.dispatch({ prompt, profile, folder: fx.repo, title });
    const limited = await start('a', 'ratelimit: resets in 3s\ncreate done.txt: done', 'Reloaded');
    const stopped = await start('b', 'ratelimit: resets in 3s\ncreate no.txt: no', 'Stopped');
    const discarded = await start('c', 'ratelimit: resets in 3s\ncreate no.txt: no', 'Discarded');
    for (const r of [limited, stopped, discarded]) {
      assert.equal((await fx.finished(before, r.id)).status, 'paused');
    }
    await before.flush();
    before.dispose();

    const after = makeManager({ profiles });
    after.resume();
    assert.equal(after.get(limited.id).status, 'paused', 'restored as paused, not interrupted');
    await after.stop(stopped.id);
    assert.equal(after.get(stopped.id).status, 'stopped');
    await new AgentLanding(after, fx.git, { info() {}, warn() {}, error() {} }).discard(discarded.id);
    assert.equal(after.get(discarded.id).status, 'discarded');
    assert.equal(after.get(discarded.id).statusBeforeDiscard, 'stopped');
    const done = await waitFor('the resume after the reload', () => {
      const r = after.get(limited.id);
      return r.status === 'succeeded' ? r : undefined;
    });
    assert.equal(fs.readFileSync(path.join(done.cwd, 'done.txt'), 'utf8'), 'done');
    // Well past their reset: the stopped and discarded agents never resumed.
    assert.equal(after.get(stopped.id).status, 'stopped');
    assert.equal(after.get(stopped.id).followUps, undefined);
    assert.equal(after.get(discarded.id).status, 'discarded');
    assert.ok(!fs.existsSync(path.join(stopped.cwd, 'no.txt')));
  });
});
