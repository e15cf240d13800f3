import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { eachReconcile, git, type ReconcileFixture, snapshot } from './reconcileFixture';
import { englishMessage } from '../../src/ui/errorText';

describe('Reconcile Agents with real git: Forget and Restore Missing keep what is newest', function () {
  this.timeout(90000);
  let f: ReconcileFixture;
  eachReconcile((fixture) => (f = fixture));

  /** The agent's folder deleted by hand, then a Reconcile run that marks it missing. */
  async function vanish(id: string) {
    fs.rmSync(f.manager.get(id).worktreePath!, { recursive: true, force: true });
    return f.reconciler.run();
  }

  const savedRefOf = (id: string) => `refs/parallel-agents/saved/${id}`;

  it('Forget keeps the commits of a branch that moved past its base under the saved ref, then deletes the branch', async () => {
    const agent = await f.dispatched('Worked');
    await f.landing.commit(agent.id, 'the work');
    const tip = f.tip(agent.branch!)!;
    assert.notEqual(tip, agent.baseSha);
    const bystander = await f.dispatched('Bystander');
    const report = await vanish(agent.id);
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'branch' }]);

    await f.reconciler.forget(agent.id);
    const saved = savedRefOf(agent.id);
    assert.equal(git(f.repo, 'rev-parse', `${saved}^`), tip);
    assert.equal(git(f.repo, 'rev-parse', `${saved}^{tree}`), git(f.repo, 'rev-parse', `${tip}^{tree}`));
    assert.equal(f.blob(saved, 'Worked.txt').toString(), 'work of Worked');
    assert.match(git(f.repo, 'log', '-1', '--format=%s', saved), /branch of "Worked" saved before forgetting it/);
    assert.equal(f.tip(agent.branch!), undefined);
    assert.deepEqual(
      f.manager.list().map((r) => r.id),
      [bystander.id],
    );
    assert.deepEqual(f.registrations(), [
      `${f.repo} refs/heads/main`,
      `${bystander.worktreePath} refs/heads/${bystander.branch}`,
    ]);
    assert.ok(f.tip(bystander.branch!), "another agent's branch stays");
  });

  it('Forget makes no saved ref for a branch still at its base, and deletes the branch', async () => {
    const agent = await f.dispatched('Plain');
    assert.equal(f.tip(agent.branch!), agent.baseSha);
    await vanish(agent.id);
    const refs = f.refs();
    await f.reconciler.forget(agent.id);
    assert.equal(f.ref(savedRefOf(agent.id)), undefined);
    assert.equal(f.tip(agent.branch!), undefined);
    const left = { ...refs };
    delete left[`refs/heads/${agent.branch}`];
    assert.deepEqual(f.refs(), left, 'nothing else changes');
    assert.deepEqual(f.manager.list(), []);
  });

  it('Forget of an agent whose branch is already gone drops the record and saves nothing', async () => {
    const agent = await f.dispatched('Branchless');
    await vanish(agent.id);
    git(f.repo, 'branch', '-D', agent.branch!);
    await f.reconciler.forget(agent.id);
    assert.deepEqual(f.manager.list(), []);
    assert.equal(f.ref(savedRefOf(agent.id)), undefined);
  });

  it('Forget keeps saved work that is newer than the branch instead of writing over it', async () => {
    const agent = await f.dispatched('Layered');
    await f.landing.commit(agent.id, 'committed part');
    const tip = f.tip(agent.branch!)!;
    fs.writeFileSync(path.join(agent.worktreePath!, 'draft.txt'), 'not committed yet\n');
    await f.landing.discard(agent.id);
    const saved = f.ref(savedRefOf(agent.id))!;
    assert.equal(f.blob(saved, 'draft.txt').toString(), 'not committed yet\n');
    await f.landing.restore(agent.id);
    const report = await vanish(agent.id);
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'saved' }]);

    await f.reconciler.forget(agent.id);
    assert.equal(f.ref(savedRefOf(agent.id)), saved, 'the saved work, which holds the branch and more, is kept');
    assert.equal(git(f.repo, 'rev-parse', `${saved}^`), tip);
    assert.equal(f.tip(agent.branch!), undefined);
  });

  it('Forget and Restore Missing refuse an agent whose worktree is not missing, and change nothing', async () => {
    const agent = await f.dispatched('Present');
    await f.reconciler.run();
    const refs = f.refs();
    const files = snapshot(agent.worktreePath!);
    for (const act of [() => f.reconciler.forget(agent.id), () => f.reconciler.restoreMissing(agent.id)]) {
      await assert.rejects(act(), (e: unknown) => {
        assert.ok(AgentError.is(e, 'invalidTransition'), String(e));
        assert.equal(englishMessage(e), 'Agent "Present" is not missing its worktree.');
        return true;
      });
    }
    assert.deepEqual(f.refs(), refs);
    assert.deepEqual(snapshot(agent.worktreePath!), files);
    assert.equal(f.manager.get(agent.id).status, agent.status);
  });

  it('Restore Missing takes the saved work when it was saved on the branch tip: commits and uncommitted files come back', async () => {
    const agent = await f.dispatched('Newest');
    await f.landing.commit(agent.id, 'committed part');
    const tip = f.tip(agent.branch!)!;
    fs.writeFileSync(path.join(agent.worktreePath!, 'draft.txt'), 'not committed yet\n');
    await f.landing.discard(agent.id);
    await f.landing.restore(agent.id);
    const files = snapshot(agent.worktreePath!);
    const report = await vanish(agent.id);
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'saved' }]);
    assert.equal(f.manager.get(agent.id).worktreeMissing, true);

    await f.reconciler.restoreMissing(agent.id);
    assert.deepEqual(snapshot(agent.worktreePath!), files);
    assert.equal(git(agent.worktreePath!, 'rev-parse', 'HEAD'), tip);
    assert.equal(git(agent.worktreePath!, 'status', '--porcelain'), '?? draft.txt');
    assert.equal(f.manager.get(agent.id).worktreeMissing, false);
    await f.manager.refreshChanges(agent.id);
    assert.deepEqual(
      f.manager
        .get(agent.id)
        .changedFiles.map((c) => `${c.kind} ${c.path}`)
        .sort(),
      ['added Newest.txt', 'untracked draft.txt'],
      'its changes are followed again',
    );
    assert.deepEqual((await f.reconciler.run()).missing, []);
  });

  it('Restore Missing takes the branch when it moved past the saved work', async () => {
    const agent = await f.dispatched('Moved');
    await f.landing.discard(agent.id);
    await f.landing.restore(agent.id);
    fs.writeFileSync(path.join(agent.worktreePath!, 'later.txt'), 'committed after the restore\n');
    await f.landing.commit(agent.id, 'later work');
    const tip = f.tip(agent.branch!)!;
    const report = await vanish(agent.id);
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'branch' }]);

    await f.reconciler.restoreMissing(agent.id);
    assert.equal(git(agent.worktreePath!, 'rev-parse', 'HEAD'), tip);
    assert.equal(git(agent.worktreePath!, 'rev-parse', '--abbrev-ref', 'HEAD'), agent.branch);
    assert.equal(git(agent.worktreePath!, 'status', '--porcelain'), '');
    assert.equal(fs.readFileSync(path.join(agent.worktreePath!, 'later.txt'), 'utf8'), 'committed after the restore\n');
    assert.equal(fs.readFileSync(path.join(agent.worktreePath!, 'Moved.txt'), 'utf8'), 'work of Moved');
    assert.equal(f.manager.get(agent.id).worktreeMissing, false);
  });

  it('Restore Missing refuses when neither branch nor saved work is left, says to forget instead, and makes nothing', async () => {
    const agent = await f.dispatched('Lost');
    await vanish(agent.id);
    git(f.repo, 'branch', '-D', agent.branch!);
    const report = await f.reconciler.run();
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'none' }]);
    const refs = f.refs();
    await assert.rejects(f.reconciler.restoreMissing(agent.id), (e: unknown) => {
      assert.ok(AgentError.is(e, 'invalidTransition'), String(e));
      assert.equal(
        englishMessage(e),
        `Nothing is left of agent "Lost": its branch ${agent.branch} and saved work are gone. Forget it instead.`,
      );
      return true;
    });
    assert.equal(fs.existsSync(agent.worktreePath!), false);
    assert.deepEqual(f.refs(), refs);
    assert.equal(f.manager.get(agent.id).worktreeMissing, true);
  });

  it('Restore Missing drops a stale registration left at the folder before checking the branch out there', async () => {
    const agent = await f.dispatched('Again');
    await f.landing.commit(agent.id, 'work');
    await vanish(agent.id);
    // Something registered the same folder again and it was deleted again: a stale entry in the way.
    git(f.repo, 'worktree', 'add', '-q', '--detach', agent.worktreePath!);
    fs.rmSync(agent.worktreePath!, { recursive: true, force: true });
    assert.ok(f.registrations().includes(`${agent.worktreePath} (detached) prunable`));

    await f.reconciler.restoreMissing(agent.id);
    assert.equal(git(agent.worktreePath!, 'rev-parse', '--abbrev-ref', 'HEAD'), agent.branch);
    assert.deepEqual(f.registrations(), [
      `${f.repo} refs/heads/main`,
      `${agent.worktreePath} refs/heads/${agent.branch}`,
    ]);
  });

  it('marks an agent missing once and clears the mark when its folder is back', async () => {
    const agent = await f.dispatched('Away');
    git(f.repo, 'worktree', 'lock', agent.worktreePath!);
    const away = `${agent.worktreePath}-away`;
    fs.renameSync(agent.worktreePath!, away);
    const report = await f.reconciler.run();
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'branch' }]);
    assert.deepEqual(report.pruned, [], 'a locked registration is not pruned');
    assert.equal(f.manager.get(agent.id).worktreeMissing, true);
    assert.deepEqual(f.manager.get(agent.id).changedFiles, []);

    fs.renameSync(away, agent.worktreePath!);
    const back = await f.reconciler.run();
    assert.deepEqual(back.missing, []);
    assert.equal(f.manager.get(agent.id).worktreeMissing, false);
    await f.manager.refreshChanges(agent.id);
    assert.deepEqual(
      f.manager.get(agent.id).changedFiles.map((c) => c.path),
      ['Away.txt'],
    );
  });
});
