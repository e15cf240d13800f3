// A plan run's Best of N tasks, step by step, with real git and real demo agents: the candidates a
// run starts (from the base or the integration branch), the one picked on its own, Pick (refused,
// then merged with the others discarded or kept), and what a run keeps of its picks when saved,
// restored or loaded from another window's record. The runner is driven directly, as in
// planRunEdges; candidates in states a run cannot reach quickly are records registered with the
// manager, as Reconcile does.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord, AgentStatus } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { taskCandidates } from '../../src/core/plans/planBestOf';
import { PlanRun, type PlanRunDeps } from '../../src/core/plans/planRun';
import type { Plan, PlanRunRecord, PlanTask } from '../../src/core/plans/planTypes';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture, quiet } from './managerFixture';
import { planAgentRecord, planRunDeps } from './planRunFixture';

describe('plan runs: Best of N tasks step by step (real git, real demo agents)', function () {
  this.timeout(60000);
  let fixture: ManagerFixture;
  let logs: string[];

  beforeEach(() => {
    fixture = new ManagerFixture();
    logs = [];
  });

  afterEach(async () => {
    await fixture.dispose();
  });

  const deps = (manager: AgentManager, discard = false): PlanRunDeps => {
    const landing = new AgentLanding(manager, fixture.git, quiet);
    return {
      ...planRunDeps(fixture, manager, 3),
      logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
      ...(discard ? { discard: (id: string) => landing.discard(id) } : {}),
    };
  };

  const task = (run: PlanRun, id: string): PlanTask => run.plan.tasks.find((t) => t.id === id)!;

  /** A candidate record as a finished Best of N run leaves it, registered with the manager. */
  const candidate = (
    id: string,
    status: AgentStatus,
    createdAt: number,
    plan: { runId: string; taskId: string },
    index = 1,
  ): AgentRecord =>
    planAgentRecord(fixture, id, status, createdAt, plan, { group: `${plan.taskId}-group`, index, of: 2 });

  /** The scheduler part of a saved record: every task in `state`, none started. */
  const schedulerIn = (
    ids: readonly string[],
    state: 'waiting' | 'running' | 'picking',
    startedAt?: number,
  ): PlanRunRecord['scheduler'] => ({
    started: false,
    stopped: false,
    tasks: Object.fromEntries(ids.map((id) => [id, { state, timings: startedAt ? { startedAt } : {} }])),
  });

  const choose: Plan = {
    title: 'Choose',
    tasks: [
      { id: 'pick', title: 'Pick', prompt: 'create choice.txt: chosen', bestOf: 2 },
      { id: 'later', title: 'Later', prompt: 'create later.txt: later', bestOf: 2 },
      { id: 'own', title: 'Own', prompt: 'print x', bestOf: 2, profile: 'missing' },
    ],
  };

  it('runs the candidates from the base or the integration branch; two that succeed wait for a pick', async () => {
    const manager = fixture.manager();
    const created = await PlanRun.create(deps(manager), 'bo', choose, fixture.repo);
    logs.splice(0);
    fs.writeFileSync(path.join(created.integrationPath, 'merged.txt'), 'merged earlier');
    git(created.integrationPath, 'add', '.');
    git(created.integrationPath, 'commit', '-q', '-m', 'merged earlier');
    const integrated = git(created.integrationPath, 'rev-parse', 'HEAD');
    manager.register(candidate('stale', 'succeeded', 1, { runId: 'bo', taskId: 'pick' }));
    // A pick saved from an earlier attempt of the task: a new attempt forgets it.
    const run = PlanRun.restore(deps(manager), { ...created.toRecord(), picks: { pick: 'stale' } });
    assert.equal(run.agentOf('pick'), 'stale');

    assert.equal(await run.run(task(run, 'pick'), 'base'), 'pick');
    const picks = taskCandidates(manager.list(), 'bo', 'pick').filter((r) => r.id !== 'stale');
    assert.deepEqual(
      picks.map((r) => [r.title, r.status, r.profile, r.baseSha, r.plan]),
      [1, 2].map((i) => [`Pick (${i}/2)`, 'succeeded', 'demo', run.baseSha, { runId: 'bo', taskId: 'pick' }]),
    );
    assert.equal('picks' in run.toRecord(), false, 'the earlier pick is gone');
    assert.equal(run.agentOf('pick'), picks[1].id, "no pick yet: the latest candidate, not the earlier attempt's pick");

    assert.equal(await run.run(task(run, 'later'), 'integration'), 'pick');
    const later = taskCandidates(manager.list(), 'bo', 'later');
    assert.deepEqual(
      later.map((r) => r.baseSha),
      [integrated, integrated],
    );
    assert.equal(fs.readFileSync(path.join(later[0].cwd, 'merged.txt'), 'utf8'), 'merged earlier');
    await assert.rejects(run.run(task(run, 'own'), 'base'), 'the task names its own profile');
    assert.deepEqual(taskCandidates(manager.list(), 'bo', 'own'), []);
    assert.deepEqual(logs, [], 'nothing picked on its own');
  });

  it('picks the one candidate that succeeded on its own; resumed, only the latest attempt counts', async () => {
    const manager = fixture.manager();
    const plan: Plan = {
      title: 'Resumed',
      tasks: ['one', 'two', 'none', 'old', 'stopped'].map((id) => ({
        id,
        title: id,
        prompt: `print ${id}`,
        bestOf: 2,
      })),
    };
    const created = await PlanRun.create(deps(manager), 'res', plan, fixture.repo);
    logs.splice(0);
    const started = 1000;
    const at = (taskId: string) => ({ runId: 'res', taskId });
    manager.register(candidate('one-1', 'succeeded', started + 1, at('one'), 1));
    manager.register(candidate('one-2', 'failed', started + 1, at('one'), 2));
    manager.register(candidate('two-1', 'succeeded', started + 1, at('two'), 1));
    manager.register(candidate('two-2', 'reviewed', started + 1, at('two'), 2));
    manager.register(candidate('old-1', 'succeeded', started - 1, at('old'), 1));
    manager.register(candidate('stopped-1', 'stopped', started, at('stopped'), 1));
    manager.register(candidate('stopped-2', 'interrupted', started, at('stopped'), 2));
    const run = PlanRun.restore(deps(manager), {
      ...created.toRecord(),
      scheduler: schedulerIn(
        plan.tasks.map((t) => t.id),
        'running',
        started,
      ),
    });
    assert.equal('picks' in run.toRecord(), false, 'nothing picked yet');

    const outcomes: Record<string, string> = {};
    for (const t of plan.tasks) {
      outcomes[t.id] = await run.resume(t);
    }
    assert.deepEqual(outcomes, {
      one: 'succeeded',
      two: 'pick',
      none: 'notStarted',
      old: 'notStarted',
      stopped: 'stopped',
    });
    assert.equal(run.agentOf('one'), 'one-1', 'the one that succeeded, not the latest candidate');
    assert.deepEqual(run.toRecord().picks, { one: 'one-1' });
    assert.deepEqual(logs, ['[PlanRun] res: task one: one candidate succeeded, picked on its own']);
  });

  it('Pick: refused for a candidate of no task or a task not waiting for one; picked, it is merged', async () => {
    const manager = fixture.manager();
    const created = await PlanRun.create(deps(manager), 'bo', choose, fixture.repo);
    logs.splice(0);
    assert.equal(await created.run(task(created, 'pick'), 'base'), 'pick');
    const [first, second] = taskCandidates(manager.list(), 'bo', 'pick');
    assert.throws(
      () => created.pickCandidate('pick', first.id),
      (e) => AgentError.isCode(e, 'taskNotPicking') && e.data.taskId === 'pick' && e.data.state === 'waiting',
    );
    assert.throws(
      () => created.pickCandidate('later', first.id),
      (e) => AgentError.isCode(e, 'notTaskCandidate'),
    );
    manager.register(candidate('ghost', 'succeeded', 1, { runId: 'bo', taskId: 'ghost' }));
    assert.throws(
      () => created.pickCandidate('ghost', 'ghost'),
      (e) => AgentError.isCode(e, 'taskNotPicking') && e.data.taskId === 'ghost' && e.data.state === 'waiting',
      'a task the plan does not have waits for nothing',
    );
    assert.equal('picks' in created.toRecord(), false, 'nothing picked');

    // The window that ran the candidates closed; the next one restores the task waiting for a pick.
    const run = PlanRun.restore(deps(manager), {
      ...created.toRecord(),
      scheduler: schedulerIn(['pick'], 'picking'),
    });
    run.pickCandidate('pick', first.id);
    assert.equal(run.agentOf('pick'), first.id, 'the pick, not the latest candidate');
    assert.deepEqual(run.toRecord().picks, { pick: first.id });
    await waitFor('the pick to be merged', () => run.scheduler.states().get('pick') === 'done');
    assert.equal(manager.get(first.id).status, 'merged');
    assert.equal(git(fixture.repo, 'show', `${run.integrationBranch}:choice.txt`), 'chosen');
    assert.equal(manager.get(second.id).status, 'succeeded', 'no Discard given: the other candidate stays');
    assert.ok(!logs.some((l) => l.includes('discarded')), logs.join('\n'));
  });

  it("merges a restored run's pick and discards the other candidates, their work saved; other tasks discard nothing", async () => {
    const manager = fixture.manager();
    const plan: Plan = {
      title: 'Discard',
      tasks: [
        { id: 'pick', title: 'Pick', prompt: 'create choice.txt: chosen', bestOf: 2 },
        { id: 'plain', title: 'Plain', prompt: 'create plain.txt: plain' },
      ],
    };
    const created = await PlanRun.create(deps(manager, true), 'dis', plan, fixture.repo);
    logs.splice(0);
    assert.equal(await created.run(task(created, 'pick'), 'base'), 'pick');
    assert.equal(await created.run(task(created, 'plain'), 'base'), 'succeeded');
    const [first, second] = taskCandidates(manager.list(), 'dis', 'pick');
    const run = PlanRun.restore(deps(manager, true), { ...created.toRecord(), picks: { pick: first.id } });
    assert.equal(run.agentOf('pick'), first.id, 'the saved pick');

    assert.equal(await run.integrate(task(run, 'plain')), 'merged');
    assert.deepEqual(logs, [], 'a task that is not Best of N has no other candidates');
    assert.equal(await run.integrate(task(run, 'pick')), 'merged');
    assert.equal(manager.get(first.id).status, 'merged');
    const other = manager.get(second.id);
    assert.equal(other.status, 'discarded');
    assert.equal(git(fixture.repo, 'show', `${other.savedRef}:choice.txt`), 'chosen', 'its work is saved');
    assert.deepEqual(logs, ['[PlanRun] dis: task pick: 1 other candidates discarded']);
    assert.equal(git(fixture.repo, 'show', `${run.integrationBranch}:choice.txt`), 'chosen');
  });

  it("load takes another window's record: its picks and conflicts replace the ones held, its scheduler the old one", async () => {
    const manager = fixture.manager();
    const plan: Plan = {
      title: 'Loaded',
      tasks: ['a', 'b'].map((id) => ({ id, title: id, prompt: `print ${id}`, bestOf: 2 })),
    };
    const created = await PlanRun.create(deps(manager), 'ld', plan, fixture.repo);
    manager.register(candidate('a-1', 'succeeded', 10, { runId: 'ld', taskId: 'a' }, 1));
    manager.register(candidate('a-2', 'succeeded', 10, { runId: 'ld', taskId: 'a' }, 2));
    const run = PlanRun.restore(deps(manager), {
      ...created.toRecord(),
      conflicts: { b: ['x.txt'] },
      picks: { a: 'a-1' },
    });
    assert.equal(run.agentOf('a'), 'a-1');
    const old = run.scheduler;
    let heard = 0;
    old.onDidChange(() => heard++);

    run.load({ ...created.toRecord(), scheduler: schedulerIn(['a', 'b'], 'picking') });
    assert.notEqual(run.scheduler, old);
    await old.stop();
    assert.equal(heard, 0, 'the old scheduler is disposed: its listeners hear nothing more');
    assert.equal(run.scheduler.states().get('a'), 'picking');
    assert.equal('picks' in run.toRecord(), false);
    assert.deepEqual(run.toRecord().conflicts, {});
    assert.deepEqual(run.conflictsOf('b'), []);
    assert.equal(run.agentOf('a'), 'a-2', 'no pick: the latest candidate');

    run.load({ ...created.toRecord(), picks: { a: 'a-1' } });
    assert.equal(run.agentOf('a'), 'a-1');
    assert.deepEqual(run.toRecord().picks, { a: 'a-1' });

    // Cleaned up elsewhere meanwhile: the agents held before are not the run's any more.
    manager.forget('a-1');
    manager.forget('a-2');
    run.load(created.toRecord());
    assert.equal(run.agentOf('a'), undefined);
  });

  it('finds the latest agent of a task made by another window after the run was restored', async () => {
    const manager = fixture.manager();
    const plan: Plan = { title: 'Followed', tasks: [{ id: 'a', title: 'A', prompt: 'print a' }] };
    const created = await PlanRun.create(deps(manager), 'fw', plan, fixture.repo);
    const run = PlanRun.restore(deps(manager), created.toRecord());
    assert.equal(run.agentOf('a'), undefined);
    for (const [id, createdAt] of [
      ['first', 10],
      ['second', 20],
      ['third', 30],
    ] as const) {
      manager.register({ ...candidate(id, 'failed', createdAt, { runId: 'fw', taskId: 'a' }), bestOf: undefined });
    }
    manager.register({ ...candidate('other', 'failed', 40, { runId: 'elsewhere', taskId: 'a' }), bestOf: undefined });
    assert.equal(run.agentOf('a'), 'third');
  });
});
