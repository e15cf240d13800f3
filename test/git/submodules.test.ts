// parallelAgents.initSubmodules through a real AgentManager: real git, real submodules (one nested),
// the real demo agent. Submodules start uninitialised in a new worktree; with the setting on they
// are initialised before the setup command and the agent, and a failure fails the agent, worktree kept.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { ManagerSettings } from '../../src/core/ports';
import { NodeGit } from '../../src/node/git/createGit';
import { git, ManagerFixture } from './managerFixture';
import { englishStored } from '../../src/ui/errorText';

const quiet = { info() {}, warn() {}, error() {} };
const allowFile = ['-c', 'protocol.file.allow=always'];

function registered(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length));
}

function commitFiles(dir: string, files: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries(files)) {
    fs.writeFileSync(path.join(dir, name), text);
  }
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'files');
}

describe('initSubmodules: a new worktree with its submodules initialised (real git, real agent)', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let configHome: string;

  beforeEach(() => {
    fx = new ManagerFixture();
    // lib holds a submodule of its own (deps/inner): --recursive must reach it.
    commitFiles(path.join(fx.tmp, 'inner'), { 'inner.txt': 'inner\n' });
    commitFiles(path.join(fx.tmp, 'lib'), { 'lib.txt': 'lib\n' });
    git(path.join(fx.tmp, 'lib'), ...allowFile, 'submodule', 'add', '-q', path.join(fx.tmp, 'inner'), 'deps/inner');
    git(path.join(fx.tmp, 'lib'), 'commit', '-q', '-m', 'inner');
    git(fx.repo, ...allowFile, 'submodule', 'add', '-q', path.join(fx.tmp, 'lib'), 'vendor/lib');
    git(fx.repo, 'commit', '-q', '-m', 'submodule');
    // Git clones a submodule in a process of its own that reads no config of the superproject, so
    // the test allows local clones in a user config of its own (XDG_CONFIG_HOME reaches git).
    configHome = path.join(fx.tmp, 'config');
    fs.mkdirSync(path.join(configHome, 'git'), { recursive: true });
    fs.writeFileSync(path.join(configHome, 'git', 'config'), '[protocol "file"]\n\tallow = always\n');
  });

  afterEach(() => fx.dispose());

  /** The extension's git environment is read when its git object is made: XDG_CONFIG_HOME only for that. */
  function manager(settings: Partial<ManagerSettings>): { m: AgentManager; service: NodeGit } {
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = configHome;
    const service = new NodeGit();
    if (saved === undefined) {
      delete process.env.XDG_CONFIG_HOME;
    } else {
      process.env.XDG_CONFIG_HOME = saved;
    }
    const m = fx.manager({
      git: service,
      worktreeSource: service,
      settings: () => ({
        branchPrefix: 'agents',
        logDir: path.join(fx.tmp, 'logs'),
        initSubmodules: true,
        ...settings,
      }),
    });
    return { m, service };
  }

  it("initialises them, nested ones too, before the setup command; git's output in the log; discard leaves nothing", async () => {
    // The setup command fails unless the submodule's file is already there when it runs.
    const setupCommand = [process.execPath, '-e', "require('fs').accessSync('vendor/lib/deps/inner/inner.txt')"];
    const { m, service } = manager({ setupCommand });
    const agent = await m.dispatch({
      prompt: 'create notes.txt: with submodules',
      profile: 'demo',
      folder: fx.repo,
      title: 'Subs',
    });
    const done = await fx.finished(m, agent.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'vendor', 'lib', 'lib.txt'), 'utf8'), 'lib\n');
    assert.equal(
      fs.readFileSync(path.join(done.cwd, 'vendor', 'lib', 'deps', 'inner', 'inner.txt'), 'utf8'),
      'inner\n',
    );
    const status = git(done.cwd, 'submodule', 'status', '--recursive');
    // git() trims: the first line's leading ' ' (initialised, at the recorded commit) is gone; '-' would stay.
    assert.deepEqual(
      status.split('\n').map((l) => l.trim().replace(/^[0-9a-f]{40} /, '')),
      ['vendor/lib (heads/main)', 'vendor/lib/deps/inner (heads/main)'],
      status,
    );
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['notes.txt'],
      'initialised submodules are no change of the agent',
    );
    const log = fs.readFileSync(done.logPath ?? '', 'utf8');
    const order = [
      '──── submodules: git submodule update --init --recursive',
      "Submodule path 'vendor/lib/deps/inner': checked out",
      '──── setup:',
      'notes.txt',
    ].map((s) => log.indexOf(s));
    assert.ok(
      order.every((i, n) => i >= 0 && (n === 0 || i > order[n - 1])),
      `log in order (submodules, setup, agent):\n${log}`,
    );

    // Git refuses a plain removal of a worktree with initialised submodules: discard must still leave nothing.
    await new AgentLanding(m, service, quiet).discard(done.id);
    assert.equal(m.get(done.id).status, 'discarded');
    assert.deepEqual(registered(fx.repo), [fx.repo], 'only the main worktree is registered');
    assert.ok(!fs.existsSync(done.cwd), 'the worktree folder is gone');
    const admin = path.join(fx.repo, '.git', 'worktrees');
    assert.deepEqual(
      fs.existsSync(admin) ? fs.readdirSync(admin) : [],
      [],
      "no worktree admin folder (with the submodules' git dirs) left",
    );
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/*'), '', 'no agent branch');
  });

  it('a repository without submodules: nothing is run for them, nothing logged', async () => {
    const other = new ManagerFixture();
    try {
      const m = other.manager({
        settings: () => ({ branchPrefix: 'agents', logDir: path.join(other.tmp, 'logs'), initSubmodules: true }),
      });
      const done = await other.finished(
        m,
        (await m.dispatch({ prompt: 'create notes.txt: plain', profile: 'demo', folder: other.repo })).id,
      );
      assert.equal(done.status, 'succeeded', done.error);
      assert.doesNotMatch(fs.readFileSync(done.logPath ?? '', 'utf8'), /submodule/i);
    } finally {
      await other.dispose();
    }
  });

  it("a submodule that cannot be cloned fails the agent with git's message before it starts; the worktree is kept", async () => {
    fs.rmSync(path.join(fx.tmp, 'lib'), { recursive: true, force: true });
    const { m } = manager({});
    const agent = await m.dispatch({
      prompt: 'create notes.txt: never',
      profile: 'demo',
      folder: fx.repo,
      title: 'Broken sub',
    });
    const done = await fx.finished(m, agent.id);
    assert.equal(done.status, 'failed');
    assert.match(
      englishStored(done.error ?? ''),
      /^Initialising the submodules \(parallelAgents\.initSubmodules\) with git submodule update --init --recursive failed; the agent was not started and its worktree is kept\./,
    );
    assert.match(
      englishStored(done.error ?? ''),
      /clone of '[^']*lib' into submodule path '[^']*vendor\/lib' failed/,
      "git's own words",
    );
    assert.ok(!fs.existsSync(path.join(done.cwd, 'notes.txt')), 'the agent did not run');
    assert.deepEqual(registered(fx.repo), [fx.repo, done.cwd], 'the worktree is kept, registered');
    assert.equal(git(fx.repo, 'branch', '--list', '--format=%(refname:short)', 'agents/*'), done.branch);
    assert.match(
      fs.readFileSync(done.logPath ?? '', 'utf8'),
      /Initialising the submodules[\s\S]*clone of/,
      "the failure is in the agent's log",
    );
    assert.equal(m.isRunning(done.id), false);
    assert.equal(fx.store.records.length, 1, 'one state entry: the failed agent');
  });
});
