// The warm worktree pool with real git, real files and real demo agents: entries made at HEAD with
// their include files and setup command, taken by a dispatch at exactly the commit dispatched from
// (also right after a commit), refilled, never stale, never an orphan, removed at size 0 and by the
// uninstall script.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { ManagerSettings } from '../../src/core/ports';
import { Reconciler } from '../../src/core/reconcile/reconciler';
import { WorktreePool, WorktreePrep, poolDirFor } from '../../src/core/worktrees';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { NodePoolGit } from '../../src/node/git/worktreePool';
import { LiveProcesses } from '../../src/node/liveProcesses';
import { NodePoolDisk } from '../../src/node/poolDisk';
import { readPoolList, removeRememberedPools } from '../../src/node/poolList';
import { recordsOnDisk } from '../../src/node/registry/recordsOnDisk';
import { git, ManagerFixture } from './managerFixture';

const writeMarker = (name: string) => [
  process.execPath,
  '-e',
  `require('fs').writeFileSync(${JSON.stringify(name)}, 'x')`,
];

describe('Warm worktree pool with real git', function () {
  this.timeout(120000);
  let fx: ManagerFixture;
  let settings: ManagerSettings;
  let pool: WorktreePool;
  let manager: AgentManager;
  let lines: string[];
  let listFile: string;
  let n = 0;

  beforeEach(() => {
    fx = new ManagerFixture({
      'README.md': '# sample\n',
      'app.js': 'console.log("hi");\n',
      '.gitignore': '.env\nsetup-ran\n',
      '.worktreeinclude': '.env\n',
    });
    fs.writeFileSync(path.join(fx.repo, '.env'), 'SECRET=1\n');
    listFile = path.join(fx.tmp, 'state', 'pools.json');
    lines = [];
    const logger = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(l), error() {} };
    settings = { branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), worktreePool: 2 };
    const fsPort = new NodeFileSystem();
    pool = new WorktreePool({
      git: new NodePoolGit(
        fx.git.runner,
        (r, d, f) => fx.git.removeWorktree(r, d, f),
        () => fx.git.whenFilesDeleted(),
      ),
      disk: new NodePoolDisk(listFile),
      source: fx.git,
      prep: new WorktreePrep(fsPort, fx.git, logger),
      logger,
      settings: () => settings,
      newSlot: () => `slot${n++}`,
    });
    manager = fx.manager({ pool, settings: () => settings, logger });
  });

  afterEach(async () => {
    pool.dispose();
    await fx.dispose();
  });

  const poolDir = () => poolDirFor(fx.repo, settings);
  const head = () => git(fx.repo, 'rev-parse', 'HEAD');
  /** Pool entries as git registers them: [path, HEAD, detached]. */
  function registered(): string[][] {
    const out = git(fx.repo, 'worktree', 'list', '--porcelain');
    return out
      .split('\n\n')
      .map((block) => block.split('\n'))
      .filter((b) => b[0].startsWith(`worktree ${poolDir()}`))
      .map((b) => [b[0].slice('worktree '.length), b[1].slice('HEAD '.length), String(b.includes('detached'))]);
  }
  async function readyEntries() {
    return (await new NodePoolDisk(listFile).list(poolDir())).filter((e) => e.meta?.state === 'ready');
  }
  async function filled(): Promise<void> {
    pool.watch([fx.repo]);
    await pool.settled();
  }
  function commit(file: string, text: string): string {
    fs.writeFileSync(path.join(fx.repo, file), text);
    git(fx.repo, 'add', file);
    git(fx.repo, 'commit', '-q', '-m', `change ${file}`);
    return head();
  }
  async function dispatch(title: string) {
    return manager.dispatch({ prompt: `create ${title}.txt: from ${title}`, profile: 'demo', folder: fx.repo, title });
  }

  it('fills N detached worktrees at HEAD with the include files and the setup command done, never orphans', async () => {
    settings = { ...settings, setupCommand: writeMarker('setup-ran') };
    await filled();
    const entries = registered();
    assert.equal(entries.length, 2);
    for (const [dir, sha, detached] of entries) {
      assert.equal(sha, head());
      assert.equal(detached, 'true');
      assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), 'SECRET=1\n');
      assert.ok(fs.existsSync(path.join(dir, 'setup-ran')), 'the setup command ran in the entry');
      assert.equal(git(dir, 'status', '--porcelain'), '', 'every tracked file checked out');
    }
    assert.equal((await readyEntries()).length, 2);
    assert.ok(pool.usage().bytes > 0, 'the disk cost is measured');
    assert.equal(pool.usage().entries, 2);
    assert.deepEqual(await readPoolList(listFile), [{ repoRoot: fx.repo, poolDir: poolDir() }]);

    const reconciler = new Reconciler({
      manager,
      landing: new AgentLanding(manager, fx.git, { info() {}, warn() {}, error() {} }),
      git: fx.git,
      fs: new NodeFileSystem(),
      clock: { now: () => Date.now() },
      logger: { info() {}, warn() {}, error() {} },
      settings: () => settings,
      profile: () => ({ name: 'demo', mode: 'headless' }),
      repositories: async () => [fx.repo],
      inUse: () => ({ paths: [], branches: [] }),
      newId: () => `r${n++}`,
      registryRecords: (repoRoot) => recordsOnDisk(repoRoot, 'agents'),
      liveRuns: new LiveProcesses({ statusDirs: () => [path.join(fx.tmp, 'agents')] }),
    });
    try {
      const report = await reconciler.run();
      assert.deepEqual(report.orphans, [], 'pool entries are no orphans');
      assert.deepEqual(report.missing, []);
      assert.equal(registered().length, 2, 'reconcile neither prunes nor removes pool entries');
      assert.deepEqual(manager.list(), [], 'pool entries are no agents');
    } finally {
      reconciler.dispose();
    }
  });

  it('commit, then dispatch at once: the agent starts at exactly the new commit, from the pool, which is refilled', async () => {
    await filled();
    const before = head();
    const sha = commit('app.js', 'console.log("moved");\n');
    assert.notEqual(sha, before);
    const record = await dispatch('right-after');
    assert.equal(record.baseSha, sha);
    assert.equal(git(record.cwd, 'rev-parse', 'HEAD'), sha, "the agent's worktree is at the commit dispatched from");
    assert.equal(git(record.cwd, 'symbolic-ref', 'HEAD'), `refs/heads/${record.branch}`);
    assert.equal(fs.readFileSync(path.join(record.cwd, 'app.js'), 'utf8'), 'console.log("moved");\n');
    assert.equal(git(record.cwd, 'status', '--porcelain'), '');
    assert.equal(fs.readFileSync(path.join(record.cwd, '.env'), 'utf8'), 'SECRET=1\n');
    assert.ok(
      lines.some((l) => l.includes(`${record.cwd} taken from the pool`)),
      lines.join('\n'),
    );
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded');
    assert.deepEqual(
      done.changedFiles.map((f) => `${f.kind} ${f.path}`),
      ['untracked right-after.txt'],
    );

    await pool.settled();
    const entries = registered();
    assert.equal(entries.length, 2, 'refilled to its size');
    assert.deepEqual(
      entries.map((e) => e[1]),
      [sha, sha],
      'every entry at the new HEAD',
    );
    assert.equal((await readyEntries()).length, 2);
  });

  it('with a setup command, an entry behind the base is not taken; the refresh brings the pool to HEAD and the next dispatch takes one', async () => {
    settings = { ...settings, setupCommand: writeMarker('setup-ran') };
    await filled();
    const sha = commit('README.md', '# moved\n');
    const first = await dispatch('behind');
    assert.equal(git(first.cwd, 'rev-parse', 'HEAD'), sha);
    assert.ok(!lines.some((l) => l.includes('taken from the pool')), 'no entry made at an older commit is used');
    assert.equal((await fx.finished(manager, first.id)).status, 'succeeded');
    assert.match(fs.readFileSync(first.logPath!, 'utf8'), /──── setup:/);

    await pool.settled();
    assert.deepEqual(
      (await readyEntries()).map((e) => e.meta?.head),
      [sha, sha],
    );
    const second = await dispatch('warm');
    assert.equal(git(second.cwd, 'rev-parse', 'HEAD'), sha);
    assert.ok(lines.some((l) => l.includes(`${second.cwd} taken from the pool`)));
    assert.ok(fs.existsSync(path.join(second.cwd, 'setup-ran')), 'set up when the entry was made');
    const done = await fx.finished(manager, second.id);
    assert.equal(done.status, 'succeeded');
    assert.doesNotMatch(fs.readFileSync(done.logPath!, 'utf8'), /──── setup:/, 'setup is not run again');
  });

  it('never takes an entry made with another setup command or older include files', async () => {
    settings = { ...settings, setupCommand: writeMarker('setup-ran') };
    await filled();
    settings = { ...settings, setupCommand: writeMarker('setup-ran-2') };
    const a = await dispatch('other-setup');
    assert.ok(!lines.some((l) => l.includes('taken from the pool')));
    assert.equal((await fx.finished(manager, a.id)).status, 'succeeded');
    await pool.settled();
    for (const [dir] of registered()) {
      assert.ok(fs.existsSync(path.join(dir, 'setup-ran-2')), 'entries remade with the new command');
    }
    fs.writeFileSync(path.join(fx.repo, '.env'), 'SECRET=changed-and-longer\n');
    const b = await dispatch('new-env');
    assert.ok(!lines.some((l) => l.includes('taken from the pool')));
    assert.equal(fs.readFileSync(path.join(b.cwd, '.env'), 'utf8'), 'SECRET=changed-and-longer\n');
    await fx.finished(manager, b.id);
  });

  it('an agent with variables of its own (worktreeEnv) takes no entry: its env file and setup command get its values', async () => {
    const setupSeesIndex = [
      process.execPath,
      '-e',
      "require('fs').writeFileSync('setup-ran', String(process.env.AGENT_INDEX))",
    ];
    settings = { ...settings, setupCommand: setupSeesIndex };
    await filled();
    settings = { ...settings, worktreeEnv: { AGENT_INDEX: '${agentIndex}' }, portRange: '3100-3999' };
    const record = await dispatch('own-vars');
    assert.equal(git(record.cwd, 'rev-parse', 'HEAD'), head());
    assert.ok(!lines.some((l) => l.includes('taken from the pool')), lines.join('\n'));
    assert.equal((await fx.finished(manager, record.id)).status, 'succeeded');
    assert.equal(fs.readFileSync(path.join(record.cwd, 'setup-ran'), 'utf8'), '1', 'the setup command saw its value');
    assert.match(fs.readFileSync(path.join(record.cwd, '.parallel-agents.env'), 'utf8'), /^AGENT_INDEX=1$/m);
    assert.equal(registered().length, 2, 'the pool kept its entries');
  });

  it('two dispatches at once never take the same entry: one from the pool, one added, both at HEAD', async () => {
    settings = { ...settings, worktreePool: 1 };
    await filled();
    const [a, b] = await Promise.all([dispatch('first'), dispatch('second')]);
    const taken = lines.filter((l) => l.includes('taken from the pool'));
    assert.equal(taken.length, 1, taken.join('\n'));
    for (const r of [a, b]) {
      assert.equal(git(r.cwd, 'rev-parse', 'HEAD'), head());
      assert.equal(git(r.cwd, 'symbolic-ref', '--short', 'HEAD'), r.branch);
      assert.equal((await fx.finished(manager, r.id)).status, 'succeeded');
    }
    assert.notEqual(a.cwd, b.cwd);
  });

  it('an entry whose setup command failed is removed and never used', async () => {
    settings = { ...settings, setupCommand: [process.execPath, '-e', 'process.exit(3)'] };
    await filled();
    assert.deepEqual(registered(), [], 'no registration left');
    assert.deepEqual(await readyEntries(), []);
    assert.ok(lines.some((l) => l.includes('the setup command failed')));
    const record = await dispatch('setup-fails');
    assert.ok(!lines.some((l) => l.includes('taken from the pool')));
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'failed', 'the normal path runs the failing setup command for the agent');
  });

  it('size 0 removes every pool worktree, its registration and the folder; the uninstall script removes what is left', async () => {
    await filled();
    assert.equal(registered().length, 2);
    settings = { ...settings, worktreePool: 0 };
    await pool.refreshAll();
    await fx.git.whenFilesDeleted();
    assert.deepEqual(registered(), []);
    assert.equal(fs.existsSync(poolDir()), false);
    assert.deepEqual(await readPoolList(listFile), []);

    settings = { ...settings, worktreePool: 1 };
    await pool.refreshAll();
    assert.equal(registered().length, 1);
    pool.dispose();
    const done = removeRememberedPools(listFile);
    assert.equal(done.length, 1);
    assert.deepEqual(registered(), []);
    assert.equal(fs.existsSync(poolDir()), false);
    assert.equal(fs.existsSync(listFile), false);
    assert.equal(git(fx.repo, 'worktree', 'list', '--porcelain').split('\n\n').length, 1, 'only the main worktree');
  });

  it('the uninstall script deletes only pool folders: a damaged list naming another folder gets it left alone', async () => {
    const precious = path.join(fx.tmp, 'precious');
    fs.mkdirSync(precious);
    fs.writeFileSync(path.join(precious, 'work.txt'), 'keep me\n');
    fs.mkdirSync(path.dirname(listFile), { recursive: true });
    fs.writeFileSync(listFile, JSON.stringify([{ repoRoot: fx.repo, poolDir: precious }]));
    const done = removeRememberedPools(listFile);
    assert.match(done.join('\n'), /skipped .*precious: not a pool folder/);
    assert.equal(fs.readFileSync(path.join(precious, 'work.txt'), 'utf8'), 'keep me\n');
  });
});
