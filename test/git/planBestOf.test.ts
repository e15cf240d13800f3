// A plan's Best of N task and the check after each merge into its integration branch, with real
// git, real demo agents and a real check process: the candidates run, the task waits for a pick
// while its dependent waits, the pick is merged and the others discarded with their work saved;
// a check that fails after a task's merge is sent to that task's agent as a follow-up.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { taskCandidates } from '../../src/core/plans/planBestOf';
import { PlanRun } from '../../src/core/plans/planRun';
import type { Plan } from '../../src/core/plans/planTypes';
import type { ManagerSettings } from '../../src/core/ports';
import { englishStored } from '../../src/ui/errorText';
import { statusCheck } from '../fixtures/statusCheck';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planRunDeps } from './planRunFixture';

describe('plan runs: Best of N tasks and the check after each merge (real git, demo agents)', function () {
  this.timeout(90000);
  let fx: ManagerFixture;

  beforeEach(() => {
    fx = new ManagerFixture();
  });
  afterEach(() => fx.dispose());

  const managerWith = (extra: Partial<ManagerSettings> = {}): AgentManager =>
    fx.manager({ settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), ...extra }) });

  async function started(manager: AgentManager, plan: Plan): Promise<PlanRun> {
    const landing = new AgentLanding(manager, fx.git, { info() {}, warn() {}, error() {} });
    const deps = { ...planRunDeps(fx, manager, 3), discard: (id: string) => landing.discard(id) };
    const run = await PlanRun.create(deps, 'run1', plan, fx.repo);
    run.scheduler.start();
    return run;
  }

  const stateOf = (run: PlanRun, id: string) => run.scheduler.states().get(id);

  it('bestOf 2: the dependent starts only after the pick; the pick is merged, the other discarded and saved', async () => {
    const manager = managerWith();
    const run = await started(manager, {
      title: 'Pick one',
      tasks: [
        { id: 'pick', title: 'Choose', prompt: 'create choice.txt: chosen', bestOf: 2 },
        { id: 'after', title: 'After', prompt: 'append choice.txt: \\nand more', dependsOn: ['pick'] },
      ],
    });
    await waitFor('the task to wait for a pick', () => stateOf(run, 'pick') === 'picking', { timeoutMs: 60000 });
    const candidates = taskCandidates(manager.list(), run.id, 'pick');
    assert.deepEqual(
      candidates.map((c) => [c.title, c.status]),
      [
        ['Choose (1/2)', 'succeeded'],
        ['Choose (2/2)', 'succeeded'],
      ],
    );
    assert.equal(new Set(candidates.map((c) => c.baseSha)).size, 1, 'both from the same base');
    await run.scheduler.whenIdle();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(stateOf(run, 'after'), 'waiting');
    assert.equal(englishStored(run.scheduler.reason('after') ?? ''), 'waiting for pick');
    assert.ok(!manager.list().some((r) => r.plan?.taskId === 'after'), 'no agent for the dependent before the pick');
    assert.equal(git(run.integrationPath, 'ls-files', 'choice.txt'), '', 'nothing merged before the pick');

    const [other, picked] = candidates;
    assert.throws(
      () => run.pickCandidate('after', picked.id),
      (e: Error) => /notTaskCandidate/.test(e.message),
    );
    const pickedAt = Date.now();
    run.pickCandidate('pick', picked.id);
    assert.equal(stateOf(run, 'pick'), 'integrating');
    assert.equal(run.agentOf('pick'), picked.id);
    assert.deepEqual(run.toRecord().picks, { pick: picked.id }, 'the pick is saved with the run');
    await waitFor('the plan to finish', () => run.scheduler.finished, { timeoutMs: 60000 });

    assert.equal(manager.get(picked.id).status, 'merged');
    const discarded = manager.get(other.id);
    assert.equal(discarded.status, 'discarded');
    assert.equal(git(fx.repo, 'show', `${discarded.savedRef}:choice.txt`), 'chosen', 'its work is saved');
    assert.equal(git(fx.repo, 'branch', '--list', other.branch!), '', "the other's branch is gone");
    git(fx.repo, 'merge-base', '--is-ancestor', picked.branch!, run.integrationBranch);
    const after = manager.list().find((r) => r.plan?.taskId === 'after')!;
    assert.ok(after.createdAt >= pickedAt, 'the dependent was made after the pick');
    assert.equal(git(run.integrationPath, 'show', 'HEAD:choice.txt'), 'chosen\nand more');
  });

  it('bestOf 2 whose candidates all fail: the task fails and its dependent is blocked, nothing to pick', async () => {
    const manager = managerWith();
    const run = await started(manager, {
      title: 'All fail',
      tasks: [
        { id: 'pick', title: 'Choose', prompt: 'create x.txt: x\nexit 3', bestOf: 2 },
        { id: 'after', title: 'After', prompt: 'create y.txt: y', dependsOn: ['pick'] },
      ],
    });
    await waitFor('the task to fail', () => stateOf(run, 'pick') === 'failed', { timeoutMs: 60000 });
    assert.equal(stateOf(run, 'after'), 'blocked');
    assert.deepEqual(
      taskCandidates(manager.list(), run.id, 'pick').map((r) => r.status),
      ['failed', 'failed'],
    );
  });

  it('Stop Plan stops every candidate of a running Best of N task; the task is stopped', async () => {
    const manager = managerWith();
    const run = await started(manager, {
      title: 'Slow',
      tasks: [{ id: 'slow', title: 'Slow', prompt: 'sleep 30\ncreate s.txt: s', bestOf: 2 }],
    });
    await waitFor('both candidates to run', () => {
      const candidates = taskCandidates(manager.list(), run.id, 'slow');
      return candidates.length === 2 && candidates.every((c) => c.status === 'running');
    });
    const before = Date.now();
    await run.scheduler.stop();
    assert.ok(Date.now() - before < 20000, 'stopped, not waited for');
    assert.equal(stateOf(run, 'slow'), 'stopped');
    assert.deepEqual(
      taskCandidates(manager.list(), run.id, 'slow').map((r) => r.status),
      ['stopped', 'stopped'],
    );
  });

  it("a check that fails after a task's merge goes to that task's agent as a follow-up; its fix is merged", async () => {
    const manager = managerWith({ checkCommand: statusCheck });
    const run = await started(manager, {
      title: 'Checked',
      tasks: [
        { id: 'fine', title: 'Fine', prompt: 'create fine.txt: fine\ncreate status.txt: ok' },
        { id: 'breaks', title: 'Breaks', prompt: 'create status.txt: broken', dependsOn: ['fine'] },
        { id: 'next', title: 'Next', prompt: 'create next.txt: next', dependsOn: ['breaks'] },
      ],
    });
    await waitFor('the plan to finish', () => run.scheduler.finished, { timeoutMs: 80000 });
    const agentOf = (id: string) => manager.get(run.agentOf(id)!);
    assert.equal(agentOf('fine').followUps, undefined, 'the task whose merge passed the check gets nothing');
    assert.equal(agentOf('next').followUps, undefined);
    const followUps = agentOf('breaks').followUps ?? [];
    assert.equal(followUps.length, 1);
    assert.match(followUps[0], /The check command `.*` failed with exit code 1 after your work \(task breaks/);
    assert.ok(followUps[0].includes(run.integrationBranch), 'it names the integration branch');
    assert.match(followUps[0], /status\.txt says "broken", expected ok\ncreate status\.txt: ok/);
    assert.equal(git(run.integrationPath, 'show', 'HEAD:status.txt'), 'ok', 'the fix is merged');
    const next = agentOf('next');
    assert.ok(next.createdAt >= agentOf('breaks').endedAt!, 'the dependent waited for the fix');
  });

  it('a check still failing after two follow-ups fails the task with the command and its exit', async () => {
    const red = [process.execPath, '-e', "console.log('always red'); process.exit(3)"];
    const manager = managerWith({ checkCommand: red });
    const run = await started(manager, {
      title: 'Red',
      tasks: [
        { id: 'a', title: 'A', prompt: 'create a.txt: a' },
        { id: 'b', title: 'B', prompt: 'create b.txt: b', dependsOn: ['a'] },
      ],
    });
    await waitFor('the task to fail', () => stateOf(run, 'a') === 'failed', { timeoutMs: 80000 });
    assert.equal(stateOf(run, 'b'), 'blocked');
    const agent = manager.get(run.agentOf('a')!);
    assert.equal(agent.followUps?.length, 2);
    assert.match(agent.followUps![0], /failed with exit code 3[\s\S]*always red/);
    assert.match(
      englishStored(run.scheduler.reason('a') ?? ''),
      /^the check .* failed \(exit code 3\) after task "a" was merged into the integration branch, and still failed after 2 follow-ups/,
    );
  });
  it('a task whose agent pauses on its quota waits for the resume: it succeeds and the dependent runs after it', async () => {
    const manager = managerWith();
    const seen: string[] = [];
    manager.onDidChangeAgent((e) => {
      const r = manager.list().find((a) => a.id === e.id);
      if (r?.plan?.taskId === 'limited') {
        seen.push(r.status);
      }
    });
    const run = await started(manager, {
      title: 'Through a limit',
      tasks: [
        {
          id: 'limited',
          title: 'Limited',
          prompt: 'create part1.txt: first\nratelimit: resets in 1s\ncreate part2.txt: second',
        },
        { id: 'after', title: 'After', prompt: 'create after.txt: after', dependsOn: ['limited'] },
      ],
    });
    await waitFor('the plan to finish', () => run.scheduler.finished, { timeoutMs: 80000 });
    assert.ok(seen.includes('paused'), `the agent paused on the limit (${seen.join(', ')})`);
    assert.equal(stateOf(run, 'limited'), 'done');
    assert.equal(stateOf(run, 'after'), 'done');
    assert.equal(git(run.integrationPath, 'show', 'HEAD:part2.txt'), 'second', 'the resumed run finished the task');
    assert.equal(git(run.integrationPath, 'show', 'HEAD:after.txt'), 'after');
  });
});
