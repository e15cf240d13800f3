// A plan run's conflicts with real git and real demo agents: two tasks write the same file, the
// second one's merge into the integration branch conflicts; the run names the file, the task it
// collides with and leaves the conflict in the task's worktree to resolve. A task whose agent
// fails is failed, and Land Plan refuses a detached HEAD.
import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { PlanRun } from '../../src/core/plans/planRun';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { planRunDeps } from './planRunFixture';

describe('plan run conflicts (real git, real demo agents)', function () {
  this.timeout(60000);
  let fixture: ManagerFixture;

  beforeEach(() => {
    fixture = new ManagerFixture();
  });

  afterEach(async () => {
    await fixture.dispose();
  });

  it('names the conflicting file and the task it collides with, resolves it in the worktree, fails a failed agent', async () => {
    const manager = fixture.manager();
    const run = await PlanRun.create(
      planRunDeps(fixture, manager, 1),
      'r1',
      {
        title: 'Collide',
        tasks: [
          { id: 'first', title: 'First', prompt: 'create shared.txt: one' },
          { id: 'second', title: 'Second', prompt: 'create shared.txt: two' },
          { id: 'broken', title: 'Broken', prompt: 'exit 3' },
        ],
      },
      fixture.repo,
    );
    assert.equal(run.maxParallel, 1, 'the setting, when the plan names none');
    run.scheduler.start();
    await waitFor(
      'second to conflict and broken to fail',
      () => run.scheduler.states().get('second') === 'conflicted' && run.scheduler.states().get('broken') === 'failed',
      { timeoutMs: 45000, everyMs: 50 },
    );
    assert.equal(run.scheduler.states().get('first'), 'done');
    assert.deepEqual(run.activeTasks(), []);
    assert.deepEqual(run.conflictsOf('second'), ['shared.txt']);
    assert.deepEqual(run.conflictsOf('first'), [], 'merged cleanly');
    assert.deepEqual(run.toRecord().conflicts, { second: ['shared.txt'] });
    await manager.refreshChanges(run.agentOf('first')!);
    assert.deepEqual(run.collidingTasks('second'), ['first']);
    assert.deepEqual(run.collidingTasks('first'), [], 'no conflict of its own');
    assert.equal(git(fixture.repo, 'show', `${run.integrationBranch}:shared.txt`), 'one');

    const second = manager.get(run.agentOf('second')!);
    assert.deepEqual(await run.resolveInWorktree('second'), ['shared.txt']);
    assert.match(git(second.cwd, 'diff', '--name-only', '--diff-filter=U'), /^shared\.txt$/);
    await assert.rejects(run.resolveInWorktree('ghost'), (e) => AgentError.isCode(e, 'taskHasNoAgent'));

    git(fixture.repo, 'checkout', '-q', '--detach');
    await assert.rejects(run.land('merge'), (e) => AgentError.isCode(e, 'planTargetDetached'));
    git(fixture.repo, 'checkout', '-q', 'main');
  });
});
