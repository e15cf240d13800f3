// Reconcile Agents with real git: what each pass and repair tells the log, a folder git calls prunable
// that still holds files is never pruned, and Forget keeps a branch the user had before the agent.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { AgentError } from '../../src/core/errors';
import { eachReconcile, git, type ReconcileFixture, snapshot } from './reconcileFixture';

describe('Reconcile Agents with real git: the log of each pass and repair, and what a repair must leave', function () {
  this.timeout(90000);
  let f: ReconcileFixture;
  eachReconcile((fixture) => (f = fixture));

  /** The lines logged since the last call. */
  let seen = 0;
  function newLines(): string[] {
    const lines = f.logged.slice(seen);
    seen = f.logged.length;
    return lines;
  }

  beforeEach(() => {
    seen = 0;
  });

  it('logs what a pass found, what it adopted and pruned, and where a restore came from', async () => {
    const dir = f.worktreeOrphan('one');
    const plain = path.join(f.fx.tmp, 'plain');
    fs.mkdirSync(plain);
    f.repositories = [f.repo, plain];
    const report = await f.reconciler.run();
    assert.equal(report.errors.length, 1);
    assert.match(report.errors[0], new RegExp(`^${plain}: notARepository `));
    assert.deepEqual(newLines(), [
      `warn [Reconcile] ${report.errors[0]}`,
      'info [Reconcile] 2 repositories: 1 orphaned, 0 missing, 0 pruned',
    ]);
    f.repositories = [f.repo];

    const record = await f.reconciler.adopt({ path: dir });
    assert.deepEqual(newLines(), [`info [Reconcile] adopted agents/one (${dir}) as agent ${record.id}`]);
    await f.landing.commit(record.id, 'keep it');
    fs.rmSync(dir, { recursive: true, force: true });
    const gone = await f.reconciler.run();
    assert.deepEqual(gone.pruned, [dir]);
    assert.deepEqual(gone.missing, [{ id: record.id, restoreFrom: 'branch' }]);
    assert.deepEqual(newLines(), ['info [Reconcile] 1 repositories: 0 orphaned, 1 missing, 1 pruned']);
    await f.reconciler.restoreMissing(record.id);
    assert.deepEqual(newLines(), [`info [Reconcile] restored the worktree of ${record.id} from its branch`]);

    fs.writeFileSync(path.join(dir, 'draft.txt'), 'not committed\n');
    await f.landing.discard(record.id);
    await f.landing.restore(record.id);
    const files = snapshot(dir);
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual((await f.reconciler.run()).missing, [{ id: record.id, restoreFrom: 'saved' }]);
    newLines();
    await f.reconciler.restoreMissing(record.id);
    assert.deepEqual(newLines(), [`info [Reconcile] restored the worktree of ${record.id} from its saved work`]);
    assert.deepEqual(snapshot(dir), files);
  });

  it('logs why an orphan is no orphan any more when a record claims it by the time Discard acts', async () => {
    const a = f.worktreeOrphan('a');
    const b = f.worktreeOrphan('b');
    await f.reconciler.run();
    const adopted = await f.reconciler.adopt({ path: a });
    const claim: AgentRecord = { ...adopted, id: 'claim', title: 'Claim', branch: 'agents/b', worktreePath: b, cwd: b };
    f.manager.register(claim);
    const files = snapshot(b);
    newLines();
    await assert.rejects(f.reconciler.discardOrphan({ branch: 'agents/b' }), (e: unknown) =>
      AgentError.isCode(e, 'orphanNowHasRecord'),
    );
    const lines = newLines();
    assert.equal(lines.length, 1);
    assert.ok(lines[0].startsWith(`info [Reconcile] agents/b (${b}) is no orphan now: orphanNowHasRecord `), lines[0]);
    assert.match(lines[0], /"title":"Claim"/);
    assert.deepEqual(snapshot(b), files);
    assert.deepEqual(f.reconciler.orphans(), []);
  });

  it('never prunes a worktree git calls prunable while its folder still holds files: it warns and leaves it', async () => {
    const dir = f.worktreeOrphan('broken');
    fs.rmSync(path.join(dir, '.git'));
    const files = snapshot(dir);
    assert.match(git(f.repo, 'worktree', 'list', '--porcelain'), /prunable/);
    const report = await f.reconciler.run();
    assert.deepEqual(report.pruned, []);
    const lines = newLines();
    assert.equal(lines.length, 2, lines.join('\n'));
    assert.ok(lines[0].startsWith(`warn [Reconcile] pruning ${dir} failed: worktreeStillExists `), lines[0]);
    assert.equal(lines[1], `info [Reconcile] 1 repositories: ${report.orphans.length} orphaned, 0 missing, 0 pruned`);
    assert.deepEqual(snapshot(dir), files);
    assert.match(git(f.repo, 'worktree', 'list', '--porcelain'), new RegExp(`worktree ${dir}\n`));
    // Its branch is still checked out there: not listed as an orphaned branch (whose Adopt would aim at that folder).
    assert.deepEqual(
      report.orphans.map((o) => `${o.kind} ${o.branch}`),
      [],
    );
  });

  it('Forget of an agent started on a branch the user had keeps that branch with all its commits, and saves nothing', async () => {
    f.branchOrphan('login', 'feature/login');
    const agent = await f.dispatched('Login', { start: { branch: 'feature/login' } });
    assert.equal(agent.branchExisted, true);
    await f.landing.commit(agent.id, 'the work');
    const tip = f.tip('feature/login')!;
    assert.notEqual(tip, agent.baseSha);
    fs.rmSync(agent.worktreePath!, { recursive: true, force: true });
    assert.deepEqual((await f.reconciler.run()).missing, [{ id: agent.id, restoreFrom: 'branch' }]);

    await f.reconciler.forget(agent.id);
    assert.equal(f.tip('feature/login'), tip);
    assert.equal(f.ref(`refs/parallel-agents/saved/${agent.id}`), undefined);
    assert.deepEqual(f.manager.list(), []);
    assert.deepEqual(f.registrations(), [`${f.repo} refs/heads/main`]);
  });
});
