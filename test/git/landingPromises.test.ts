// The promises of Merge, Clean Up, Discard and Restore that guard the user's work, checked on a real
// AgentManager with real demo agents and real git; "untouched" is checked file by file (see
// test/harness/untouched.ts), times included.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { MergeStrategy } from '../../src/core/git';
import { NodeGit } from '../../src/node/git/createGit';
import { assertRestored, assertUntouched, recordFolder, recordWorkspace, workspaceChanges } from '../harness/untouched';
import { git, ManagerFixture } from './managerFixture';
import { rejection } from './refusal';

const quiet = { info() {}, warn() {}, error() {} };
const strategies: readonly MergeStrategy[] = ['merge', 'squash', 'rebase'];

/** The real git object, counting the landings it was asked for. */
class CountingLanding extends NodeGit {
  lands = 0;
  override land(cwd: string, agentCwd: string, branch: string, strategy: MergeStrategy, message: string) {
    this.lands++;
    return super.land(cwd, agentCwd, branch, strategy, message);
  }
}

/** A hook of the repository (hooks are shared by all its worktrees). */
function hook(repo: string, name: string, script: string): void {
  const file = path.join(repo, '.git', 'hooks', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, { mode: 0o755 });
}

const branchTip = (repo: string, branch: string) => git(repo, 'rev-parse', `refs/heads/${branch}`);
const hasBranch = (repo: string, branch: string) => git(repo, 'branch', '--list', branch) !== '';
const savedRef = (id: string) => `refs/parallel-agents/saved/${id}`;

