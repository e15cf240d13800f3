// The git landing domain (src/node/git/landing.ts: Lander and MergeForecaster) on a temporary
// repository: what a landing that does not happen leaves behind — nothing, checked file by file
// with test/harness/untouched.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MergeStrategy } from '../../src/core/git';
import { NodeGit } from '../../src/node/git/createGit';
import { assertRestored, assertUntouched, recordWorkspace, workspaceChanges } from '../harness/untouched';
import { englishMessage } from '../../src/ui/errorText';
import { commitAll, git, LandingRepo, write } from './landingRepo';
import { rejection } from './refusal';

const strategies: readonly MergeStrategy[] = ['merge', 'squash', 'rebase'];

describe('git landing guards: a landing that does not happen touches nothing', function () {
  this.timeout(60_000);
  const landing = new NodeGit();
  let fx: LandingRepo;
  let repo: string;
  const agent = (name: string, files: Record<string, string>) => fx.agent(name, files);

  beforeEach(() => {
    fx = new LandingRepo(
      'pa-guards-',
      { '.gitignore': '*.log\n.env\n' },
      { 'debug.log': 'the user’s ignored log\n', 'notes.txt': 'the user’s untracked notes\n' },
    );
    repo = fx.repo;
  });

  afterEach(() => fx.dispose());

  it('refuses a forecast conflict before any merge, squash or rebase is attempted: workspace and agent worktree untouched', async () => {
    const wt = agent('clash', { 'app.ts': 'line 1\nline 2 agent\nline 3\n' });
    write(repo, 'app.ts', 'line 1\nline 2 main\nline 3\n');
    commitAll(repo, 'main edits the same line');
    for (const strategy of strategies) {
      const mainBefore = recordWorkspace(repo);
      const agentBefore = recordWorkspace(wt);
      assert.deepEqual(await landing.land(repo, wt, 'agents/clash', strategy, 'x'), {
        ok: false,
        conflicts: ['app.ts'],
      });
      assertUntouched(mainBefore, `the workspace (${strategy})`);
      assertUntouched(agentBefore, `the agent worktree (${strategy})`);
    }
  });

  it('forecasts read only, with merge-tree --stdin, merge-tree --write-tree, or trial merges', async () => {
    const a = agent('a', { 'app.ts': 'line 1\nline 2 a\nline 3\n' });
    const b = agent('b', { 'app.ts': 'line 1\nline 2 b\nline 3\n', 'b.txt': 'b\n' });
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    write(repo, 'app.ts', 'line 1\nline 2\nline 3, the user’s uncommitted edit\n');
    const pairs: [string, string][] = [
      ['agents/a', 'agents/b'],
      ['main', 'agents/a'],
      ['HEAD', 'agents/b'],
    ];
    for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
      const records = [repo, a, b].map(recordWorkspace);
      const forecasting = new NodeGit({ mergeTree });
      assert.deepEqual(await forecasting.forecastMany(repo, pairs), [
        { clean: false, conflicts: ['app.ts'] },
        { clean: true, conflicts: [] },
        { clean: true, conflicts: [] },
      ]);
      assert.deepEqual(await forecasting.forecastMerge(repo, 'agents/a', 'agents/b'), {
        clean: false,
        conflicts: ['app.ts'],
      });
      assert.equal(await forecasting.isMergedByContent(repo, 'agents/b', 'main'), false);
      for (const record of records) {
        assertUntouched(record, `forecast by ${mergeTree}`);
      }
    }
  });

  it('rebase: a rebase that stops midway without conflicts is undone — the agent branch and worktree as they were, the workspace untouched', async () => {
    // The agent committed a scratch file, deleted it in a later commit, then made it again, untracked:
    // replaying the first commit would overwrite it, so git stops there.
    const wt = agent('scratch', { 'out.txt': 'scratch\n' });
    git(wt, 'rm', '-q', 'out.txt');
    write(wt, 'feature.ts', 'export const f = 1;\n');
    commitAll(wt, 'feature');
    write(wt, 'out.txt', 'regenerated, untracked\n');
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    const tip = git(repo, 'rev-parse', 'agents/scratch');
    const mainBefore = recordWorkspace(repo);
    const agentBefore = recordWorkspace(wt);

    const error = await rejection(landing.land(repo, wt, 'agents/scratch', 'rebase', 'x'), 'dirtyWorkspace');
    assert.match(error.detail ?? '', /out\.txt/);
    assert.equal(git(repo, 'rev-parse', 'agents/scratch'), tip);
    assertRestored(agentBefore, 'the agent worktree: no rebase left in progress, HEAD on its branch');
    assertUntouched(mainBefore, 'the workspace');
  });

  it('merge and squash refused by git before they start leave the user’s own merge in progress as it was', async () => {
    const wt = agent('feature', { 'feature.ts': 'export const f = 1;\n' });
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    git(repo, 'branch', 'side', git(repo, 'commit-tree', 'HEAD~^{tree}', '-p', 'HEAD~', '-m', 'side work'));
    // The user is merging `side` with the ours strategy and has not committed yet: nothing is staged.
    git(repo, 'merge', '-q', '--no-commit', '--no-ff', '-s', 'ours', 'side');
    const before = recordWorkspace(repo);
    assert.ok(before.content.has('git dir MERGE_HEAD'));
    for (const strategy of ['squash', 'merge'] as const) {
      await rejection(landing.land(repo, wt, 'agents/feature', strategy, 'x'), 'gitFailed');
      assertUntouched(before, `the workspace after ${strategy}`);
    }
  });

  it('never overwrites an ignored file of the workspace that the landing would add (a .env): refused for every strategy, nothing touched', async () => {
    const wt = agent('env', { 'feature.ts': 'export const f = 1;\n' });
    write(wt, '.env', 'TOKEN=from-the-agent\n');
    git(wt, 'add', '--force', '.env');
    git(wt, 'commit', '-q', '-m', 'the agent commits a .env');
    write(repo, '.env', 'TOKEN=the-users-secret\n');
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    for (const strategy of strategies) {
      const mainBefore = recordWorkspace(repo);
      const error = await rejection(landing.land(repo, wt, 'agents/env', strategy, 'x'), 'dirtyWorkspace');
      assert.match(englishMessage(error), /\.env/);
      assertUntouched(mainBefore, `the workspace (${strategy})`);
      assert.equal(fs.readFileSync(path.join(repo, '.env'), 'utf8'), 'TOKEN=the-users-secret\n');
    }
  });

  describe('what a landing refuses up front, touching nothing', () => {
    it('refuses to land the branch checked out in the workspace, and to land on a detached HEAD', async () => {
      const wt = agent('feature', { 'feature.ts': 'export const f = 1;\n' });
      const before = recordWorkspace(repo);
      const itself = await rejection(landing.land(repo, repo, 'main', 'merge', 'x'), 'gitFailed');
      assert.match(englishMessage(itself), /cannot be landed on itself/);
      assertUntouched(before);
      git(repo, 'checkout', '-q', '--detach');
      const detached = recordWorkspace(repo);
      const error = await rejection(landing.land(repo, wt, 'agents/feature', 'merge', 'x'), 'gitFailed');
      assert.match(englishMessage(error), /detached HEAD/);
      assertUntouched(detached);
    });

    it('refuses staged changes, which a squash would swallow into the landing commit', async () => {
      const wt = agent('feature', { 'feature.ts': 'export const f = 1;\n' });
      write(repo, 'README.md', '# the user’s staged edit\n');
      git(repo, 'add', 'README.md');
      for (const strategy of strategies) {
        const before = recordWorkspace(repo);
        const error = await rejection(landing.land(repo, wt, 'agents/feature', strategy, 'x'), 'dirtyWorkspace');
        assert.match(englishMessage(error), /staged changes/);
        assertUntouched(before, strategy);
      }
    });

    it('rebase: refuses an agent worktree with another branch checked out, or with uncommitted tracked changes', async () => {
      const wt = agent('feature', { 'feature.ts': 'export const f = 1;\n' });
      write(repo, 'README.md', '# main moved on\n');
      commitAll(repo, 'main moves on');
      git(wt, 'checkout', '-q', '-b', 'elsewhere');
      const [main, worktree] = [recordWorkspace(repo), recordWorkspace(wt)];
      const error = await rejection(landing.land(repo, wt, 'agents/feature', 'rebase', 'x'), 'gitFailed');
      assert.match(englishMessage(error), /has elsewhere checked out, not agents\/feature/);
      assertUntouched(main, 'the workspace, another branch checked out');
      assertUntouched(worktree, 'the agent worktree, another branch checked out');

      git(wt, 'checkout', '-q', 'agents/feature');
      write(wt, 'feature.ts', 'export const f = 2; // not committed\n');
      const [main2, worktree2] = [recordWorkspace(repo), recordWorkspace(wt)];
      const dirty = await rejection(landing.land(repo, wt, 'agents/feature', 'rebase', 'x'), 'dirtyWorkspace');
      assert.match(englishMessage(dirty), /uncommitted changes/);
      assertUntouched(main2, 'the workspace, uncommitted agent changes');
      assertUntouched(worktree2, 'the agent worktree, uncommitted agent changes');
    });
  });

  it('squash of a branch whose work is already in the current branch: nothing committed, no squash state left', async () => {
    const wt = agent('feature', { 'feature.ts': 'export const f = 1;\n' });
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    assert.ok((await landing.land(repo, wt, 'agents/feature', 'squash', 'Land')).ok);
    const before = recordWorkspace(repo);
    const head = git(repo, 'rev-parse', 'HEAD');
    assert.deepEqual(await landing.land(repo, wt, 'agents/feature', 'squash', 'Again'), { ok: true, sha: head });
    assertRestored(before, 'no commit, no SQUASH_MSG');
  });

  it('a landing keeps the user’s other branches and uncommitted files as they were, whatever merge.autoStash or rebase.updateRefs say', async () => {
    git(repo, 'config', 'merge.autoStash', 'true');
    git(repo, 'config', 'rebase.autoStash', 'true');
    git(repo, 'config', 'rebase.updateRefs', 'true');
    for (const strategy of strategies) {
      const wt = agent(strategy, { [`${strategy}.ts`]: 'export const f = 1;\n' });
      write(wt, `${strategy}-more.ts`, 'more\n');
      commitAll(wt, 'second commit');
      // The user branched off the agent's first commit.
      git(repo, 'branch', `keep-${strategy}`, `agents/${strategy}~`);
      write(repo, 'app.ts', `line 1\nline 2\nline 3, the user’s own edit before ${strategy}\n`);
      write(repo, 'README.md', `# main moved on before ${strategy}\n`);
      git(repo, 'commit', '-q', '-m', 'main moves on', '--', 'README.md');
      const before = recordWorkspace(repo);
      assert.ok((await landing.land(repo, wt, `agents/${strategy}`, strategy, 'Land')).ok);
      const changes = workspaceChanges(before).filter((c) => /^(file app\.ts|ref refs\/heads\/keep-)/.test(c.key));
      assert.deepEqual(changes, [], `${strategy}: the user's file and branch are as they were`);
    }
  });
});
