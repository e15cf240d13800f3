// A plan run outlives its window: the window closes while a task's demo agent runs under its
// supervisor; the next window restores the run from the saved state, follows that agent to its end,
// merges it and starts the dependent task. Real git, real demo-agent processes; only the window
// is played by disposing one AgentManager + PlanService and building another on the same stores.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { PlanService } from '../../src/core/plans/planService';
import type { Plan, PlanRunRecord } from '../../src/core/plans/planTypes';
import type { PlanStore } from '../../src/core/ports';
import { waitFor as poll } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planRunDeps } from './planRunFixture';
import { englishMessage } from '../../src/ui/errorText';

const waitFor = <T>(what: string, probe: () => T | undefined | false | null, timeoutMs = 30000) =>
  poll(what, probe, { timeoutMs, everyMs: 50 });

class MemoryPlanStore implements PlanStore {
  records: readonly PlanRunRecord[] = [];
  load() {
    return this.records;
  }
  async save(records: readonly PlanRunRecord[]) {
    this.records = JSON.parse(JSON.stringify(records));
  }
}

describe('plan runs across a window reload (real git, real demo agents)', function () {
  this.timeout(60000);
  let fixture: ManagerFixture;
  let store: MemoryPlanStore;
  const services: PlanService[] = [];

  const window = (): { manager: AgentManager; plans: PlanService } => {
    const manager = fixture.manager();
    const plans = new PlanService(planRunDeps(fixture, manager, 2), store, () => `p${services.length}`);
    services.push(plans);
    return { manager, plans };
  };

  /** The window closes as VS Code closes it: the manager first (supervised agents go on), then the plans. */
  const close = async (w: { manager: AgentManager; plans: PlanService }) => {
    await w.manager.flush();
    await w.plans.flush();
    w.manager.dispose();
    w.plans.dispose();
  };

  const plan: Plan = {
    title: 'Survives reloads',
    tasks: [
      { id: 'slow', title: 'Slow', prompt: 'print started\nsleep 3\ncreate slow.txt: slow work' },
      // `replace X => X` fails unless slow.txt is in the worktree: the dependent starts from the merged work.
      {
        id: 'after',
        title: 'After',
        prompt: 'replace slow.txt: slow work => slow work\ncreate after.txt: after',
        dependsOn: ['slow'],
      },
      { id: 'quick', title: 'Quick', prompt: 'create quick.txt: quick' },
    ],
  };

  beforeEach(() => {
    fixture = new ManagerFixture();
    store = new MemoryPlanStore();
  });

  afterEach(async () => {
    services.splice(0).forEach((s) => s.dispose());
    await fixture.dispose();
  });

  it('goes on in the next window: the running task is adopted, merged, and its dependent starts from it', async () => {
    const first = window();
    const run = await first.plans.start(plan, fixture.repo);
    const slowAgent = await waitFor(
      'the slow task to run',
      () => run.agentOf('slow') && first.manager.get(run.agentOf('slow')!).status === 'running' && run.agentOf('slow'),
    );
    await waitFor('the quick task to be merged', () => run.scheduler.states().get('quick') === 'done');
    const startedAt = run.scheduler.timings().get('slow')?.startedAt;
    await close(first);
    assert.equal(store.records.length, 1);
    assert.equal(store.records[0].scheduler.tasks.slow.state, 'running');

    const second = window();
    const restored = second.plans.get(run.id);
    assert.equal(restored.integrationBranch, run.integrationBranch);
    assert.deepEqual(Object.fromEntries(restored.scheduler.states()), {
      slow: 'running',
      quick: 'done',
      after: 'waiting',
    });
    assert.equal(restored.agentOf('slow'), slowAgent, 'the task keeps its agent');
    assert.ok(second.manager.isRunning(slowAgent), 'the agent was adopted, not interrupted');
    second.manager.resume();
    second.plans.resume();
    await waitFor('the plan to finish', () => restored.scheduler.finished, 45000);

    assert.equal(restored.scheduler.timings().get('slow')?.startedAt, startedAt, 'timings carry over');
    const files = git(fixture.repo, 'ls-tree', '-r', '--name-only', run.integrationBranch).split('\n');
    for (const file of ['slow.txt', 'after.txt', 'quick.txt']) {
      assert.ok(files.includes(file), `${file} is on the integration branch`);
    }
    const after = second.manager.get(restored.agentOf('after')!);
    assert.equal(after.status, 'merged');
    assert.equal(
      fs.readFileSync(path.join(after.worktreePath!, 'slow.txt'), 'utf8'),
      'slow work',
      "the dependent saw the adopted task's work",
    );
    assert.equal(store.records[0].scheduler.tasks.after.state, 'done', 'the new window saves its progress');
    assert.equal(second.manager.list().filter((a) => a.plan?.runId === run.id).length, 3, 'no task ran twice');
  });

  it("starts a task again when the closing window cut its agent's dispatch short; the cut agent stays, interrupted", async () => {
    const first = window();
    const run = await first.plans.start({ ...plan, tasks: plan.tasks.filter((t) => t.id === 'slow') }, fixture.repo);
    // The window closes while the task's agent is still being dispatched (its worktree being made).
    await close(first);
    const cut = await waitFor('the cut dispatch to be saved', () =>
      fixture.store.records.find((r) => r.plan?.runId === run.id),
    );
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(fixture.store.records.find((r) => r.id === cut.id)?.status, 'preparing', 'it never started');

    const second = window();
    assert.equal(second.manager.get(cut.id).status, 'interrupted');
    second.manager.resume();
    second.plans.resume();
    const restored = second.plans.get(run.id);
    await waitFor('the plan to finish', () => restored.scheduler.finished, 45000);
    const again = restored.agentOf('slow')!;
    assert.notEqual(again, cut.id, 'a new agent ran the task');
    assert.equal(second.manager.get(again).status, 'merged');
    assert.equal(second.manager.get(cut.id).status, 'interrupted', 'the cut one is kept for the user to discard');
    assert.ok(
      git(fixture.repo, 'ls-tree', '-r', '--name-only', run.integrationBranch).split('\n').includes('slow.txt'),
    );
  });

  it('Remove Plan: refused while a task runs; then the worktree goes, the state is saved, the branch stays until landed', async () => {
    const w = window();
    const run = await w.plans.start(plan, fixture.repo);
    await waitFor('the slow task to run', () => run.scheduler.states().get('slow') === 'running');
    await assert.rejects(
      w.plans.remove(run.id),
      (e) =>
        AgentError.isCode(e, 'planStillRunning') &&
        e.data.tasks.includes('slow') &&
        /is still running \(slow/.test(englishMessage(e)),
    );
    await waitFor('the plan to finish', () => run.scheduler.finished, 45000);

    const kept = await w.plans.remove(run.id);
    assert.equal(kept.branchKept, true, 'not landed: the branch stays');
    assert.equal(fs.existsSync(run.integrationPath), false);
    assert.ok(
      !git(fixture.repo, 'worktree', 'list', '--porcelain').includes(run.integrationPath),
      'no longer registered',
    );
    assert.ok(git(fixture.repo, 'rev-parse', '--verify', `refs/heads/${run.integrationBranch}`));
    assert.ok(git(fixture.repo, 'rev-parse', '--verify', `refs/parallel-agents/saved/plan-${run.id}`));
    assert.deepEqual(w.plans.list(), []);
    await w.plans.flush();
    assert.deepEqual(store.records, [], 'forgotten by the next window too');
    assert.equal(w.manager.list().filter((a) => a.plan?.runId === run.id).length, 3, 'its agents stay');

    const landedRun = await w.plans.start({ ...plan, title: 'Landed plan' }, fixture.repo);
    await waitFor('the second plan to finish', () => landedRun.scheduler.finished, 45000);
    assert.equal((await w.plans.land(landedRun.id, 'merge')).kind, 'merged');
    assert.equal((await w.plans.remove(landedRun.id)).branchKept, false);
    assert.equal(
      git(fixture.repo, 'branch', '--list', landedRun.integrationBranch),
      '',
      'landed: the branch is deleted',
    );
    assert.equal(git(fixture.repo, 'show', 'HEAD:after.txt'), 'after');
  });
});
