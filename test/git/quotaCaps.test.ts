// Resumes of quota-paused agents under parallelAgents.maxConcurrentAgents and providerLimits, with real
// git and real demo-agent processes under the supervisor: a paused agent holds no place while it
// waits, but when its resume time comes it starts only if there is room, and it goes before queued
// dispatches once room frees.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { sessionFile } from '../../src/demoAgent/rateLimit';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture, git, quiet } from './managerFixture';

const isLive = (r: AgentRecord) => ['preparing', 'running', 'waiting-for-input'].includes(r.status);

describe('quota resumes under the caps, with real git and real agents', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;

  beforeEach(() => {
    fx = new ManagerFixture();
  });

  afterEach(() => fx.dispose());

  /** A manager with profiles `a` and `b`, each its own provider, and the given caps. */
  const makeManager = (maxConcurrentAgents: number, providerLimits: unknown = {}) =>
    fx.manager({
      settings: () => ({
        branchPrefix: 'agents',
        logDir: path.join(fx.tmp, 'logs'),
        maxConcurrentAgents,
        providerLimits,
      }),
      profiles: () =>
        ['a', 'b'].map((name) => ({
          name,
          command: '${demoAgent}',
          args: ['${prompt}'],
          mode: 'headless' as const,
          provider: name,
        })),
    });
  const dispatch = (manager: AgentManager, profile: string, prompt: string, title: string) =>
    manager.dispatch({ prompt, profile, folder: fx.repo, title });
  /** Waits until the agent is neither live, queued nor paused. */
  const ended = (manager: AgentManager, id: string) =>
    waitFor(
      `${manager.get(id).title} to end`,
      () => {
        const r = manager.get(id);
        return isLive(r) || ['queued', 'paused'].includes(r.status) ? undefined : r;
      },
      { timeoutMs: 40_000 },
    );
  /** Counts the live agents at every change: the most seen at once. */
  const watchMost = (manager: AgentManager) => {
    const seen = { most: 0 };
    const sub = manager.onDidChangeAgent(() => {
      seen.most = Math.max(seen.most, manager.list().filter(isLive).length);
    });
    return { seen, dispose: () => sub.dispose() };
  };

  it('cap 2: two paused agents resume only as room frees, before a newer queued dispatch', async () => {
    const manager = makeManager(2);
    const limited = [];
    for (const title of ['P1', 'P2']) {
      const prompt = `ratelimit: resets in 2s\ncreate ${title.toLowerCase()}.txt: ${title.toLowerCase()}`;
      limited.push(await dispatch(manager, 'a', prompt, title));
    }
    for (const r of limited) {
      assert.equal((await fx.finished(manager, r.id)).status, 'paused');
    }
    // The paused agents hold no place: two agents of another provider start at once, a third waits.
    const watch = watchMost(manager);
    const b1 = await dispatch(manager, 'b', 'sleep 5\ncreate b1.txt: b1', 'B1');
    const b2 = await dispatch(manager, 'b', 'sleep 7\ncreate b2.txt: b2', 'B2');
    const b3 = await dispatch(manager, 'b', 'create b3.txt: b3', 'B3');
    assert.deepEqual([b1.status, b2.status, b3.status], ['running', 'running', 'queued']);

    // The resume time comes while B1 and B2 run: the paused agents wait for room, shown as such.
    const resumeAt = Math.max(...limited.map((r) => manager.get(r.id).quota!.resumeAt));
    await waitFor('the resume time', () => Date.now() > resumeAt + 500, { timeoutMs: 15_000 });
    for (const r of limited) {
      const now = manager.get(r.id);
      assert.equal(now.status, 'paused', 'no room: it waits');
      assert.ok(now.resumeWaitingSince, 'marked as waiting for room');
    }
    const done = new Map<string, AgentRecord>();
    for (const r of [...limited, b1, b2, b3]) {
      done.set(r.id, await ended(manager, r.id));
    }
    watch.dispose();
    assert.ok(watch.seen.most <= 2, `at most 2 live at once, saw ${watch.seen.most}`);
    for (const r of done.values()) {
      assert.equal(r.status, 'succeeded', `${r.title}: ${r.error}`);
      assert.equal(fs.readFileSync(path.join(r.cwd, `${r.title.toLowerCase()}.txt`), 'utf8'), r.title.toLowerCase());
    }
    // P1 resumed when B1 ended, P2 when B2 ended (or P1 ended), and B3, queued before the resume
    // time came but behind them, only after both.
    const [p1, p2] = limited.map((r) => done.get(r.id)!);
    assert.ok(p1.startedAt! >= done.get(b1.id)!.endedAt!, 'P1 resumed once B1 made room');
    assert.ok(done.get(b3.id)!.startedAt! >= Math.max(p1.startedAt!, p2.startedAt!), 'B3 after the resumes');
    assert.equal(p1.quota, undefined);
  });

  it('provider cap 1: a resume waits while another agent of its provider runs', async () => {
    const manager = makeManager(0, { a: 1 });
    const other = await dispatch(manager, 'a', 'create o.txt: o', 'O');
    assert.equal((await fx.finished(manager, other.id)).status, 'succeeded');
    const paused = await dispatch(manager, 'a', 'ratelimit: resets in 2s\ncreate p.txt: p', 'P');
    assert.equal((await fx.finished(manager, paused.id)).status, 'paused');
    // The user follows up another agent of the same provider meanwhile (a follow-up is the user's
    // own call: it is not queued) and it still runs when P's time comes.
    await manager.followUp(other.id, 'sleep 6\ncreate o2.txt: o2');
    const watch = watchMost(manager);
    const resumeAt = manager.get(paused.id).quota!.resumeAt;
    await waitFor('the resume time', () => Date.now() > resumeAt + 500, { timeoutMs: 15_000 });
    assert.equal(manager.get(paused.id).status, 'paused', 'provider a is at its cap: it waits');
    const o = await manager.whenEnded(other.id);
    const p = await ended(manager, paused.id);
    assert.equal(p.status, 'succeeded', p.error);
    watch.dispose();
    assert.ok(p.startedAt! >= o.endedAt!, 'resumed once O ended');
    assert.ok(watch.seen.most <= 1, `at most 1 live agent of a, saw ${watch.seen.most}`);
  });

  it("the demo agent's rate-limit session lives in the worktree's git folder and leaves nothing behind", async () => {
    const manager = fx.manager();
    /** Where the demo agent kept it before: the temp folder, keyed by the worktree's path. */
    const inTemp = (cwd: string) =>
      path.join(
        os.tmpdir(),
        'parallel-agents-demo',
        `${createHash('sha1').update(cwd).digest('hex').slice(0, 16)}.session`,
      );
    // Both dispatched before either pauses: a pause of demo would queue the other.
    const prompt = 'ratelimit: resets in 2s\ncreate done.txt: done';
    const started = [
      await dispatch(manager, 'demo', prompt, 'Resumed'),
      await dispatch(manager, 'demo', prompt, 'Discarded'),
    ];
    const [resumed, discarded] = await Promise.all(started.map((r) => fx.finished(manager, r.id)));
    for (const paused of [resumed, discarded]) {
      assert.equal(paused.status, 'paused');
      const gitDir = path.resolve(paused.cwd, git(paused.cwd, 'rev-parse', '--git-dir'));
      assert.equal(sessionFile(paused.cwd), path.join(gitDir, 'parallel-agents-demo.session'));
      assert.ok(fs.existsSync(sessionFile(paused.cwd)), 'kept for the resume');
      assert.ok(!fs.existsSync(inTemp(paused.cwd)), 'nothing in the temp folder');
      assert.deepEqual(paused.changedFiles ?? [], [], 'nor in the worktree');
    }
    await manager.stop(discarded.id);
    await new AgentLanding(manager, fx.git, quiet).discard(discarded.id);
    assert.ok(!fs.existsSync(discarded.cwd), 'its worktree is removed');
    assert.ok(!fs.existsSync(sessionFile(discarded.cwd)), 'and its session with it');
    const done = await ended(manager, resumed.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'done.txt'), 'utf8'), 'done');
    assert.ok(!fs.existsSync(sessionFile(done.cwd)), 'the resume took it');
  });
});
