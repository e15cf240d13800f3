// parallelAgents.maxConcurrentAgents: dispatches beyond the cap wait as `queued` and start in order,
// at the commit they were dispatched from. Real git, real demo-agent processes under the supervisor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager, AgentManagerDeps } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { windowManager } from './twoWindows';

describe('the dispatch queue (maxConcurrentAgents) with real git and real agents', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  let cap: number;

  beforeEach(() => {
    fx = new ManagerFixture();
    cap = 1;
  });

  afterEach(() => fx.dispose());

  const makeManager = (overrides: Partial<AgentManagerDeps> = {}) =>
    fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), maxConcurrentAgents: cap }),
      ...overrides,
    });
  const dispatch = (manager: AgentManager, prompt: string, title: string) =>
    manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title });
  const worktrees = () => git(fx.repo, 'worktree', 'list', '--porcelain');
  const branches = () => git(fx.repo, 'branch', '--list', 'agents/*');
  const status = (manager: AgentManager, id: string) => manager.get(id).status;
  const isLive = (r: AgentRecord) => ['preparing', 'running', 'waiting-for-input'].includes(r.status);

  it('cap 1, three dispatches: one runs, two wait in order; each starts at its recorded base', async () => {
    const manager = makeManager();
    const base = git(fx.repo, 'rev-parse', 'HEAD');
    const first = await dispatch(manager, 'sleep 30', 'First');
    const second = await dispatch(manager, 'create second.txt: 2', 'Second');
    // HEAD moves while the second waits: it must still start at the commit it was dispatched from.
    fs.writeFileSync(path.join(fx.repo, 'moved.txt'), 'moved\n');
    git(fx.repo, 'add', '.');
    git(fx.repo, 'commit', '-q', '-m', 'moved');
    const third = await dispatch(manager, 'create third.txt: 3', 'Third');
    assert.equal(first.status, 'running');
    assert.deepEqual([second.status, third.status], ['queued', 'queued']);
    assert.deepEqual([second.baseSha, third.baseSha], [base, git(fx.repo, 'rev-parse', 'HEAD')]);
    assert.deepEqual([second.queuedAtCap, third.queuedAtCap], [1, 1]);
    assert.deepEqual([manager.queuePosition(second.id), manager.queuePosition(third.id)], [1, 2]);
    assert.equal(manager.queuePosition(first.id), undefined);
    // Nothing of a queued agent exists yet: no branch, no worktree, no folder.
    assert.equal(second.branch, undefined);
    assert.equal(second.worktreePath, undefined);
    assert.equal(second.worktreePresent, false, 'nothing refreshes or reviews the folder it names');
    assert.doesNotMatch(branches(), /second|third/);
    assert.doesNotMatch(worktrees(), /second|third/);

    await manager.stop(first.id);
    const started = await waitFor('the second to start', () => (status(manager, second.id) !== 'queued' ? 1 : 0));
    assert.ok(started);
    assert.equal(status(manager, third.id), 'queued', 'the cap still holds the third back');
    assert.equal(manager.queuePosition(third.id), 1);
    const secondDone = await manager.whenEnded(second.id);
    assert.equal(secondDone.status, 'succeeded', secondDone.error);
    assert.equal(secondDone.branch, 'agents/second');
    assert.equal(secondDone.worktreePresent, undefined);
    assert.equal(git(secondDone.cwd, 'rev-parse', 'HEAD'), base, 'started at its recorded base, not at the moved HEAD');
    assert.ok(!fs.existsSync(path.join(secondDone.cwd, 'moved.txt')));
    assert.ok(secondDone.startedAt! >= secondDone.createdAt);
    const thirdDone = await manager.whenEnded(third.id);
    assert.equal(thirdDone.status, 'succeeded', thirdDone.error);
    assert.ok(fs.existsSync(path.join(thirdDone.cwd, 'moved.txt')), 'the third was dispatched after the commit');
    assert.ok(thirdDone.startedAt! >= secondDone.endedAt!, 'the third started only once the second ended');
  });

  it('Stop cancels a queued agent (never starts, no branch, no worktree); forget, discard leave nothing', async () => {
    const manager = makeManager();
    const landing = new AgentLanding(manager, fx.git, { info() {}, warn() {}, error() {} });
    const first = await dispatch(manager, 'sleep 4', 'Runner');
    const cancelled = await dispatch(manager, 'create nope.txt: no', 'Cancelled');
    const forgotten = await dispatch(manager, 'create gone.txt: no', 'Forgotten');
    const discarded = await dispatch(manager, 'create trash.txt: no', 'Discarded');
    const last = await dispatch(manager, 'create last.txt: yes', 'Last');
    assert.ok(manager.isRunning(cancelled.id), 'a queued agent counts as running: Stop applies to it');
    await manager.stop(cancelled.id);
    assert.equal(status(manager, cancelled.id), 'stopped');
    assert.equal(manager.get(cancelled.id).startedAt, undefined);
    manager.forget(forgotten.id);
    assert.throws(() => manager.get(forgotten.id), /noSuchAgent/);
    await landing.discard(discarded.id);
    assert.equal(status(manager, discarded.id), 'discarded');
    const done = await manager.whenEnded(last.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal((await manager.whenEnded(first.id)).status, 'succeeded');
    // The runner ended and the last queued one ran: the cancelled ones stayed as they were.
    assert.equal(status(manager, cancelled.id), 'stopped');
    assert.equal(manager.get(cancelled.id).startedAt, undefined);
    assert.equal(manager.list().length, 4);
    assert.doesNotMatch(branches(), /cancelled|forgotten|discarded/);
    assert.doesNotMatch(worktrees(), /cancelled|forgotten|discarded/);
    assert.deepEqual(
      fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).sort(),
      ['last', 'runner'],
      'no folder was made for the cancelled, forgotten or discarded agents',
    );
    await manager.flush();
    assert.deepEqual(fx.store.records.map((r) => r.id).sort(), [first.id, cancelled.id, discarded.id, last.id].sort());
  });

  it('a reload (new AgentManager, same records) keeps the queue; it starts once the adopted run ends', async () => {
    const before = makeManager();
    const running = await dispatch(before, 'sleep 2\ncreate a.txt: a', 'Adopted');
    const waiting = await dispatch(before, 'create b.txt: b', 'Waiting');
    assert.equal(waiting.status, 'queued');
    await before.flush();
    before.dispose();

    const after = makeManager();
    assert.equal(status(after, waiting.id), 'queued', 'restored as queued, not interrupted');
    after.resume();
    assert.ok(after.isRunning(running.id), 'the running agent is adopted');
    assert.equal(status(after, waiting.id), 'queued', 'the cap still holds while the adopted run lives');
    const done = await after.whenEnded(waiting.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(after.get(running.id).status, 'succeeded');
    assert.ok(done.startedAt! >= after.get(running.id).endedAt!);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'b.txt'), 'utf8').trim(), 'b');
  });

  it('raising the cap starts queued agents at once; cap 0 is no limit', async () => {
    const manager = makeManager();
    const a = await dispatch(manager, 'sleep 30', 'A');
    const b = await dispatch(manager, 'sleep 30', 'B');
    assert.equal(b.status, 'queued');
    cap = 2;
    manager.continueQueue();
    await waitFor('B to start', () => status(manager, b.id) === 'running');
    assert.equal(status(manager, a.id), 'running');
    cap = 0;
    const more = await Promise.all(['C', 'D', 'E'].map((t) => dispatch(manager, 'sleep 30', t)));
    assert.deepEqual(
      more.map((r) => r.status),
      ['running', 'running', 'running'],
    );
    assert.equal(manager.list().filter(isLive).length, 5);
  });

  it('simultaneous dispatches never exceed the cap', async () => {
    cap = 2;
    const manager = makeManager();
    const records = await Promise.all(['One', 'Two', 'Three', 'Four'].map((t) => dispatch(manager, 'sleep 30', t)));
    assert.deepEqual(records.map((r) => r.status).sort(), ['queued', 'queued', 'running', 'running']);
    // Oldest first, ties by id: the queue's own order (queueOrder.ts), which every window agrees on.
    const queued = records
      .filter((r) => r.status === 'queued')
      .sort((x, y) => x.createdAt - y.createdAt || (x.id < y.id ? -1 : 1));
    assert.deepEqual(
      queued.map((r) => manager.queuePosition(r.id)),
      [1, 2],
    );
    assert.equal(fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).length, 2, 'two worktrees, not four');
  });
});

