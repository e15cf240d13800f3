// What a plan run does for each of its tasks and for the user, with real git and real demo agents:
// the base it starts from, what it restores from a saved record, how it reads an agent's end
// (resume and outcome), the commits it makes when it integrates a task, stopping a task, Land Plan
// and Remove Plan. The runner is driven directly (run, integrate, stop, resume), without a scheduler
// loop, so each step's effect is checked on its own. Agents in other states than a run can reach
// quickly (detached, timed out...) are records registered with the manager, as Reconcile does.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord, AgentStatus } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { PlanRun, type PlanRunDeps } from '../../src/core/plans/planRun';
import type { Plan, PlanRunRecord, PlanTask } from '../../src/core/plans/planTypes';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planAgentRecord } from './planRunFixture';

describe('plan run steps (real git, real demo agents)', function () {
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

  const deps = (manager: AgentManager, worktreeRoot?: string): PlanRunDeps => ({
    manager,
    git: fixture.git,
    fs: new NodeFileSystem(),
    clock: { now: () => Date.now() },
    logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    settings: () => ({
      branchPrefix: 'agents',
      logDir: path.join(fixture.tmp, 'logs'),
      defaultProfile: 'demo',
      maxParallel: 3,
      worktreeRoot,
    }),
  });

  const task = (run: PlanRun, id: string): PlanTask => run.plan.tasks.find((t) => t.id === id)!;

  /** An agent record as a finished run leaves it, registered with the manager (no process, no folder watched). */
  const agentRecord = (id: string, status: AgentStatus, createdAt: number, plan?: AgentRecord['plan']): AgentRecord =>
    planAgentRecord(fixture, id, status, createdAt, plan);

  it("starts from the plan's base, named after its title; the plan's maxParallel wins over the setting", async () => {
    const first = git(fixture.repo, 'rev-parse', 'HEAD');
    fs.writeFileSync(path.join(fixture.repo, 'later.txt'), 'later\n');
    git(fixture.repo, 'add', '.');
    git(fixture.repo, 'commit', '-q', '-m', 'later');
    const head = git(fixture.repo, 'rev-parse', 'HEAD');
    const manager = fixture.manager();

    const based = await PlanRun.create(
      deps(manager),
      'r1',
      { title: 'Edge Cases', base: 'HEAD~1', maxParallel: 2, tasks: [{ id: 'a', title: 'A', prompt: 'print a' }] },
      fixture.repo,
    );
    assert.equal(based.baseSha, first);
    assert.equal(based.maxParallel, 2, 'the plan wins over the setting (3)');
    assert.equal(based.integrationBranch, 'agents/plan-edge-cases');
    assert.equal(git(based.integrationPath, 'rev-parse', 'HEAD'), first, 'the integration worktree is at the base');
    assert.equal(git(based.integrationPath, 'branch', '--show-current'), based.integrationBranch);
    assert.deepEqual(logs, [
      `[PlanRun] r1: integration branch agents/plan-edge-cases at ${first.slice(0, 12)} in ${based.integrationPath}`,
    ]);

    const atHead = await PlanRun.create(
      deps(manager),
      'r2',
      { title: 'Edge Cases', tasks: [{ id: 'a', title: 'A', prompt: 'print a' }] },
      fixture.repo,
    );
    assert.equal(atHead.baseSha, head, 'no base: HEAD');
    assert.equal(atHead.maxParallel, 3, 'no maxParallel in the plan: the setting');
    assert.notEqual(atHead.integrationBranch, based.integrationBranch);
    assert.notEqual(atHead.integrationPath, based.integrationPath);
    assert.equal(git(atHead.integrationPath, 'rev-parse', 'HEAD'), head);
  });

  it('a create that fails leaves no branch behind and its name free for the next one', async () => {
    const manager = fixture.manager();
    const root = path.join(fixture.tmp, 'trees');
    fs.writeFileSync(root, 'a file where the worktrees should go');
    const plan: Plan = { title: 'Retry', tasks: [{ id: 'a', title: 'A', prompt: 'print a' }] };
    await assert.rejects(PlanRun.create(deps(manager, root), 'r1', plan, fixture.repo));
    assert.equal(git(fixture.repo, 'branch', '--list', 'agents/plan-retry*'), '');
    fs.rmSync(root);
    const run = await PlanRun.create(deps(manager, root), 'r2', plan, fixture.repo);
    assert.equal(run.integrationBranch, 'agents/plan-retry');
    assert.equal(run.integrationPath, path.join(root, 'plan-retry'));
  });

  it('restores maxParallel, conflicts and the latest agent of each task from the saved record', async () => {
    const manager = fixture.manager();
    const plan: Plan = {
      title: 'Saved',
      maxParallel: 2,
      tasks: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id, title: id.toUpperCase(), prompt: `print ${id}` })),
    };
    const created = await PlanRun.create(deps(manager), 'saved', plan, fixture.repo);
    manager.register(agentRecord('older', 'failed', 10, { runId: 'saved', taskId: 'a' }));
    manager.register(agentRecord('newer', 'succeeded', 20, { runId: 'saved', taskId: 'a' }));
    manager.register(agentRecord('elsewhere', 'succeeded', 30, { runId: 'other', taskId: 'c' }));
    manager.register(agentRecord('alone', 'succeeded', 40));
    const timings = { queuedAt: 5, startedAt: 6 };
    const saved: PlanRunRecord = {
      ...created.toRecord(),
      maxParallel: 4,
      conflicts: { b: ['x.txt', 'y.txt'] },
      scheduler: {
        started: true,
        stopped: false,
        tasks: {
          a: { state: 'running', timings },
          b: { state: 'conflicted', timings },
          c: { state: 'integrating', timings },
          d: { state: 'done', timings },
          e: { state: 'failed', timings },
        },
      },
    };

    const run = PlanRun.restore(deps(manager), saved);
    assert.equal(run.maxParallel, 4, 'the saved value wins over the plan (2) and the setting (3)');
    assert.equal(run.scheduler.paused, true);
    assert.deepEqual(run.conflictsOf('b'), ['x.txt', 'y.txt']);
    assert.deepEqual(run.conflictsOf('a'), []);
    assert.equal(run.agentOf('a'), 'newer', "the task's latest agent");
    assert.equal(run.agentOf('c'), undefined, "another run's agent is not this run's");
    assert.deepEqual(run.activeTasks(), ['a', 'c'], 'running and integrating tasks keep the run');
    const again = run.toRecord();
    assert.deepEqual(again.conflicts, { b: ['x.txt', 'y.txt'] });
    assert.equal(again.maxParallel, 4);
    assert.equal(again.id, 'saved');
    assert.equal(again.integrationBranch, created.integrationBranch);
    assert.equal(again.integrationPath, created.integrationPath);
    assert.equal(again.baseSha, created.baseSha);
    assert.equal(again.repoRoot, fixture.repo);
    assert.deepEqual(again.plan, plan);
    assert.deepEqual(again.scheduler, saved.scheduler);
  });

  it('names the merged tasks whose changes a conflicting task collides with', async () => {
    const manager = fixture.manager();
    const ids = ['conflicted', 'done', 'doneElsewhere', 'doneNoAgent', 'failed', 'doneToo'];
    const plan: Plan = { title: 'Collisions', tasks: ids.map((id) => ({ id, title: id, prompt: `print ${id}` })) };
    const created = await PlanRun.create(deps(manager), 'col', plan, fixture.repo);
    const changed = (id: string, state: AgentStatus, ...files: string[]): AgentRecord => ({
      ...agentRecord(id, state, 10, { runId: 'col', taskId: id }),
      changedFiles: files.map((p) => ({ path: p, kind: 'modified' as const, binary: false })),
    });
    manager.register(changed('conflicted', 'succeeded', 'app.js', 'README.md'));
    manager.register(changed('done', 'merged', 'other.txt', 'app.js'));
    manager.register(changed('doneElsewhere', 'merged', 'other.txt'));
    manager.register(changed('failed', 'failed', 'app.js'));
    manager.register(changed('doneToo', 'merged', 'README.md'));
    const state = (s: 'done' | 'failed' | 'conflicted') => ({ state: s, timings: {} });
    const run = PlanRun.restore(deps(manager), {
      ...created.toRecord(),
      conflicts: { conflicted: ['app.js', 'README.md'], doneToo: ['README.md'] },
      scheduler: {
        started: true,
        stopped: false,
        tasks: {
          conflicted: state('conflicted'),
          done: state('done'),
          doneElsewhere: state('done'),
          doneNoAgent: state('done'),
          failed: state('failed'),
          doneToo: state('done'),
        },
      },
    });
    assert.deepEqual(run.collidingTasks('conflicted'), ['done', 'doneToo']);
    assert.deepEqual(run.collidingTasks('doneToo'), [], 'neither itself nor a task not merged');
  });

  it("follows a restored task's agent to its end, or starts the task again when that agent never ran for it", async () => {
    const manager = fixture.manager();
    const ids = [
      'ok',
      'failed',
      'late',
      'denied',
      'stopped',
      'cut',
      'gone',
      'early',
      'unprepared',
      'old',
      'same',
      'none',
    ];
    const plan: Plan = { title: 'Resumed', tasks: ids.map((id) => ({ id, title: id, prompt: `print ${id}` })) };
    const created = await PlanRun.create(deps(manager), 'res', plan, fixture.repo);
    const started = 1000;
    const at = (taskId: string) => ({ runId: 'res', taskId });
    manager.register(agentRecord('ok', 'succeeded', started + 1, at('ok')));
    manager.register(agentRecord('failed', 'failed', started + 1, at('failed')));
    manager.register(agentRecord('late', 'timed-out', started + 1, at('late')));
    manager.register(agentRecord('denied', 'needs-permission', started + 1, at('denied')));
    manager.register(agentRecord('stopped', 'stopped', started + 1, at('stopped')));
    manager.register(agentRecord('cut', 'interrupted', started + 1, at('cut')));
    manager.register(agentRecord('gone', 'detached', started + 1, at('gone')));
    // Interrupted before it ever started: the closing window cut its dispatch short.
    manager.register({ ...agentRecord('early', 'interrupted', started + 1, at('early')), startedAt: undefined });
    // A run whose preparation failed never started, but it did end: its end is followed.
    manager.register({ ...agentRecord('unprepared', 'failed', started + 1, at('unprepared')), startedAt: undefined });
    manager.register(agentRecord('old', 'succeeded', started - 1, at('old')));
    manager.register(agentRecord('same', 'succeeded', started, at('same')));
    const running = { state: 'running' as const, timings: { queuedAt: started, startedAt: started } };
    const run = PlanRun.restore(deps(manager), {
      ...created.toRecord(),
      scheduler: { started: true, stopped: false, tasks: Object.fromEntries(ids.map((id) => [id, running])) },
    });

    const outcomes: Record<string, string> = {};
    for (const id of ids) {
      outcomes[id] = await run.resume(task(run, id));
    }
    assert.deepEqual(outcomes, {
      ok: 'succeeded',
      failed: 'failed',
      late: 'failed',
      denied: 'failed',
      stopped: 'stopped',
      cut: 'stopped',
      gone: 'stopped',
      early: 'notStarted',
      unprepared: 'failed',
      old: 'notStarted',
      same: 'succeeded',
      none: 'notStarted',
    });
  });

  const steps: Plan = {
    title: 'Steps',
    tasks: [
      { id: 'one', title: 'One', prompt: 'create one.txt: one' },
      { id: 'next', title: 'Next', prompt: 'create next.txt: next', dependsOn: ['one'] },
      { id: 'slow', title: 'Slow', prompt: 'sleep 20' },
      { id: 'clash', title: 'Clash', prompt: 'create one.txt: other\ncreate two.txt: other' },
      { id: 'unknown', title: 'Unknown', prompt: 'print x', profile: 'missing' },
      { id: 'idle', title: 'Idle', prompt: 'print idle' },
    ],
  };

  it('runs a task from the base, commits and merges its work; the next one starts from the integration branch', async () => {
    const manager = fixture.manager();
    const run = await PlanRun.create(deps(manager), 'steps', steps, fixture.repo);

    assert.equal(await run.run(task(run, 'one'), 'base'), 'succeeded');
    const one = manager.get(run.agentOf('one')!);
    assert.equal(one.profile, 'demo', 'the default profile');
    assert.equal(one.title, 'One');
    assert.equal(one.isolation, 'worktree');
    assert.equal(one.mode, 'headless');
    assert.equal(one.baseSha, run.baseSha);
    assert.equal(path.dirname(one.cwd), path.dirname(run.integrationPath), 'a worktree next to the integration one');
    assert.deepEqual(one.plan, { runId: 'steps', taskId: 'one' });

    assert.equal(await run.integrate(task(run, 'one')), 'merged');
    assert.equal(manager.get(one.id).status, 'merged');
    assert.equal(manager.get(one.id).mergedInto, run.integrationBranch);
    const branch = run.integrationBranch;
    assert.equal(git(fixture.repo, 'log', '-1', '--format=%B', branch), 'Merge task one: One');
    assert.equal(git(fixture.repo, 'log', '-1', '--format=%B', `${branch}^2`), 'One\n\nPlan "Steps", task one');
    assert.equal(git(fixture.repo, 'show', `${branch}:one.txt`), 'one');
    let announced = 0;
    const listening = manager.onDidChangeAgent((e) => (announced += e.id === one.id ? 1 : 0));
    assert.equal(await run.integrate(task(run, 'one')), 'merged', 'merging it again changes nothing');
    listening.dispose();
    assert.equal(manager.get(one.id).status, 'merged');
    assert.equal(announced, 0, 'its record is not written again');

    assert.equal(await run.run(task(run, 'next'), 'integration'), 'succeeded');
    const next = manager.get(run.agentOf('next')!);
    assert.equal(next.baseSha, git(fixture.repo, 'rev-parse', branch), 'it starts from the merged work');
    assert.equal(fs.readFileSync(path.join(next.cwd, 'one.txt'), 'utf8'), 'one');
  });

  it('a task from the base that conflicts names its files; resolved in its worktree, it merges', async () => {
    const manager = fixture.manager();
    const run = await PlanRun.create(deps(manager), 'steps', steps, fixture.repo);
    fs.writeFileSync(path.join(run.integrationPath, 'one.txt'), 'one');
    fs.writeFileSync(path.join(run.integrationPath, 'two.txt'), 'two');
    git(run.integrationPath, 'add', '.');
    git(run.integrationPath, 'commit', '-q', '-m', 'merged earlier');
    const branch = run.integrationBranch;

    assert.equal(await run.run(task(run, 'clash'), 'base'), 'succeeded');
    assert.equal(manager.get(run.agentOf('clash')!).baseSha, run.baseSha);
    assert.equal(await run.integrate(task(run, 'clash')), 'conflicts');
    assert.deepEqual(run.conflictsOf('clash'), ['one.txt', 'two.txt']);
    assert.ok(logs.includes('[PlanRun] steps: task clash conflicts in one.txt, two.txt'), logs.join('\n'));
    const clash = manager.get(run.agentOf('clash')!);
    assert.deepEqual(await run.resolveInWorktree('clash'), ['one.txt', 'two.txt']);
    fs.writeFileSync(path.join(clash.cwd, 'one.txt'), 'one and other');
    fs.writeFileSync(path.join(clash.cwd, 'two.txt'), 'two and other');
    assert.equal(await run.integrate(task(run, 'clash')), 'merged', 'resolved in its worktree');
    assert.deepEqual(run.conflictsOf('clash'), [], 'no conflict any more');
    assert.deepEqual(run.toRecord().conflicts, {});
    assert.equal(git(fixture.repo, 'show', `${branch}:one.txt`), 'one and other');
  });

  it("stops a task's running agent; a task without a running agent has nothing to stop", async () => {
    const manager = fixture.manager();
    const run = await PlanRun.create(deps(manager), 'steps', steps, fixture.repo);
    await assert.rejects(run.run(task(run, 'unknown'), 'base'), 'the task names its own profile');
    await assert.rejects(
      run.integrate(task(run, 'idle')),
      (e) => AgentError.isCode(e, 'taskHasNoAgent') && e.data.taskId === 'idle',
    );
    await run.stop(task(run, 'idle'));

    const slow = run.run(task(run, 'slow'), 'base');
    const slowId = await waitFor('the slow task to run', () => {
      const id = run.agentOf('slow');
      return id !== undefined && manager.get(id).status === 'running' && id;
    });
    await run.stop(task(run, 'slow'));
    assert.equal(await slow, 'stopped');
    assert.equal(manager.get(slowId).status, 'stopped');
    await run.stop(task(run, 'slow'));
  });

  it('a terminal task still runs in its own worktree: its work has to be merged', async () => {
    // Terminal agents run under a supervisor here as headless ones do: real processes, no VS Code terminal.
    const manager = fixture.manager({ terminalRunner: fixture.headlessRunner() });
    const plan: Plan = {
      title: 'Terminal',
      tasks: [{ id: 'term', title: 'Term', prompt: 'create term.txt: term', isolation: 'terminal' }],
    };
    const run = await PlanRun.create(deps(manager), 'term', plan, fixture.repo);
    assert.equal(await run.run(task(run, 'term'), 'base'), 'succeeded');
    const agent = manager.get(run.agentOf('term')!);
    assert.equal(agent.mode, 'terminal');
    assert.equal(agent.isolation, 'worktree');
    assert.notEqual(agent.cwd, fixture.repo);
    assert.equal(await run.integrate(task(run, 'term')), 'merged');
    assert.equal(git(fixture.repo, 'show', `${run.integrationBranch}:term.txt`), 'term');
  });

  it('Land Plan: the forecast names conflicts and leaves the workspace alone; a clean plan lands with its title', async () => {
    const manager = fixture.manager();
    const plan: Plan = { title: 'Landing', tasks: [{ id: 'one', title: 'One', prompt: 'create app.js: changed' }] };
    const run = await PlanRun.create(deps(manager), 'land', plan, fixture.repo);
    assert.equal(await run.run(task(run, 'one'), 'base'), 'succeeded');
    assert.equal(await run.integrate(task(run, 'one')), 'merged');

    fs.writeFileSync(path.join(fixture.repo, 'app.js'), 'mine\n');
    git(fixture.repo, 'commit', '-q', '-am', 'mine');
    const mine = git(fixture.repo, 'rev-parse', 'HEAD');
    assert.deepEqual(await run.land('merge'), { kind: 'conflicts', files: ['app.js'], target: 'main' });
    assert.equal(git(fixture.repo, 'rev-parse', 'HEAD'), mine, 'nothing landed');
    assert.equal(git(fixture.repo, 'status', '--porcelain'), '');

    git(fixture.repo, 'reset', '-q', '--hard', 'HEAD~1');
    git(fixture.repo, 'checkout', '-q', '--detach');
    await assert.rejects(
      run.land('merge'),
      (e) => AgentError.isCode(e, 'planTargetDetached') && e.data.repoRoot === fixture.repo,
    );
    git(fixture.repo, 'checkout', '-q', 'main');
    const result = await run.land('squash');
    const head = git(fixture.repo, 'rev-parse', 'HEAD');
    assert.deepEqual(result, { kind: 'merged', sha: head, target: 'main' });
    assert.equal(git(fixture.repo, 'log', '-1', '--format=%B'), `Land plan "Landing" (${run.integrationBranch})`);
    assert.equal(git(fixture.repo, 'log', '-1', '--format=%P').split(' ').length, 1, 'squashed: one parent');
    assert.equal(git(fixture.repo, 'show', 'HEAD:app.js'), 'changed');
  });

  it('Remove Plan: a worktree already gone is not saved; a detached workspace keeps the branch; a landed one drops it', async () => {
    const manager = fixture.manager();
    const plan: Plan = { title: 'Removal', tasks: [{ id: 'one', title: 'One', prompt: 'create one.txt: one' }] };
    const gone = await PlanRun.create(deps(manager), 'gone', plan, fixture.repo);
    fs.writeFileSync(path.join(gone.integrationPath, 'work.txt'), 'work');
    git(gone.integrationPath, 'add', '.');
    git(gone.integrationPath, 'commit', '-q', '-m', 'work not landed');
    fs.rmSync(gone.integrationPath, { recursive: true, force: true });
    assert.deepEqual(await gone.removeIntegration(), { branchKept: true });
    assert.equal(git(fixture.repo, 'for-each-ref', 'refs/parallel-agents/saved/'), '', 'nothing to save');
    assert.ok(!git(fixture.repo, 'worktree', 'list', '--porcelain').includes(gone.integrationPath));
    assert.ok(
      logs.includes(`[PlanRun] gone: integration worktree removed; branch ${gone.integrationBranch} kept (not landed)`),
      logs.join('\n'),
    );

    const detached = await PlanRun.create(deps(manager), 'det', plan, fixture.repo);
    fs.writeFileSync(path.join(detached.integrationPath, 'draft.txt'), 'draft');
    git(fixture.repo, 'checkout', '-q', '--detach');
    assert.deepEqual(await detached.removeIntegration(), { branchKept: true }, 'no branch to compare with');
    git(fixture.repo, 'checkout', '-q', 'main');
    assert.equal(fs.existsSync(detached.integrationPath), false);
    assert.equal(git(fixture.repo, 'branch', '--list', detached.integrationBranch), detached.integrationBranch);
    const savedRef = 'refs/parallel-agents/saved/plan-det';
    assert.equal(git(fixture.repo, 'show', `${savedRef}:draft.txt`), 'draft', 'its uncommitted work is saved');
    assert.equal(
      git(fixture.repo, 'log', '-1', '--format=%s', savedRef),
      'Parallel Agents: integration worktree of plan "Removal" saved before removing it',
    );

    const landed = await PlanRun.create(deps(manager), 'landed', plan, fixture.repo);
    assert.equal(await landed.run(task(landed, 'one'), 'base'), 'succeeded');
    assert.equal(await landed.integrate(task(landed, 'one')), 'merged');
    assert.equal((await landed.land('squash')).kind, 'merged');
    assert.deepEqual(await landed.removeIntegration(), { branchKept: false }, 'landed by content, not by ancestry');
    assert.equal(git(fixture.repo, 'branch', '--list', landed.integrationBranch), '');
    assert.ok(
      logs.includes(
        `[PlanRun] landed: integration worktree removed; branch ${landed.integrationBranch} deleted (landed)`,
      ),
      logs.join('\n'),
    );
  });
});