describe('Landing promises: what Merge, Clean Up, Discard and Restore never do to the user’s work', function () {
  this.timeout(120_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let gitLanding: CountingLanding;
  let landing: AgentLanding;

  beforeEach(() => {
    fx = new ManagerFixture();
    manager = fx.manager();
    gitLanding = new CountingLanding({ runner: fx.git.runner });
    landing = new AgentLanding(manager, gitLanding, quiet);
  });

  afterEach(() => fx.dispose());

  /** A finished demo agent whose work is committed on its branch. */
  async function committed(prompt: string, title: string) {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title });
    await fx.finished(manager, record.id);
    assert.ok(await landing.commit(record.id, `${title}: work`));
    return manager.get(record.id);
  }

  describe('Clean Up and Remove after merge', () => {
    it('Clean Up keeps the branch of a merged agent that got more commits after its merge, and saves its worktree', async () => {
      const agent = await committed('create feature.txt: feature', 'Feature');
      assert.equal((await landing.merge(agent.id, 'merge', 'Land feature')).kind, 'merged');
      fs.writeFileSync(path.join(agent.cwd, 'later.txt'), 'committed after the merge\n');
      assert.ok(await landing.commit(agent.id, 'more work after the merge'));
      fs.writeFileSync(path.join(agent.cwd, 'draft.txt'), 'never committed\n');
      const tip = branchTip(fx.repo, agent.branch!);

      assert.deepEqual(await landing.cleanUp(), { removed: 1 });
      assert.ok(!fs.existsSync(agent.cwd), 'the worktree is removed');
      assert.equal(branchTip(fx.repo, agent.branch!), tip, 'the branch still holds the work main does not have');
      const saved = savedRef(agent.id);
      assert.equal(git(fx.repo, 'rev-parse', `${saved}^`), tip);
      assert.equal(git(fx.repo, 'show', `${saved}:later.txt`), 'committed after the merge');
      assert.equal(git(fx.repo, 'show', `${saved}:draft.txt`), 'never committed');
      assert.deepEqual(manager.list(), []);
    });

    it('Clean Up keeps the branch of an agent whose squash merge was reverted on the current branch', async () => {
      const agent = await committed('create feature.txt: feature', 'Reverted');
      assert.equal((await landing.merge(agent.id, 'squash', 'Land it')).kind, 'merged');
      git(fx.repo, 'revert', '--no-edit', 'HEAD');
      const tip = branchTip(fx.repo, agent.branch!);
      assert.deepEqual(await landing.cleanUp(), { removed: 1 });
      assert.ok(!fs.existsSync(agent.cwd));
      assert.equal(branchTip(fx.repo, agent.branch!), tip);
      assert.equal(git(fx.repo, 'rev-parse', `${savedRef(agent.id)}^`), tip);
    });

    it('Remove after merge deletes the branch only when its work is in the current branch', async () => {
      const done = await committed('create done.txt: done', 'Done');
      const more = await committed('create more.txt: more', 'More');
      assert.equal((await landing.merge(done.id, 'merge', 'Land done')).kind, 'merged');
      assert.equal((await landing.merge(more.id, 'squash', 'Land more')).kind, 'merged');
      fs.writeFileSync(path.join(more.cwd, 'extra.txt'), 'after the merge\n');
      assert.ok(await landing.commit(more.id, 'extra'));
      const moreTip = branchTip(fx.repo, more.branch!);

      await landing.removeMergedWorktree(done.id);
      await landing.removeMergedWorktree(more.id);
      assert.ok(!fs.existsSync(done.cwd) && !fs.existsSync(more.cwd), 'both worktrees are removed');
      assert.ok(!hasBranch(fx.repo, done.branch!), 'merged by content: the branch goes');
      assert.equal(branchTip(fx.repo, more.branch!), moreTip, 'not merged by content: the branch stays');
      for (const agent of [done, more]) {
        assert.equal(manager.get(agent.id).worktreePresent, false);
        assert.equal(manager.get(agent.id).savedRef, savedRef(agent.id));
      }
      assert.equal(git(fx.repo, 'rev-parse', `${savedRef(more.id)}^`), moreTip);
    });
  });

  describe('Rebase', () => {
    it('when the current branch moves before the fast-forward, the landing fails, nothing is marked merged, and the agent branch goes back where it was', async () => {
      const agent = await committed('create feature.txt: feature', 'Rebased');
      fs.writeFileSync(path.join(fx.repo, 'README.md'), '# main moved on\n');
      git(fx.repo, 'commit', '-q', '-am', 'main moved on');
      // After the rebase rewrote the agent's commits, someone commits on main: the fast-forward can no longer happen.
      hook(
        fx.repo,
        'post-rewrite',
        [
          `[ -e "${fx.tmp}/moved" ] && exit 0`,
          `touch "${fx.tmp}/moved"`,
          'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX',
          `git -C "${fx.repo}" commit -q --allow-empty -m "main moved during the landing"`,
        ].join('\n'),
      );
      const tip = branchTip(fx.repo, agent.branch!);
      const agentBefore = recordWorkspace(agent.cwd);
      const mainBefore = recordWorkspace(fx.repo);

      const error = await rejection(landing.merge(agent.id, 'rebase', 'Land'), 'gitFailed');
      assert.match(error.detail ?? '', /fast-forward/i);
      assert.ok(fs.existsSync(path.join(fx.tmp, 'moved')), 'the hook ran between the rebase and the fast-forward');
      assert.equal(manager.get(agent.id).status, 'succeeded');
      assert.equal(manager.get(agent.id).mergedInto, undefined);
      assert.equal(branchTip(fx.repo, agent.branch!), tip, 'the agent branch is back where it was');
      assertRestored(agentBefore, 'the agent worktree', { except: ['ref refs/heads/main'] });
      assert.equal(git(fx.repo, 'log', '-1', '--format=%s'), 'main moved during the landing');
      assertRestored(mainBefore, 'the workspace: only the commit made by the hook', {
        except: ['HEAD', 'ref refs/heads/main'],
      });
    });

    it('a rebase that git refuses fails the landing and touches neither the agent worktree nor the workspace', async () => {
      const agent = await committed('create feature.txt: feature', 'Refused');
      fs.writeFileSync(path.join(fx.repo, 'README.md'), '# main moved on\n');
      git(fx.repo, 'commit', '-q', '-am', 'main moved on');
      hook(fx.repo, 'pre-rebase', 'echo "no rebasing here" >&2\nexit 1');
      const agentBefore = recordWorkspace(agent.cwd);
      const mainBefore = recordWorkspace(fx.repo);

      const error = await rejection(landing.merge(agent.id, 'rebase', 'Land'), 'gitFailed');
      assert.match(error.detail ?? '', /no rebasing here/);
      assert.equal(manager.get(agent.id).status, 'succeeded');
      // git rebase itself rewrites the agent's index, with the same bytes, before its pre-rebase hook runs.
      assertUntouched(agentBefore, 'the agent worktree', { except: ['index stat'] });
      assertUntouched(mainBefore, 'the workspace');
    });
  });

  it('a squash commit that a hook refuses is reported, nothing is marked merged, and the workspace is put back', async () => {
    const agent = await committed('create feature.txt: feature\nreplace app.js: hi => hello', 'Squashed');
    fs.writeFileSync(path.join(fx.repo, 'README.md'), '# main moved on\n');
    git(fx.repo, 'commit', '-q', '-am', 'main moved on');
    fs.writeFileSync(path.join(fx.repo, 'notes.txt'), 'the user’s own untracked notes\n');
    for (const name of ['pre-commit', 'commit-msg']) {
      hook(fx.repo, name, `echo "${name} says no" >&2\nexit 1`);
      const before = recordWorkspace(fx.repo);
      const error = await rejection(landing.merge(agent.id, 'squash', 'Land'), 'gitFailed');
      assert.match(error.detail ?? '', new RegExp(`${name} says no`));
      assert.equal(manager.get(agent.id).status, 'succeeded');
      // git merge --squash writes the files before the commit's hooks run: the bytes come back, not the times.
      assertRestored(before, `after a ${name} refusal`);
      fs.rmSync(path.join(fx.repo, '.git', 'hooks', name));
    }
  });

  it('Restore Agent refuses a folder that now holds other files, and changes nothing', async () => {
    const agent = await committed('create feature.txt: feature', 'Restorable');
    await landing.discard(agent.id);
    fs.mkdirSync(agent.cwd, { recursive: true });
    fs.writeFileSync(path.join(agent.cwd, 'someone-else.txt'), 'not the agent’s\n');
    const folderBefore = recordFolder(agent.cwd);
    const mainBefore = recordWorkspace(fx.repo);
    const worktrees = git(fx.repo, 'worktree', 'list', '--porcelain');

    await rejection(landing.restore(agent.id), 'targetExists');
    assertUntouched(folderBefore, 'the folder in the way');
    assertUntouched(mainBefore, 'the workspace and every ref');
    assert.ok(!hasBranch(fx.repo, agent.branch!), 'no branch was made');
    assert.equal(git(fx.repo, 'worktree', 'list', '--porcelain'), worktrees, 'no worktree was registered');
    assert.equal(manager.get(agent.id).status, 'discarded');
    assert.equal(manager.get(agent.id).worktreePresent, false);
  });

  it('a forecast conflict refuses every strategy before any landing is attempted: the workspace and the worktree stay untouched', async () => {
    const first = await committed('replace app.js: hi => from A', 'A');
    const second = await committed('replace app.js: hi => from B', 'B');
    assert.equal((await landing.merge(first.id, 'merge', 'Land A')).kind, 'merged');
    const lands = gitLanding.lands;
    for (const strategy of strategies) {
      const mainBefore = recordWorkspace(fx.repo);
      const agentBefore = recordWorkspace(second.cwd);
      assert.deepEqual(await landing.merge(second.id, strategy, 'Land B'), {
        kind: 'conflicts',
        files: ['app.js'],
        target: 'main',
      });
      assertUntouched(mainBefore, `the workspace (${strategy})`);
      assertUntouched(agentBefore, `the agent worktree (${strategy})`);
      assert.equal(gitLanding.lands, lands, `no landing was attempted (${strategy})`);
      assert.equal(manager.get(second.id).status, 'succeeded');
    }
  });

  it('a merge refused for uncommitted work, in the workspace or in the agent worktree, touches nothing', async () => {
    const agent = await committed('replace app.js: hi => agent', 'Blocked');
    fs.writeFileSync(path.join(fx.repo, 'app.js'), 'the user’s own edit\n');
    const mainBefore = recordWorkspace(fx.repo);
    const agentBefore = recordWorkspace(agent.cwd);
    for (const strategy of strategies) {
      assert.deepEqual(await landing.merge(agent.id, strategy, 'x'), { kind: 'dirtyMain', files: ['app.js'] });
    }
    assertUntouched(mainBefore, 'the workspace after dirtyMain');
    assertUntouched(agentBefore, 'the agent worktree after dirtyMain');

    fs.writeFileSync(path.join(agent.cwd, 'wip.txt'), 'uncommitted\n');
    const agentWithWip = recordWorkspace(agent.cwd);
    assert.deepEqual(await landing.merge(agent.id, 'rebase', 'x'), { kind: 'uncommitted', files: 1 });
    assertUntouched(mainBefore, 'the workspace after uncommitted');
    assertUntouched(agentWithWip, 'the agent worktree after uncommitted');
    assert.equal(gitLanding.lands, 0);
  });

  it('discarding one agent leaves the workspace and another agent’s worktree untouched', async () => {
    const gone = await committed('create a.txt: a', 'Discarded');
    const kept = await committed('create b.txt: b', 'Kept');
    fs.writeFileSync(path.join(gone.cwd, 'draft.txt'), 'uncommitted\n');
    fs.writeFileSync(path.join(kept.cwd, 'draft.txt'), 'uncommitted too\n');
    fs.writeFileSync(path.join(fx.repo, 'app.js'), 'the user’s own edit\n');
    const mainBefore = recordWorkspace(fx.repo);
    const keptBefore = recordWorkspace(kept.cwd);

    await landing.discard(gone.id);
    // Refs are shared by every worktree: the discarded branch goes, its saved work appears.
    const refs = [`ref refs/heads/${gone.branch}`, `ref ${savedRef(gone.id)}`];
    assert.deepEqual(
      workspaceChanges(mainBefore).map((c) => c.key),
      refs,
    );
    assertUntouched(mainBefore, 'the workspace', { except: refs });
    assertUntouched(keptBefore, 'the other agent’s worktree', { except: refs });
    assert.equal(manager.get(kept.id).status, 'succeeded');
  });
});
