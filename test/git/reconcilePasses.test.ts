// Reconcile Agents with real git: what a pass repeated over the same state leaves alone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { eachReconcile, type ReconcileFixture } from './reconcileFixture';

describe('Reconcile Agents with real git: a pass over what an earlier pass already found changes nothing', function () {
  this.timeout(90000);
  let f: ReconcileFixture;
  eachReconcile((fixture) => (f = fixture));

  it('marks a missing agent once: a second pass while its folder is still gone neither announces nor changes it', async () => {
    const agent = await f.dispatched('Gone');
    fs.rmSync(agent.worktreePath!, { recursive: true, force: true });
    const changes: string[] = [];
    const sub = f.manager.onDidChangeAgent((e) => changes.push(`${e.kind} ${e.id}`));
    assert.deepEqual((await f.reconciler.run()).missing, [{ id: agent.id, restoreFrom: 'branch' }]);
    assert.deepEqual(changes, [`updated ${agent.id}`], 'the first pass marks it missing');
    const marked = f.manager.get(agent.id);
    assert.equal(marked.worktreeMissing, true);
    await f.manager.refreshChanges(agent.id);
    assert.deepEqual(changes, [`updated ${agent.id}`], 'its changes are no longer followed: a refresh does nothing');
    assert.deepEqual(f.managerLogged, [], 'no refresh tried on the folder that is gone');
    assert.equal(f.manager.get(agent.id), marked);

    changes.length = 0;
    assert.deepEqual((await f.reconciler.run()).missing, [{ id: agent.id, restoreFrom: 'branch' }]);
    assert.deepEqual(changes, [], 'nothing announced: the record is already marked');
    assert.equal(f.manager.get(agent.id), marked, 'the very same record, not a rewritten copy');
    sub.dispose();
  });

  it('a disposed Reconciler announces no more passes', async () => {
    f.worktreeOrphan('late');
    let announced = 0;
    f.reconciler.onDidChange(() => announced++);
    await f.reconciler.run();
    assert.equal(announced, 1);
    f.reconciler.dispose();
    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => o.branch),
      ['agents/late'],
    );
    assert.equal(announced, 1, 'no listener is called after dispose');
  });
});
