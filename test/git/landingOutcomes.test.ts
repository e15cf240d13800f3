// What Merge, Discard, Restore and Clean Up leave in the agent's record, the list and the log, on a
// real AgentManager with real demo agents and real git: the outcomes the Agents view shows.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import { builtinProfiles } from '../../src/core/clis/profiles';
import type { Logger } from '../../src/core/ports';
import { NodeGit } from '../../src/node/git/createGit';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { git, ManagerFixture } from './managerFixture';
import { refusal } from './refusal';
import { TerminalStandIn } from './terminalStandIn';

/** A logger that keeps what it is told. */
class RecordingLogger implements Logger {
  readonly lines: string[] = [];
  info(message: string) {
    this.lines.push(message);
  }
  warn(message: string) {
    this.lines.push(`warn: ${message}`);
  }
  error(message: string) {
    this.lines.push(`error: ${message}`);
  }
}

const hasBranch = (repo: string, branch: string) => git(repo, 'branch', '--list', branch) !== '';

/** The real git object; the user commits `edit` on the workspace's branch right after each forecast. */
class UserCommitsAfterForecast extends NodeGit {
  edit: (() => void) | undefined;
  override async forecastMerge(cwd: string, ours: string, theirs: string) {
    const forecast = await super.forecastMerge(cwd, ours, theirs);
    this.edit?.();
    this.edit = undefined;
    return forecast;
  }
}

