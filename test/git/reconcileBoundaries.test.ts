import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { git, ReconcileFixture, snapshot } from './reconcileFixture';

describe("Reconcile Agents with real git: the user's worktrees and branches are never reported, pruned or touched", function () {
  this.timeout(60000);
  let f: ReconcileFixture;

  beforeEach(() => {
    f = new ReconcileFixture();
  });

  afterEach(async () => {
    await f.dispose();
  });

  it("reports only its own orphans, and Adopt, Discard and Reconcile leave every worktree and branch of the user's as it was", async () => {
    const own = f.worktreeOrphan('own');
    f.branchOrphan('own-branch');
    // The user's: an own-looking branch outside the root, the user's branches inside the root,
    // folders nested deeper than the root's own level, names the extension cannot make.
    const users = [
      f.worktreeOrphan('outside', path.join(f.fx.tmp, 'outside'), 'agents/outside'),
      f.worktreeOrphan('in-root', path.join(f.root, 'in-root'), 'feature/in-root'),
      f.worktreeOrphan('deep', path.join(f.root, 'nested', 'deep'), 'agents/deep'),
      f.worktreeOrphan('upper', path.join(f.root, 'upper'), 'agents/Upper'),
      f.worktreeOrphan('under', path.join(f.root, 'under'), 'agents/x_y'),
    ];
    const detached = path.join(f.root, 'detached');
    git(f.repo, 'worktree', 'add', '-q', '--detach', detached);
    users.push(detached);
    for (const branch of ['feature/later', 'agentsfoo', 'my-agents/x', 'agents/team/x', 'agents/-dash']) {
      git(f.repo, 'branch', branch);
    }
    const files = users.map(snapshot);
    const registrations = f.registrations().filter((r) => !r.includes('agents/own'));
    const refs = f.refs();
    const usersRefs = () => {
      const all = f.refs();
      return Object.fromEntries(Object.entries(all).filter(([name]) => !/agents\/own|parallel-agents/.test(name)));
    };
    const before = usersRefs();
    assert.equal(Object.keys(before).length, Object.keys(refs).length - 2);

    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => `${o.kind} ${o.branch}`),
      ['worktree agents/own', 'branch agents/own-branch'],
    );
    assert.deepEqual(report.pruned, []);
    assert.deepEqual(report.errors, []);
    await f.reconciler.adopt({ path: own });
    await f.reconciler.discardOrphan({ branch: 'agents/own-branch' });
    await f.reconciler.run();

    assert.deepEqual(users.map(snapshot), files);
    assert.deepEqual(
      f.registrations().filter((r) => !r.includes('agents/own')),
      registrations,
    );
    assert.deepEqual(usersRefs(), before);
  });

  it("prunes the stale registrations of its own worktrees and never the user's or a locked one", async () => {
    const stale = (dir: string, branch?: string) => {
      git(f.repo, 'worktree', 'add', '-q', ...(branch ? ['-b', branch] : ['--detach']), dir);
      fs.rmSync(dir, { recursive: true, force: true });
      return dir;
    };
    const ownA = stale(path.join(f.root, 'gone-a'), 'agents/gone-a');
    const ownB = stale(path.join(f.root, 'gone-b'), 'agents/gone-b');
    const kept = [
      stale(path.join(f.fx.tmp, 'outside'), 'agents/outside'),
      stale(path.join(f.root, 'mine'), 'feature/mine'),
      stale(path.join(f.root, 'bad'), 'agents/Bad'),
      stale(path.join(f.root, 'nested', 'deep'), 'agents/deep'),
      stale(path.join(f.root, 'loose')),
    ];
    const locked = stale(path.join(f.root, 'locked'), 'agents/locked');
    git(f.repo, 'worktree', 'lock', locked);
    const userEntries = () => f.registrations().filter((r) => kept.some((k) => r.startsWith(`${k} `)));
    const before = userEntries();
    assert.equal(before.length, kept.length);
    assert.ok(before.every((r) => r.endsWith(' prunable')));

    const report = await f.reconciler.run();
    assert.deepEqual([...report.pruned].sort(), [ownA, ownB]);
    assert.deepEqual(userEntries(), before, "the user's stale entries stay registered");
    assert.ok(f.registrations().some((r) => r.startsWith(`${locked} `)));
    assert.ok(!f.registrations().some((r) => r.startsWith(`${ownA} `) || r.startsWith(`${ownB} `)));
    assert.deepEqual(
      report.orphans.filter((o) => o.kind === 'branch').map((o) => o.branch),
      ['agents/gone-a', 'agents/gone-b'],
      'the pruned worktrees leave their branches for Adopt or Discard; a locked registration still holds its branch',
    );
  });

  it("never reports a plan run's integration worktree or branch while it is in use, and reports them once it is not", async () => {
    const live = f.worktreeOrphan('plan-live');
    f.branchOrphan('plan-queued');
    f.worktreeOrphan('plan-old');
    const files = snapshot(live);
    f.inUse = { paths: [`${live}/`], branches: ['agents/plan-live', 'agents/plan-queued'] };
    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => `${o.kind} ${o.branch} ${o.plan}`),
      ['worktree agents/plan-old true'],
    );
    assert.deepEqual(snapshot(live), files);

    f.inUse = { paths: [], branches: [] };
    const after = await f.reconciler.run();
    assert.deepEqual(after.orphans.map((o) => `${o.kind} ${o.branch} ${o.plan}`).sort(), [
      'branch agents/plan-queued true',
      'worktree agents/plan-live true',
      'worktree agents/plan-old true',
    ]);
  });

  it('looks at every repository once, and one it cannot read is reported without stopping the others', async () => {
    f.worktreeOrphan('found');
    const notARepo = path.join(f.fx.tmp, 'plain-folder');
    fs.mkdirSync(notARepo);
    f.repositories = [notARepo, f.repo, `${f.repo}/`, f.repo];
    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => o.branch),
      ['agents/found'],
    );
    assert.equal(report.errors.length, 1);
    assert.ok(report.errors[0].startsWith(`${notARepo}: `), report.errors[0]);
  });

  it('also looks at the repositories of known agents, and survives a workspace it cannot list', async () => {
    const dir = f.worktreeOrphan('known');
    await f.reconciler.run();
    await f.reconciler.adopt({ path: dir });
    f.worktreeOrphan('stray');
    f.repositories = new Error('the workspace folders cannot be read');
    const listing = f.reconciler.run();
    const shared = f.reconciler.run();
    assert.equal(listing, shared, 'a pass asked for while one runs shares it');
    const report = await listing;
    assert.deepEqual(
      report.orphans.map((o) => o.branch),
      ['agents/stray'],
    );
    assert.deepEqual(report.errors, []);
  });
});
