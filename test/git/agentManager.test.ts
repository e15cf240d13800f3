import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager, AgentManagerDeps } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import type { AgentRunner } from '../../src/core/ports';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture, type MemoryStore } from './managerFixture';
import { englishMessage } from '../../src/ui/errorText';

describe('AgentManager with real git and real agent processes', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let tmp: string;
  let repo: string;
  let store: MemoryStore;
  const makeManager = (overrides: Partial<AgentManagerDeps> = {}) => fx.manager(overrides);
  const finished = (manager: AgentManager, id: string) => fx.finished(manager, id);

  beforeEach(() => {
    fx = new ManagerFixture();
    ({ tmp, repo, store } = fx);
  });

  afterEach(() => fx.dispose());

  it('dispatches the demo agent into a new worktree at the recorded base and tracks its changes', async () => {
    const manager = makeManager();
    const base = git(repo, 'rev-parse', 'HEAD');
    const record = await manager.dispatch({
      prompt: 'create notes/todo.md: first\nreplace app.js: hi => hello\ndelete README.md',
      profile: 'demo',
      folder: repo,
      title: 'Tidy up',
    });
    assert.equal(record.branch, 'agents/tidy-up');
    assert.equal(record.worktreePath, path.join(tmp, 'repo.worktrees', 'tidy-up'));
    assert.equal(record.baseSha, base);
    assert.match(git(repo, 'worktree', 'list', '--porcelain'), /repo\.worktrees\/tidy-up/);
    const done = await finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(done.exitCode, 0);
    assert.deepEqual(done.changedFiles.map((f) => `${f.kind} ${f.path}`).sort(), [
      'deleted README.md',
      'modified app.js',
      'untracked notes/todo.md',
    ]);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes/todo.md'), 'utf8').trim(), 'first');
    // The main workspace is untouched.
    assert.equal(git(repo, 'status', '--porcelain'), '');
    assert.ok(fs.readFileSync(done.logPath!, 'utf8').includes('create'));
  });

  it("writes an agent's log in its repository's own log folder when the settings name one (logDirOf)", async () => {
    const registryLogs = path.join(repo, '.git', 'parallel-agents', 'logs');
    const manager = makeManager({
      settings: () => ({
        branchPrefix: 'agents',
        logDir: path.join(tmp, 'logs'),
        logDirOf: (root) => (root === repo ? registryLogs : undefined),
      }),
    });
    const record = await manager.dispatch({ prompt: 'create a.txt: a', profile: 'demo', folder: repo });
    assert.equal(record.logPath, path.join(registryLogs, `${record.id}.log`));
    const done = await finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.ok(fs.readFileSync(done.logPath!, 'utf8').includes('create'), 'the agent wrote its log there');
  });

  it('runs 8 dispatches at once: all succeed with unique branches and folders', async () => {
    const manager = makeManager();
    const records = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        manager.dispatch({ prompt: `create f${i}.txt: ${i}`, profile: 'demo', folder: repo, title: 'Same title' }),
      ),
    );
    assert.equal(new Set(records.map((r) => r.branch)).size, 8);
    assert.equal(new Set(records.map((r) => r.worktreePath)).size, 8);
    assert.deepEqual(records.map((r) => r.branch).sort()[0], 'agents/same-title');
    const results = await Promise.all(records.map((r) => finished(manager, r.id)));
    assert.deepEqual(
      results.map((r) => r.status),
      Array(8).fill('succeeded'),
    );
    results.forEach((r, i) =>
      assert.deepEqual(
        r.changedFiles.map((f) => f.path),
        [`f${i}.txt`],
      ),
    );
    const registered = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length;
    assert.equal(registered, 9);
  });

  it('reports a missing executable before creating anything', async () => {
    const manager = makeManager();
    await assert.rejects(manager.dispatch({ prompt: 'do it', profile: 'missing', folder: repo }), (e) => {
      assert.ok(AgentError.is(e, 'executableNotFound'));
      assert.match(
        englishMessage(e as AgentError),
        /definitely-not-installed-cli was not found on PATH — install it or edit parallelAgents\.profiles/,
      );
      return true;
    });
    assert.equal(manager.list().length, 0);
    assert.ok(!fs.existsSync(path.join(tmp, 'repo.worktrees')));
    assert.equal(git(repo, 'branch', '--list', 'agents/*'), '');
  });

  it('refuses a folder that is not a repository and a repository without commits, leaving nothing', async () => {
    const manager = makeManager();
    const plain = path.join(tmp, 'plain');
    fs.mkdirSync(plain);
    await assert.rejects(manager.dispatch({ prompt: 'x', profile: 'demo', folder: plain }), (e) =>
      AgentError.is(e, 'notGitRepository'),
    );
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    await assert.rejects(manager.dispatch({ prompt: 'x', profile: 'demo', folder: empty }), (e) =>
      AgentError.is(e, 'noCommits'),
    );
    await assert.rejects(manager.dispatch({ prompt: '   ', profile: 'demo', folder: repo }), (e) =>
      AgentError.is(e, 'emptyPrompt'),
    );
    await assert.rejects(manager.dispatch({ prompt: 'x', profile: 'nope', folder: repo }), (e) =>
      AgentError.is(e, 'unknownProfile'),
    );
    assert.equal(manager.list().length, 0);
    assert.deepEqual(fs.readdirSync(tmp).sort(), ['empty', 'plain', 'repo']);
  });

  it('starts from a given base branch, and refuses an unknown base leaving nothing', async () => {
    const manager = makeManager();
    git(repo, 'checkout', '-q', '-b', 'integration');
    fs.writeFileSync(path.join(repo, 'from-integration.txt'), 'prerequisite\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'prerequisite');
    git(repo, 'checkout', '-q', 'main');
    const record = await manager.dispatch({
      prompt: 'print hi',
      profile: 'demo',
      folder: repo,
      base: 'integration',
      title: 'Dependent',
    });
    assert.equal(record.baseSha, git(repo, 'rev-parse', 'integration'));
    assert.ok(fs.existsSync(path.join(record.cwd, 'from-integration.txt')));
    await finished(manager, record.id);
    await assert.rejects(
      manager.dispatch({ prompt: 'x', profile: 'demo', folder: repo, base: 'no-such-branch', title: 'Lost' }),
      (e) =>
        AgentError.isCode(e, 'unknownCommit') &&
        e.data.ref === 'no-such-branch' &&
        /"no-such-branch" is not a commit or branch/.test(englishMessage(e)),
    );
    assert.equal(manager.list().length, 1);
    assert.equal(git(repo, 'branch', '--list', 'agents/lost'), '');
  });

  it("passes a profile's env to the agent but never writes its values to the log", async () => {
    const lines: string[] = [];
    const sink = (m: string) => lines.push(m);
    const secret = 'sekrit-token-4711';
    const manager = makeManager({
      logger: { info: sink, warn: sink, error: sink },
      profiles: () => [
        {
          name: 'env-demo',
          command: '${demoAgent}',
          args: ['${prompt}'],
          mode: 'headless',
          env: { API_TOKEN: secret },
        },
      ],
    });
    const record = await manager.dispatch({
      prompt: 'print started',
      profile: 'env-demo',
      folder: repo,
      title: 'Secret',
    });
    const done = await finished(manager, record.id);
    assert.equal(done.status, 'succeeded');
    assert.ok(lines.length > 0, 'the manager logged the run');
    assert.ok(!lines.some((l) => l.includes(secret)), 'no log line holds the secret');
    assert.ok(!fs.readFileSync(done.logPath!, 'utf8').includes(secret));
    assert.ok(!JSON.stringify(store.records).includes(secret), 'the saved state holds no env value');
  });

  it('stops a run that exceeds the time limit with status timed-out', async () => {
    let limitMs = 300;
    const manager = makeManager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(tmp, 'logs'), agentTimeoutMs: limitMs }),
    });
    const record = await manager.dispatch({ prompt: 'sleep 30', profile: 'demo', folder: repo, title: 'Too slow' });
    const t0 = Date.now();
    const done = await finished(manager, record.id);
    assert.equal(done.status, 'timed-out');
    assert.ok(Date.now() - t0 < 10000);
    // A limit far above a quick run's length: 300 ms alone is less than a node start on a loaded machine.
    limitMs = 20_000;
    const quick = await manager.dispatch({ prompt: 'print fast', profile: 'demo', folder: repo, title: 'Quick' });
    assert.equal((await finished(manager, quick.id)).status, 'succeeded', 'a run inside the limit is untouched');
  });

  it('skips a name whose folder already exists', async () => {
    const manager = makeManager();
    fs.mkdirSync(path.join(tmp, 'repo.worktrees', 'busy'), { recursive: true });
    const record = await manager.dispatch({ prompt: 'print hi', profile: 'demo', folder: repo, title: 'busy' });
    assert.equal(record.branch, 'agents/busy-2');
    await finished(manager, record.id);
  });

  it('records a failing exit code, and Stop ends a long agent within seconds', async () => {
    const manager = makeManager();
    const failing = await manager.dispatch({ prompt: 'exit 3', profile: 'demo', folder: repo });
    const sleeper = await manager.dispatch({ prompt: 'sleep 30', profile: 'demo', folder: repo });
    const failed = await finished(manager, failing.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.exitCode, 3);
    const t0 = Date.now();
    await manager.stop(sleeper.id);
    assert.equal(manager.get(sleeper.id).status, 'stopped');
    assert.ok(Date.now() - t0 < 10000);
  });

  it('ends the agents it cannot leave running when disposed, and the next window shows the run as interrupted', async () => {
    // A runner that can neither leave its agents running nor adopt them (as the terminal runner):
    // the supervised runner with detach() and adopt() hidden.
    const supervised = fx.headlessRunner();
    const cannotDetach: AgentRunner = {
      start: (request) => {
        const agent = supervised.start(request);
        return { pid: agent.pid, onDidOutput: agent.onDidOutput, exit: agent.exit, stop: () => agent.stop() };
      },
    };
    const first = makeManager({ headlessRunner: cannotDetach });
    const record = await first.dispatch({
      prompt: 'sleep 2\ncreate late.txt: too late',
      profile: 'demo',
      folder: repo,
    });
    await first.flush();
    assert.equal(store.records.find((r) => r.id === record.id)?.status, 'running');
    first.dispose();
    const second = makeManager({ headlessRunner: cannotDetach });
    assert.equal(second.get(record.id).status, 'interrupted');
    assert.equal(second.get(record.id).branch, record.branch);
    await new Promise((r) => setTimeout(r, 3000));
    assert.ok(!fs.existsSync(path.join(record.cwd, 'late.txt')), 'the agent process was ended');
  });

  it('adopts a supervised agent still running after its window closed, with its real end and all its output', async () => {
    const stateDir = path.join(tmp, 'agents');
    const runner = () =>
      new SupervisedRunner({
        supervisorScript: path.resolve(__dirname, '../../../dist/supervisor.js'),
        runtime: process.execPath,
        stateDir,
        pollMs: 100,
      });
    const first = makeManager({ headlessRunner: runner() });
    const record = await first.dispatch({
      prompt: 'print before\nsleep 2\nprint after\ncreate late.txt: made after the reload',
      profile: 'demo',
      folder: repo,
      title: 'Survivor',
    });
    await first.flush();
    first.dispose();
    const second = makeManager({ headlessRunner: runner() });
    assert.equal(second.get(record.id).status, 'running', 'adopted, not interrupted');
    assert.ok(second.isRunning(record.id));
    const done = await finished(second, record.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.exitCode, 0);
    assert.equal(fs.readFileSync(path.join(record.cwd, 'late.txt'), 'utf8'), 'made after the reload');
    assert.match(fs.readFileSync(record.logPath!, 'utf8'), /before[\s\S]*after[\s\S]*summary/);
    // Stop still works on an adopted agent.
    const sleeper = await second.dispatch({
      prompt: 'sleep 30',
      profile: 'demo',
      folder: repo,
      title: 'Adopted sleeper',
    });
    second.dispose();
    const third = makeManager({ headlessRunner: runner() });
    assert.equal(third.get(sleeper.id).status, 'running');
    await third.stop(sleeper.id);
    assert.equal(third.get(sleeper.id).status, 'stopped');
  });

  it('adopts an agent saved as preparing whose supervisor runs (the window closed before saving it ran), but never its setup command for it', async () => {
    const stateDir = path.join(tmp, 'agents');
    const runner = () =>
      new SupervisedRunner({
        supervisorScript: path.resolve(__dirname, '../../../dist/supervisor.js'),
        runtime: process.execPath,
        stateDir,
        pollMs: 100,
      });
    const now: { setupCommand?: string[] } = {};
    const first = makeManager({
      headlessRunner: runner(),
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(tmp, 'logs'), setupCommand: now.setupCommand }),
    });
    const launched = await first.dispatch({
      prompt: 'sleep 2\ncreate late.txt: after all',
      profile: 'demo',
      folder: repo,
      title: 'Launched',
    });
    now.setupCommand = [process.execPath, '-e', 'setTimeout(() => {}, 3000)'];
    const inSetup = await first.dispatch({
      prompt: 'create never.txt: no',
      profile: 'demo',
      folder: repo,
      title: 'In setup',
    });
    await waitFor("the setup command's supervisor", () =>
      fs.existsSync(path.join(stateDir, `${inSetup.id}.setup.status.json`)),
    );
    await first.flush();
    first.dispose();
    assert.equal(store.records.find((r) => r.id === inSetup.id)?.status, 'preparing', 'its setup command runs');
    // The save that said "running" was lost with the window: the launched agent is saved as preparing.
    store.records = store.records.map((r) =>
      r.id === launched.id ? { ...r, status: 'preparing', startedAt: undefined } : r,
    );

    const second = makeManager({ headlessRunner: runner() });
    assert.equal(second.get(launched.id).status, 'running', 'its supervisor says it runs');
    assert.ok(second.isRunning(launched.id));
    const done = await finished(second, launched.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(fs.readFileSync(path.join(launched.cwd, 'late.txt'), 'utf8'), 'after all');
    assert.equal(second.get(inSetup.id).status, 'interrupted', 'a running setup command is not the agent');
    assert.equal(second.isRunning(inSetup.id), false);
  });

  it('runs a follow-up in the same worktree and keeps the prompt history', async () => {
    const manager = makeManager();
    const record = await manager.dispatch({
      prompt: 'create a.txt: one',
      profile: 'demo',
      folder: repo,
      title: 'Follow me',
    });
    await assert.rejects(manager.followUp(record.id, 'append a.txt: too early'), (e) =>
      AgentError.is(e, 'invalidTransition'),
    );
    await finished(manager, record.id);
    await manager.followUp(record.id, 'append a.txt: two');
    assert.equal(manager.get(record.id).status, 'running');
    const done = await finished(manager, record.id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.cwd, record.cwd);
    assert.deepEqual(done.followUps, ['append a.txt: two']);
    assert.equal(fs.readFileSync(path.join(record.cwd, 'a.txt'), 'utf8'), 'onetwo');
    assert.match(
      fs.readFileSync(done.logPath!, 'utf8'),
      /create a\.txt[\s\S]*──── follow-up: append a\.txt: two\n[\s\S]*append a\.txt/,
    );
    await assert.rejects(manager.followUp(record.id, '  '), (e) => AgentError.is(e, 'emptyPrompt'));
  });
});
