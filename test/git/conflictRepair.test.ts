// Ask Agent to Resolve Conflicts with real git and real demo-agent processes: two agents write the
// same line; the first is merged, the second conflicts; the workspace's branch is merged into the
// second agent's branch in its worktree, the conflicts go to it as a follow-up, the demo agent
// resolves the markers, the merge is committed, the forecast is clean and the user's merge succeeds.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import { forecastRepo } from '../../src/core/landing/conflictForecast';
import { ConflictRepair, recordForecast } from '../../src/core/landing/conflictRepair';
import { liveBranchAgents } from '../../src/core/landing/mergeOrder';
import { assertRestored, assertUntouched, recordWorkspace } from '../harness/untouched';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';

describe('Ask Agent to Resolve Conflicts: real git, real demo agents writing the same line', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;
  let repair: ConflictRepair;

  eachWithLanding((setUp) => {
    ({ fx, manager, landing } = setUp);
    repair = new ConflictRepair(manager, fx.git);
  });

  async function committed(prompt: string, title: string) {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title });
    await fx.finished(manager, record.id);
    assert.ok(await landing.commit(record.id, title), `${title} committed its work`);
    return manager.get(record.id);
  }

  async function forecast() {
    const agents = liveBranchAgents(manager.list()).get(fx.repo) ?? [];
    const result = await forecastRepo(fx.git, fx.repo, agents, await fx.git.currentBranch(fx.repo));
    recordForecast(manager, result);
    return result;
  }

  const mergeInProgress = (cwd: string) => fs.existsSync(git(cwd, 'rev-parse', '--git-path', 'MERGE_HEAD'));
  const read = (cwd: string, file: string) => fs.readFileSync(path.join(cwd, file), 'utf8');

  /** A merged, B conflicting with main on the same line of app.js: the forecast recorded on B. */
  async function conflictWithMain() {
    const a = await committed('replace app.js: hi => from A', 'Agent A');
    const b = await committed('replace app.js: hi => from B', 'Agent B');
    assert.equal((await landing.merge(a.id, 'merge', 'Land A')).kind, 'merged');
    const first = await forecast();
    assert.deepEqual(first.conflicts, [{ agentId: b.id, otherId: undefined, files: ['app.js'] }]);
    assert.deepEqual(manager.get(b.id).forecastConflicts, { branch: 'main', agents: [], files: ['app.js'] });
    return { a, b: manager.get(b.id) };
  }

  it('merges main into the agent, sends the markers; the agent resolves, the forecast is clean, the merge lands', async () => {
    // (two demo agents wrote the same line of app.js; the first is merged)
    const { b } = await conflictWithMain();
    assert.deepEqual(await repair.targets(b.id), [{ branch: 'main' }]);
    const workspace = recordWorkspace(fx.repo);
    const started = await repair.start(b.id, 'main', 'resolve app.js: keep both');
    assert.equal(started.kind, 'sent');
    assert.ok(started.kind === 'sent');
    assert.deepEqual(started.files, ['app.js']);
    assert.ok(mergeInProgress(b.cwd), 'the merge is in progress in the agent worktree');
    assert.equal(manager.get(b.id).followUps?.at(-1), started.prompt, 'the prompt went to the agent as its follow-up');
    assert.match(started.prompt, new RegExp(`The branch main was merged into your branch ${b.branch}`));
    assert.match(started.prompt, /File app\.js:\n```\n<<<<<<< HEAD\nconsole\.log\("from B"\);\n=======\n/);
    assert.match(started.prompt, /=======\nconsole\.log\("from A"\);\n>>>>>>> main\n```/);
    assert.match(started.prompt, /\n\nresolve app\.js: keep both$/);

    const end = await repair.finish(b.id, 'main');
    assert.deepEqual(end, { kind: 'forecast', conflicts: [], currentBranch: 'main' });
    assert.equal(manager.get(b.id).status, 'succeeded');
    assert.equal(read(b.cwd, 'app.js'), 'console.log("from B");\nconsole.log("from A");\n');
    assert.equal(mergeInProgress(b.cwd), false);
    assert.equal(git(b.cwd, 'status', '--porcelain'), '');
    assert.equal(git(b.cwd, 'log', '-1', '--format=%s'), `Merge main into ${b.branch}`);
    assert.equal(git(b.cwd, 'log', '-1', '--format=%P').split(' ').length, 2);
    assert.equal(manager.get(b.id).forecastConflicts, undefined, 'the clean forecast is recorded');
    // The agent's branch moved (its merge commit); nothing else of the main worktree or its refs did.
    assertUntouched(workspace, 'resolving in the agent worktree leaves the workspace untouched', {
      except: [`ref refs/heads/${b.branch}`],
    });

    const landed = await landing.merge(b.id, 'merge', 'Land B');
    assert.equal(landed.kind, 'merged');
    assert.equal(read(fx.repo, 'app.js'), 'console.log("from B");\nconsole.log("from A");\n');
  });

  it('reports the files left with markers, runs no quoted line, keeps the merge in progress', async () => {
    const { b } = await conflictWithMain();
    const started = await repair.start(b.id, 'main');
    assert.equal(started.kind, 'sent');
    const end = await repair.finish(b.id, 'main');
    assert.deepEqual(end, { kind: 'unresolved', files: ['app.js'] });
    assert.ok(mergeInProgress(b.cwd), 'the merge stays in progress');
    assert.match(read(b.cwd, 'app.js'), /^<<<<<<< HEAD$/m);
    // A prompt without a command: the demo agent kept it in its notes and ran none of the quoted lines.
    assert.match(read(b.cwd, 'AGENT_NOTES.md'), /<<<<<<< HEAD/);
    const before = recordWorkspace(b.cwd);
    await assert.rejects(repair.start(b.id, 'main'), (e) => AgentError.isCode(e, 'resolveMergeInProgress'));
    assertRestored(before, 'a second request during the merge changes nothing');
  });

  it('commits nothing for a run that failed: the merge stays in progress, even with the markers resolved', async () => {
    const { b } = await conflictWithMain();
    await repair.start(b.id, 'main', 'resolve app.js: keep ours\nexit 3');
    const end = await repair.finish(b.id, 'main');
    assert.deepEqual(end, { kind: 'runFailed', status: 'failed' });
    assert.ok(mergeInProgress(b.cwd));
    assert.equal(read(b.cwd, 'app.js'), 'console.log("from B");\n');
    assert.notEqual(git(b.cwd, 'log', '-1', '--format=%s'), `Merge main into ${b.branch}`);
  });

  it('merges the branch of the other agent of a conflicting pair, when that is the target', async () => {
    const a = await committed('replace app.js: hi => from A', 'Agent A');
    const b = await committed('replace app.js: hi => from B', 'Agent B');
    const first = await forecast();
    assert.deepEqual(first.conflicts, [{ agentId: a.id, otherId: b.id, files: ['app.js'] }]);
    assert.deepEqual(manager.get(b.id).forecastConflicts, { agents: [a.id], files: ['app.js'] });
    assert.deepEqual(await repair.targets(b.id), [{ branch: 'main' }, { branch: a.branch, agentId: a.id }]);
    const started = await repair.start(b.id, a.branch!, 'resolve app.js: keep theirs');
    assert.equal(started.kind, 'sent');
    const end = await repair.finish(b.id, a.branch!);
    assert.deepEqual(end, { kind: 'forecast', conflicts: [], currentBranch: 'main' });
    assert.equal(read(b.cwd, 'app.js'), 'console.log("from A");\n');
    assert.equal(manager.get(a.id).forecastConflicts, undefined);
  });

  it('commits a clean merge at once and sends nothing', async () => {
    const c = await committed('create feature.txt: feature', 'Agent C');
    fs.writeFileSync(path.join(fx.repo, 'other.txt'), 'main moved on\n');
    git(fx.repo, 'add', 'other.txt');
    git(fx.repo, 'commit', '-q', '-m', 'main moved on');
    const started = await repair.start(c.id, 'main');
    assert.deepEqual(started, { kind: 'merged', target: 'main' });
    assert.equal(manager.get(c.id).followUps, undefined);
    assert.equal(git(c.cwd, 'log', '-1', '--format=%s'), `Merge main into ${c.branch}`);
    assert.equal(read(c.cwd, 'other.txt'), 'main moved on\n');
    assert.equal(mergeInProgress(c.cwd), false);
  });

  describe('bad input: a clear error and the worktree as it was', () => {
    it('refuses while the agent runs', async () => {
      const record = await manager.dispatch({ prompt: 'sleep 3', profile: 'demo', folder: fx.repo, title: 'Busy' });
      const before = recordWorkspace(manager.get(record.id).cwd);
      await assert.rejects(repair.start(record.id, 'main'), (e) => AgentError.isCode(e, 'agentStillRunning'));
      assertRestored(before, 'a refused start while running');
      await fx.finished(manager, record.id);
    });

    it('refuses uncommitted changes in the worktree, naming how many', async () => {
      const { b } = await conflictWithMain();
      fs.writeFileSync(path.join(b.cwd, 'scratch.txt'), 'the user was here\n');
      const before = recordWorkspace(b.cwd);
      await assert.rejects(
        repair.start(b.id, 'main'),
        (e) => AgentError.isCode(e, 'resolveUncommitted') && e.data.count === 1 && e.data.title === 'Agent B',
      );
      assertRestored(before, 'a refused start with uncommitted changes');
    });

    it('refuses an agent whose worktree is missing or gone', async () => {
      const { b } = await conflictWithMain();
      manager.annotate(b.id, { worktreeMissing: true });
      await assert.rejects(repair.start(b.id, 'main'), (e) => AgentError.isCode(e, 'worktreeMissing'));
      manager.annotate(b.id, { worktreeMissing: undefined, worktreePresent: false });
      await assert.rejects(repair.start(b.id, 'main'), (e) => AgentError.isCode(e, 'noWorktreeBranch'));
    });

    it('a merge that cannot start (unknown branch) leaves the worktree as it was', async () => {
      const { b } = await conflictWithMain();
      const before = recordWorkspace(b.cwd);
      await assert.rejects(repair.start(b.id, 'no-such-branch'), (e) => AgentError.is(e, 'gitFailed'));
      assertRestored(before, 'a merge of an unknown branch', { except: ['git dir ORIG_HEAD'] });
    });

    it('a follow-up that cannot start aborts the merge: the worktree is as it was', async () => {
      const { b } = await conflictWithMain();
      manager.annotate(b.id, { profile: 'missing' });
      const before = recordWorkspace(b.cwd);
      await assert.rejects(repair.start(b.id, 'main'), (e) => AgentError.is(e));
      assert.equal(mergeInProgress(b.cwd), false);
      assertRestored(before, 'an aborted merge', { except: ['git dir ORIG_HEAD'] });
      assert.equal(manager.get(b.id).followUps, undefined);
    });
  });
});
