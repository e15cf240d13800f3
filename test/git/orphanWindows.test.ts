// A live agent is never an orphan. Two windows on one repository, each an AgentManager with its own
// RegistryStore on the repository's registry and its own Reconciler, as two extension hosts build
// them; real git, real processes (`sleep`, the demo agent under the real supervisor).
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { Reconciler } from '../../src/core/reconcile/reconciler';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { LiveProcesses } from '../../src/node/liveProcesses';
import { registryDirSync } from '../../src/node/registry/location';
import { recordsOnDisk } from '../../src/node/registry/recordsOnDisk';
import { openRegistryStore } from './registryFixture';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture, supervisorScript } from './managerFixture';
import { snapshot } from './reconcileFixture';

const quiet = { info() {}, warn() {}, error() {} };

interface Window {
  readonly manager: AgentManager;
  readonly reconciler: Reconciler;
}

describe('a live agent is never an orphan: two windows on one repository (real git, real processes)', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  let registry: string;
  const disposables: { dispose(): void }[] = [];
  const children: ChildProcess[] = [];

  beforeEach(() => {
    fx = new ManagerFixture();
    registry = registryDirSync(fx.repo) as string;
  });

  afterEach(async () => {
    children.splice(0).forEach((c) => c.kill('SIGKILL'));
    disposables.splice(0).forEach((d) => d.dispose());
    await fx.dispose();
  });

  const liveRuns = (scanProc?: boolean) =>
    new LiveProcesses({ statusDirs: () => [path.join(registry, 'runs')], scanProc });

  function window(name: string, diskReads = { n: 0 }): Window {
    const store = openRegistryStore(registry);
    let n = 0;
    const settings = () => ({ branchPrefix: 'agents', logDir: path.join(registry, 'logs') });
    const manager = fx.manager({
      store,
      headlessRunner: new SupervisedRunner({
        supervisorScript,
        runtime: process.execPath,
        stateDir: path.join(registry, 'runs'),
        graceMs: 1000,
        pollMs: 100,
      }),
      settings,
      newId: () => `${name}${Date.now().toString(36)}${n++}`,
    });
    const reconciler = new Reconciler({
      manager,
      landing: new AgentLanding(manager, fx.git, quiet),
      git: fx.git,
      fs: new NodeFileSystem(),
      clock: { now: () => Date.now() },
      logger: quiet,
      settings,
      profile: () => ({ name: 'demo', mode: 'headless' }),
      repositories: async () => [fx.repo],
      inUse: () => ({ paths: [], branches: [] }),
      newId: () => `${name}-r${Date.now().toString(36)}${n++}`,
      registryRecords: (root) => {
        diskReads.n++;
        return recordsOnDisk(root, 'agents');
      },
      liveRuns: liveRuns(),
    });
    disposables.push(reconciler, store);
    return { manager, reconciler };
  }

  /** A worktree with a commit and an uncommitted file, made by hand where the extension puts its own. */
  function handMade(slug: string): string {
    const dir = path.join(`${fx.repo}.worktrees`, slug);
    git(fx.repo, 'worktree', 'add', '-q', '-b', `agents/${slug}`, dir);
    fs.writeFileSync(path.join(dir, 'committed.txt'), `${slug}\n`);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', slug);
    fs.writeFileSync(path.join(dir, 'untracked.txt'), `work of ${slug}`);
    return dir;
  }

  const tip = (branch: string) => git(fx.repo, 'for-each-ref', '--format=%(objectname)', `refs/heads/${branch}`);
  const orphanPaths = (w: Window) => w.reconciler.orphans().map((o) => o.path);

  it("Discard in A refuses a worktree whose record B wrote after A's reconcile, and leaves it whole", async () => {
    const a = window('a');
    const b = window('b');
    const dir = handMade('shared');
    const before = { files: snapshot(dir), tip: tip('agents/shared') };
    await Promise.all([a.reconciler.run(), b.reconciler.run()]);
    assert.deepEqual(orphanPaths(a), [dir]);
    const adopted = await b.reconciler.adopt({ path: dir });
    await b.manager.flush();
    // No wait for A to hear of it: Discard reads the registry on disk itself.
    await assert.rejects(a.reconciler.discardOrphan({ path: dir, branch: undefined }), (e) => {
      assert.ok(AgentError.isCode(e, 'orphanNowHasRecord'), String(e));
      assert.deepEqual(e.data, { branch: 'agents/shared', title: adopted.title });
      return true;
    });
    assert.deepEqual(snapshot(dir), before.files, 'every file as it was');
    assert.equal(tip('agents/shared'), before.tip, 'the branch as it was');
    assert.match(git(fx.repo, 'worktree', 'list', '--porcelain'), /branch refs\/heads\/agents\/shared/);
    assert.deepEqual(orphanPaths(a), [], 'no longer listed as an orphan');
    await waitFor('A to list the record B wrote', () => a.manager.list().some((r) => r.id === adopted.id));
    assert.deepEqual(
      a.manager.list().map((r) => [r.id, r.status]),
      [[adopted.id, 'stopped']],
      'one record: B’s, nothing A made',
    );
    assert.deepEqual(
      (await recordsOnDisk<AgentRecord>(fx.repo, 'agents')).map((r) => r.id),
      [adopted.id],
      'the registry holds B’s record only',
    );
    // A reconcile in A now finds no orphan there either.
    await a.reconciler.run();
    assert.deepEqual(orphanPaths(a), []);
  });

  it('Reconcile reads the registry on disk only when a worktree or branch looks orphaned or a worktree is prunable', async () => {
    const reads = { n: 0 };
    const a = window('a', reads);
    await a.reconciler.run();
    assert.equal(reads.n, 0, 'nothing looks orphaned in a repository without agents');
    const dir = handMade('lone');
    await a.reconciler.run();
    assert.equal(reads.n, 1, 'a record-less worktree is checked against the records on disk');
    assert.deepEqual(orphanPaths(a), [dir]);
    await a.reconciler.adopt({ path: dir });
    await a.manager.flush();
    const afterAdopt = reads.n;
    await a.reconciler.run();
    assert.equal(reads.n, afterAdopt, "the adopted worktree is claimed by this window's own record");
    assert.deepEqual(orphanPaths(a), []);
    fs.rmSync(dir, { recursive: true, force: true });
    await a.reconciler.run();
    assert.equal(reads.n, afterAdopt + 1, 'a prunable worktree is checked against the records on disk');
    assert.equal(git(fx.repo, 'worktree', 'list', '--porcelain').includes(dir), false, 'and pruned');
  });

  it('a record-less worktree with a live process in it is no orphan; Discard works once the process has ended', async () => {
    const a = window('a');
    const dir = handMade('busy');
    const before = { files: snapshot(dir), tip: tip('agents/busy') };
    await a.reconciler.run();
    assert.deepEqual(orphanPaths(a), [dir], 'an orphan while nothing runs in it');

    const sleeper = spawn('sleep', ['60'], { cwd: path.join(dir), stdio: 'ignore' });
    children.push(sleeper);
    await new Promise((resolve) => sleeper.once('spawn', resolve));
    await assert.rejects(a.reconciler.discardOrphan({ path: dir }), (e) => {
      assert.ok(AgentError.isCode(e, 'orphanInUse'), String(e));
      assert.deepEqual(e.data, { path: dir, pid: sleeper.pid });
      return true;
    });
    assert.deepEqual(snapshot(dir), before.files, 'every file as it was');
    assert.equal(tip('agents/busy'), before.tip);
    assert.deepEqual(a.manager.list(), [], 'no record made');
    const started = Date.now();
    await a.reconciler.run();
    console.log(`      measured: a reconcile pass with the /proc scan took ${Date.now() - started} ms`);
    assert.deepEqual(orphanPaths(a), [], 'not listed while the process runs');
    await assert.rejects(a.reconciler.adopt({ path: dir }), (e) => AgentError.isCode(e, 'noMatchingOrphan'));

    const exited = new Promise((resolve) => sleeper.once('exit', resolve));
    sleeper.kill('SIGTERM');
    await exited;
    await a.reconciler.run();
    assert.deepEqual(orphanPaths(a), [dir], 'an orphan again once the process has ended');
    const discarded = await a.reconciler.discardOrphan({ path: dir });
    assert.equal(discarded.status, 'discarded');
    assert.ok(!fs.existsSync(dir), 'the worktree is removed');
    assert.equal(tip('agents/busy'), '', 'and its branch');
    assert.ok(discarded.savedRef, 'its work saved first');
  });

  it("a headless agent's run is found from its supervisor's status file alone, in its worktree, until it ends", async () => {
    const a = window('a');
    const record = await a.manager.dispatch({ prompt: 'sleep 30', profile: 'demo', folder: fx.repo });
    const statusOnly = liveRuns(false);
    const found = await waitFor('the run in its status file', async () => {
      const live = await statusOnly.inFolders(fx.repo, [record.worktreePath!]);
      return live.length > 0 ? live : undefined;
    });
    assert.equal(found.length, 1);
    assert.equal(found[0].cwd, record.worktreePath);
    assert.ok(found[0].pid > 0);
    process.kill(found[0].pid, 0); // a live process
    assert.deepEqual(await statusOnly.inFolders(fx.repo, [`${record.worktreePath}-2`]), [], 'not a sibling folder');
    await a.manager.stop(record.id);
    assert.deepEqual(await statusOnly.inFolders(fx.repo, [record.worktreePath!]), [], 'nothing once it has ended');
  });
});
