import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { Reconciler } from '../../src/core/reconcile/reconciler';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { LiveProcesses } from '../../src/node/liveProcesses';
import { recordsOnDisk } from '../../src/node/registry/recordsOnDisk';
import { git, ManagerFixture } from './managerFixture';

const quiet = { info() {}, warn() {}, error() {} };

describe('Reconcile Agents with real git: orphans, missing agents, stale entries', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;
  let reconciler: Reconciler;
  let root: string;
  let n = 0;

  beforeEach(() => {
    fx = new ManagerFixture();
    manager = fx.manager();
    landing = new AgentLanding(manager, fx.git, quiet);
    root = `${fx.repo}.worktrees`;
    reconciler = new Reconciler({
      manager,
      landing,
      git: fx.git,
      fs: new NodeFileSystem(),
      clock: { now: () => Date.now() },
      logger: quiet,
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs') }),
      profile: () => ({ name: 'demo', mode: 'headless' }),
      repositories: async () => [fx.repo],
      inUse: () => ({ paths: [], branches: [] }),
      newId: () => `r${n++}`,
      registryRecords: (repoRoot) => recordsOnDisk(repoRoot, 'agents'),
      liveRuns: new LiveProcesses({ statusDirs: () => [path.join(fx.tmp, 'agents')] }),
    });
  });

  afterEach(async () => {
    reconciler.dispose();
    await fx.dispose();
  });

  /** A worktree and branch made by hand, the way the extension names them, with committed, uncommitted and untracked work. */
  function handMadeOrphan(slug: string): string {
    const dir = path.join(root, slug);
    git(fx.repo, 'worktree', 'add', '-q', '-b', `agents/${slug}`, dir);
    fs.writeFileSync(path.join(dir, 'committed.txt'), 'committed\n');
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'orphan work');
    fs.writeFileSync(path.join(dir, 'app.js'), 'console.log("changed");\n');
    fs.writeFileSync(path.join(dir, 'new.txt'), 'untracked\n');
    return dir;
  }

  async function dispatched(title: string) {
    const record = await manager.dispatch({
      prompt: `create ${title}.txt: work of ${title}`,
      profile: 'demo',
      folder: fx.repo,
      title,
    });
    return fx.finished(manager, record.id);
  }

  it("reports an own orphan, never the user's worktree or branch, and adopts the orphan as an agent with its files", async () => {
    const dir = handMadeOrphan('stray');
    const mine = path.join(fx.tmp, 'my-own');
    git(fx.repo, 'worktree', 'add', '-q', '-b', 'feature/mine', mine);
    git(fx.repo, 'branch', 'agents-not-ours');
    git(fx.repo, 'worktree', 'add', '-q', '-b', 'feature/in-root', path.join(root, 'in-root'));
    const report = await reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => [o.kind, o.branch, o.path]),
      [['worktree', 'agents/stray', dir]],
    );
    assert.deepEqual(report.missing, []);

    const record = await reconciler.adopt({ path: dir });
    assert.equal(record.status, 'stopped');
    assert.equal(record.title, 'stray');
    assert.equal(record.baseSha, git(fx.repo, 'rev-parse', 'HEAD'));
    await manager.refreshChanges(record.id);
    assert.deepEqual(
      manager
        .get(record.id)
        .changedFiles.map((f) => `${f.kind} ${f.path}`)
        .sort(),
      ['added committed.txt', 'modified app.js', 'untracked new.txt'],
    );
    assert.deepEqual(reconciler.orphans(), []);
    assert.deepEqual((await reconciler.run()).orphans, [], 'an adopted orphan is known');
    assert.ok(fs.existsSync(mine), "the user's worktree is untouched");
  });

  it('discards an orphan work-preservingly: saved to a ref, worktree and branch gone, and Restore Agent brings it back', async () => {
    const dir = handMadeOrphan('throwaway');
    await reconciler.run();
    const discarded = await reconciler.discardOrphan({ path: dir });
    assert.equal(discarded.status, 'discarded');
    assert.equal(fs.existsSync(dir), false);
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/throwaway'), '');
    const ref = discarded.savedRef!;
    assert.match(ref, /^refs\/parallel-agents\/saved\//);
    assert.equal(git(fx.repo, 'show', `${ref}:new.txt`), 'untracked');
    assert.equal(git(fx.repo, 'show', `${ref}:app.js`), 'console.log("changed");');

    await landing.restore(discarded.id);
    assert.equal(fs.readFileSync(path.join(dir, 'new.txt'), 'utf8'), 'untracked\n');
    assert.equal(fs.readFileSync(path.join(dir, 'committed.txt'), 'utf8'), 'committed\n');
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/throwaway');
  });

  it('adopts and discards a branch orphan that no worktree has checked out', async () => {
    git(fx.repo, 'branch', 'agents/lonely');
    git(fx.repo, 'branch', 'agents/unwanted');
    const report = await reconciler.run();
    assert.deepEqual(report.orphans.map((o) => [o.kind, o.branch]).sort(), [
      ['branch', 'agents/lonely'],
      ['branch', 'agents/unwanted'],
    ]);
    const adopted = await reconciler.adopt({ branch: 'agents/lonely' });
    assert.equal(git(adopted.worktreePath!, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/lonely');
    const gone = await reconciler.discardOrphan({ branch: 'agents/unwanted' });
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/unwanted'), '');
    assert.equal(git(fx.repo, 'rev-parse', `${gone.savedRef}^`), git(fx.repo, 'rev-parse', 'HEAD'));
  });

  it('marks an agent whose folder was deleted as missing, prunes its stale entry, and restores it from its branch', async () => {
    const agent = await dispatched('Vanish');
    await landing.commit(agent.id, 'agent work');
    fs.rmSync(agent.worktreePath!, { recursive: true, force: true });
    const report = await reconciler.run();
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'branch' }]);
    assert.deepEqual(report.pruned, [agent.worktreePath]);
    assert.doesNotMatch(git(fx.repo, 'worktree', 'list', '--porcelain'), /prunable/);
    assert.equal(manager.get(agent.id).worktreeMissing, true);

    await reconciler.restoreMissing(agent.id);
    assert.equal(manager.get(agent.id).worktreeMissing, false);
    assert.equal(fs.readFileSync(path.join(agent.worktreePath!, 'Vanish.txt'), 'utf8'), 'work of Vanish');
    assert.deepEqual((await reconciler.run()).missing, []);
  });

  it('restores a missing agent from its saved work when that is newest', async () => {
    const agent = await dispatched('Saved');
    await landing.discard(agent.id);
    await landing.restore(agent.id);
    fs.rmSync(agent.worktreePath!, { recursive: true, force: true });
    const report = await reconciler.run();
    assert.deepEqual(report.missing, [{ id: agent.id, restoreFrom: 'saved' }]);
    await reconciler.restoreMissing(agent.id);
    assert.equal(fs.readFileSync(path.join(agent.worktreePath!, 'Saved.txt'), 'utf8'), 'work of Saved');
    assert.equal(git(agent.worktreePath!, 'status', '--porcelain'), '?? Saved.txt');
  });

  it('forgets a missing agent and leaves no registration, branch or record behind; commits stay in a saved ref', async () => {
    const plain = await dispatched('Plain');
    const worked = await dispatched('Worked');
    await landing.commit(worked.id, 'work');
    fs.rmSync(plain.worktreePath!, { recursive: true, force: true });
    fs.rmSync(worked.worktreePath!, { recursive: true, force: true });
    await reconciler.run();
    await reconciler.forget(plain.id);
    await reconciler.forget(worked.id);
    assert.deepEqual(manager.list(), []);
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/*'), '');
    assert.equal(
      git(fx.repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
    );
    assert.equal(git(fx.repo, 'for-each-ref', '--format=%(refname)', `refs/parallel-agents/saved/${plain.id}`), '');
    assert.equal(git(fx.repo, 'show', `refs/parallel-agents/saved/${worked.id}:Worked.txt`), 'work of Worked');
    assert.equal((await reconciler.run()).orphans.length, 0);
  });

  it("prunes a stale entry of its own but leaves the user's stale entry alone", async () => {
    const own = path.join(root, 'stale');
    const users = path.join(fx.tmp, 'users-stale');
    git(fx.repo, 'worktree', 'add', '-q', '-b', 'agents/stale', own);
    git(fx.repo, 'worktree', 'add', '-q', '-b', 'feature/stale', users);
    fs.rmSync(own, { recursive: true, force: true });
    fs.rmSync(users, { recursive: true, force: true });
    const report = await reconciler.run();
    assert.deepEqual(report.pruned, [own]);
    const list = git(fx.repo, 'worktree', 'list', '--porcelain');
    assert.doesNotMatch(list, /agents\/stale/);
    assert.match(list, /feature\/stale/);
    assert.deepEqual(
      report.orphans.map((o) => [o.kind, o.branch]),
      [['branch', 'agents/stale']],
      'its branch is left for Adopt or Discard',
    );
  });
});