describe('Landing outcomes: the record, the list and the log after Merge, Discard, Restore and Clean Up', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let logger: RecordingLogger;
  let landing: AgentLanding;

  beforeEach(() => {
    fx = new ManagerFixture();
    manager = fx.manager();
    logger = new RecordingLogger();
    landing = new AgentLanding(manager, fx.git, logger);
  });

  afterEach(() => fx.dispose());

  const finished = (prompt: string, title: string) => fx.ran(manager, prompt, title);

  it('Merge writes one log line naming the branch, the target, the strategy and the commit it made', async () => {
    const agent = await finished('create feature.txt: feature', 'Logged');
    await landing.commit(agent.id, 'work');
    const result = await landing.merge(agent.id, 'squash', 'Land it');
    assert.equal(result.kind, 'merged');
    const sha = git(fx.repo, 'rev-parse', 'HEAD');
    assert.deepEqual(result, { kind: 'merged', sha, target: 'main' });
    assert.deepEqual(
      logger.lines.filter((l) => l.includes('[Landing]')),
      [`[Landing] merged ${agent.branch} into main (squash) as ${sha.slice(0, 12)}`],
    );
  });

  it('Discard of an agent paused on a usage limit ends its wait first; Restore brings it back stopped', async () => {
    const agent = await finished('ratelimit: resets in 600s\ncreate later.txt: later', 'Paused');
    assert.equal(agent.status, 'paused');
    const seen: string[] = [];
    const sub = manager.onDidChangeAgent(() => {
      const status = manager.get(agent.id).status;
      if (seen.at(-1) !== status) {
        seen.push(status);
      }
    });
    const before = Date.now();
    await landing.discard(agent.id);
    sub.dispose();
    const discarded = manager.get(agent.id);
    assert.deepEqual(seen, ['stopped', 'discarded'], 'the wait is ended (stopped), then the agent discarded');
    assert.ok((discarded.endedAt ?? 0) >= before, 'its wait ended at the discard');
    assert.equal(discarded.statusBeforeDiscard, 'stopped');
    assert.equal(discarded.worktreePresent, false);
    await landing.restore(agent.id);
    assert.equal(manager.get(agent.id).status, 'stopped', 'a paused agent comes back stopped: it no longer resumes');
  });

  it('Discard empties the change set and saves the work under a commit that names the agent', async () => {
    const agent = await finished('create feature.txt: feature', 'Named "Keeper"');
    assert.equal(agent.changedFiles.length, 1);
    await landing.discard(agent.id);
    const discarded = manager.get(agent.id);
    assert.deepEqual(discarded.changedFiles, []);
    assert.equal(discarded.savedRef, `refs/parallel-agents/saved/${agent.id}`);
    assert.equal(
      git(fx.repo, 'log', '-1', '--format=%s', discarded.savedRef!),
      'Parallel Agents: work of "Named "Keeper"" saved before removing its worktree',
    );
    assert.equal(git(fx.repo, 'show', `${discarded.savedRef}:feature.txt`), 'feature');
    await manager.refreshChanges(agent.id);
    assert.deepEqual(manager.get(agent.id).changedFiles, [], 'its folder is no longer watched nor read');
  });

  it('Restore of a discarded agent recorded without its former status (older record) comes back stopped', async () => {
    const agent = await finished('create feature.txt: feature', 'Older record');
    await landing.discard(agent.id);
    const { statusBeforeDiscard, ...older } = manager.get(agent.id);
    assert.equal(statusBeforeDiscard, 'succeeded');
    manager.forget(agent.id);
    manager.register(older);
    await landing.restore(agent.id);
    assert.equal(manager.get(agent.id).status, 'stopped');
    assert.equal(fs.readFileSync(path.join(agent.cwd, 'feature.txt'), 'utf8'), 'feature');
  });

  it('after a rebase landing the agent’s change set is read again: it is the worktree as it is now', async () => {
    const agent = await finished('create feature.txt: feature', 'Rebased');
    await landing.commit(agent.id, 'work');
    fs.writeFileSync(path.join(fx.repo, 'main.txt'), 'main moved on\n');
    git(fx.repo, 'add', 'main.txt');
    git(fx.repo, 'commit', '-q', '-m', 'main moves on');
    const beforeLanding = manager.get(agent.id).changedFiles.map((f) => [f.path, f.kind]);
    assert.deepEqual(beforeLanding, [['feature.txt', 'added']]);
    assert.equal((await landing.merge(agent.id, 'rebase', 'Land')).kind, 'merged');
    const afterLanding = manager.get(agent.id).changedFiles;
    await manager.refreshChanges(agent.id);
    assert.deepEqual(afterLanding, manager.get(agent.id).changedFiles);
    assert.deepEqual(
      afterLanding.map((f) => [f.path, f.kind]),
      [
        ['feature.txt', 'added'],
        ['main.txt', 'added'],
      ],
    );
  });

  it('Restore watches the folder again: a file the agent writes after it shows in its change set', async () => {
    const agent = await finished('create feature.txt: feature', 'Watched');
    await landing.discard(agent.id);
    await landing.restore(agent.id);
    await waitFor('the restored change set', () => manager.get(agent.id).changedFiles.length === 1);
    fs.writeFileSync(path.join(agent.cwd, 'more.txt'), 'more\n');
    await manager.refreshChanges(agent.id);
    assert.deepEqual(
      manager
        .get(agent.id)
        .changedFiles.map((f) => f.path)
        .sort(),
      ['feature.txt', 'more.txt'],
    );
  });

  it('Clean Up drops discarded and merged agents, counting each once, and keeps every other agent', async () => {
    const merged = await finished('create merged.txt: m', 'Merged');
    await landing.commit(merged.id, 'work');
    assert.equal((await landing.merge(merged.id, 'merge', 'Land')).kind, 'merged');
    await landing.removeMergedWorktree(merged.id);
    const discarded = await finished('create d.txt: d', 'Discarded');
    await landing.discard(discarded.id);
    const kept = await finished('create k.txt: k', 'Kept');
    const workspace = recordWorkspace(fx.repo);
    const keptBefore = recordWorkspace(kept.cwd);

    assert.deepEqual(await landing.cleanUp(), { removed: 2 });
    assert.deepEqual(
      manager.list().map((r) => r.id),
      [kept.id],
    );
    assertUntouched(workspace, 'worktrees already removed: nothing more to do in the workspace');
    assertUntouched(keptBefore, 'the agent kept');
    assert.ok(!hasBranch(fx.repo, merged.branch!));
    assert.ok(git(fx.repo, 'rev-parse', '--verify', `refs/parallel-agents/saved/${discarded.id}`));
    assert.deepEqual(await landing.cleanUp(), { removed: 0 });
  });

  it('Merge and Commit name why they refuse: a running agent, no worktree, a detached HEAD', async () => {
    const running = await manager.dispatch({
      prompt: 'create started.txt: s\nsleep 60',
      profile: 'demo',
      folder: fx.repo,
      title: 'Busy',
    });
    await waitFor('the agent to start', () => fs.existsSync(path.join(manager.get(running.id).cwd, 'started.txt')));
    const stillRunning = await refusal(landing.merge(running.id, 'merge', 'x'), 'agentStillRunning');
    assert.deepEqual(stillRunning.data, { title: 'Busy' });
    await refusal(landing.commit(running.id, 'x'), 'agentStillRunning');
    await refusal(landing.resolveInWorktree(running.id), 'agentStillRunning');
    await manager.stop(running.id);
    await fx.finished(manager, running.id);

    const gone = await finished('create g.txt: g', 'Gone');
    await landing.discard(gone.id);
    const noWorktree = await refusal(landing.merge(gone.id, 'merge', 'x'), 'noWorktreeBranch');
    assert.deepEqual(noWorktree.data, { title: 'Gone' });
    await refusal(landing.sendConflictsToAgent(gone.id, ['a.txt']), 'noWorktreeBranch');

    const ready = await finished('create r.txt: r', 'Ready');
    await landing.commit(ready.id, 'work');
    git(fx.repo, 'checkout', '-q', '--detach');
    const detached = await refusal(landing.merge(ready.id, 'merge', 'x'), 'workspaceDetachedHead');
    assert.deepEqual(detached.data, { repoRoot: fx.repo });
    assert.equal(manager.get(gone.id).followUps, undefined, 'no follow-up was sent');
  });

  it('Merge goes ahead over the user’s uncommitted edits to files the agent did not touch, keeping them', async () => {
    const agent = await finished('create feature.txt: feature', 'Elsewhere');
    await landing.commit(agent.id, 'work');
    fs.writeFileSync(path.join(fx.repo, 'app.js'), 'the user’s own edit\n');
    assert.equal((await landing.merge(agent.id, 'merge', 'Land')).kind, 'merged');
    assert.equal(fs.readFileSync(path.join(fx.repo, 'app.js'), 'utf8'), 'the user’s own edit\n');
    assert.equal(fs.readFileSync(path.join(fx.repo, 'feature.txt'), 'utf8'), 'feature');
  });

  it('a clash the user commits between forecast and landing is reported as conflicts; nothing is merged', async () => {
    const racing = new UserCommitsAfterForecast({ runner: fx.git.runner });
    const raced = new AgentLanding(manager, racing, logger);
    const strategies = ['merge', 'squash', 'rebase'] as const;
    const agents: AgentRecord[] = [];
    for (const strategy of strategies) {
      const agent = await finished(`create ${strategy}.txt: the agent's`, `Raced ${strategy}`);
      await raced.commit(agent.id, 'work');
      agents.push(manager.get(agent.id));
    }
    for (const [i, strategy] of strategies.entries()) {
      const agent = agents[i];
      const tip = git(fx.repo, 'rev-parse', agent.branch!);
      let before: ReturnType<typeof recordWorkspace> | undefined;
      racing.edit = () => {
        fs.writeFileSync(path.join(fx.repo, `${strategy}.txt`), 'the user’s\n');
        git(fx.repo, 'add', `${strategy}.txt`);
        git(fx.repo, 'commit', '-q', '-m', `the user commits ${strategy}.txt meanwhile`);
        before = recordWorkspace(fx.repo);
      };
      assert.deepEqual(await raced.merge(agent.id, strategy, 'Land'), {
        kind: 'conflicts',
        files: [`${strategy}.txt`],
        target: 'main',
      });
      assert.ok(before, 'the user committed between the forecast and the landing');
      assertUntouched(before, `the workspace (${strategy})`);
      assert.equal(manager.get(agent.id).status, 'succeeded', strategy);
      assert.equal(git(fx.repo, 'rev-parse', agent.branch!), tip, strategy);
    }
    assert.deepEqual(
      logger.lines.filter((l) => l.includes('[Landing]')),
      [],
    );
  });

  it('Resolve in Worktree refreshes the agent’s change set with the files of the merge it leaves there', async () => {
    const a = await finished('replace app.js: hi => from A', 'A');
    const b = await finished('replace app.js: hi => from B\ncreate b.txt: b', 'B');
    await landing.commit(a.id, 'A');
    await landing.commit(b.id, 'B');
    assert.equal((await landing.merge(a.id, 'merge', 'A')).kind, 'merged');
    assert.deepEqual(
      manager.get(b.id).changedFiles.map((f) => [f.path, f.added, f.removed]),
      [
        ['app.js', 1, 1],
        ['b.txt', 1, 0],
      ],
    );
    assert.deepEqual(await landing.resolveInWorktree(b.id), ['app.js']);
    assert.equal(git(b.cwd, 'status', '--porcelain'), 'UU app.js');
    // app.js now holds both sides between conflict markers.
    assert.deepEqual(
      manager.get(b.id).changedFiles.map((f) => [f.path, f.added, f.removed]),
      [
        ['app.js', 5, 1],
        ['b.txt', 1, 0],
      ],
    );
  });

  it('Discard and Clean Up of an agent run in the workspace (terminal isolation) touch nothing there', async () => {
    const terminals = new TerminalStandIn();
    const profiles = () => [
      ...builtinProfiles,
      { name: 'demo-terminal', command: '${demoAgent}', args: ['${prompt}'], mode: 'terminal' as const },
    ];
    const inWorkspace = fx.manager({ terminalRunner: terminals, profiles });
    const here = new AgentLanding(inWorkspace, fx.git, logger);
    try {
      const record = await inWorkspace.dispatch({
        prompt: 'create here.txt: here',
        profile: 'demo-terminal',
        folder: fx.repo,
        title: 'In the workspace',
        isolation: 'terminal',
      });
      const done = await fx.finished(inWorkspace, record.id);
      assert.equal(done.cwd, fx.repo);
      assert.equal(done.worktreePath, undefined);
      const before = recordWorkspace(fx.repo);
      await refusal(here.merge(record.id, 'merge', 'x'), 'noWorktreeBranch');
      await here.discard(record.id);
      assertUntouched(before, 'the workspace after Discard');
      const discarded = inWorkspace.get(record.id);
      assert.equal(discarded.status, 'discarded');
      assert.equal(discarded.savedRef, undefined, 'nothing saved: the work is in the workspace still');
      assert.equal(fs.readFileSync(path.join(fx.repo, 'here.txt'), 'utf8'), 'here');
      assert.deepEqual(await here.cleanUp(), { removed: 1 });
      assertUntouched(before, 'the workspace after Clean Up');
    } finally {
      terminals.killAll();
    }
  });

  it('Merge of an agent queued on an existing branch is refused: no worktree yet, nothing touched', async () => {
    git(fx.repo, 'branch', 'existing');
    const capped = fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), maxConcurrentAgents: 1 }),
    });
    const busy = await capped.dispatch({ prompt: 'sleep 60', profile: 'demo', folder: fx.repo, title: 'Busy' });
    const queued = await capped.dispatch({
      prompt: 'create q.txt: q',
      profile: 'demo',
      folder: fx.repo,
      title: 'Queued',
      start: { branch: 'existing' },
    });
    assert.equal(queued.status, 'queued');
    assert.equal(queued.branch, 'existing');
    assert.equal(queued.worktreePath, undefined);
    const before = recordWorkspace(fx.repo);
    const error = await refusal(
      new AgentLanding(capped, fx.git, logger).merge(queued.id, 'merge', 'x'),
      'noWorktreeBranch',
    );
    assert.deepEqual(error.data, { title: 'Queued' });
    assertUntouched(before, 'the workspace');
    await capped.stop(queued.id);
    await capped.stop(busy.id);
  });
});