describe('the dispatch queue shared by two windows on one repository (registry, real agents)', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  const stores: { dispose(): void }[] = [];

  beforeEach(() => {
    fx = new ManagerFixture();
  });

  afterEach(async () => {
    stores.splice(0).forEach((s) => s.dispose());
    await fx.dispose();
  });

  /** A window: its own store, runner and manager on the repository's registry; `lines` gets its log. */
  const window = (name: string, lines: string[]): AgentManager => {
    const log = (line: string) => void lines.push(line);
    return windowManager(fx, name, stores, {
      settings: { maxConcurrentAgents: 1 },
      logger: { info: log, warn: log, error: log },
    });
  };

  it('both windows see the queue; when the live agent ends, exactly one window starts the queued one', async () => {
    const linesA: string[] = [];
    const linesB: string[] = [];
    const a = window('a', linesA);
    const b = window('b', linesB);
    const running = await a.dispatch({ prompt: 'sleep 2', profile: 'demo', folder: fx.repo, title: 'Live' });
    const queued = await a.dispatch({ prompt: 'create q.txt: q', profile: 'demo', folder: fx.repo, title: 'Queued' });
    assert.equal(queued.status, 'queued');
    // B counts A's agents: its own dispatch waits behind A's queued one.
    await waitFor('B to see both', () => b.list().length === 2 && b.isRunning(running.id));
    const later = await b.dispatch({ prompt: 'create l.txt: l', profile: 'demo', folder: fx.repo, title: 'Later' });
    assert.equal(later.status, 'queued');
    assert.deepEqual([b.queuePosition(queued.id), b.queuePosition(later.id)], [1, 2]);

    const done = await waitFor('the queued agent to succeed in both windows', () =>
      [a, b].every((w) => w.list().find((r) => r.id === queued.id)?.status === 'succeeded'),
    );
    assert.ok(done);
    const starts = (id: string) =>
      [...linesA, ...linesB].filter((l) => l.includes(`[AgentQueue] starting ${id}`)).length;
    assert.equal(starts(queued.id), 1, 'one window started it');
    await waitFor('the later agent to succeed', () => a.list().find((r) => r.id === later.id)?.status === 'succeeded');
    assert.equal(starts(later.id), 1, 'one window started the later one');
    assert.deepEqual(fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).sort(), ['later', 'live', 'queued']);
  });
});
