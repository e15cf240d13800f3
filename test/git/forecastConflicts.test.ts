// Forecast Conflicts on a real repository (core/landing/conflictForecast.ts on NodeGit): a stale
// agent that conflicts with the branch is named once, against the branch, and never against fresh
// agents; pairs that really change the same lines differently are still named.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import { forecastRepo } from '../../src/core/landing';
import { NodeGit } from '../../src/node/git/createGit';
import { landedCommit, writeCommits } from '../../src/node/git/agentsForecast';
import type { MergeTreeSupport } from '../../src/node/git/forecast';
import type { GitExecOptions, GitExecResult } from '../../src/node/git/process';
import { GitRunner } from '../../src/node/git/runner';
import { createTempRepo, type TempRepo } from '../harness/tempRepo';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { agentRecord } from '../unit/agentRecords';

/** Real git, each command's name and output recorded. */
class CountingRunner extends GitRunner {
  readonly commands: string[] = [];
  readonly outputs: string[] = [];
  override async exec(cwd: string, args: readonly string[], options?: GitExecOptions): Promise<GitExecResult> {
    this.commands.push(args[0]);
    const result = await super.exec(cwd, args, options);
    this.outputs.push(result.stdout);
    return result;
  }
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;
const modes: readonly MergeTreeSupport[] = ['stdin', 'writeTree', 'none'];

describe('Forecast Conflicts between agents (real git)', function () {
  this.timeout(60_000);
  let repo: TempRepo;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo.dir, encoding: 'utf8' });

  /** A branch from `base` with `files` committed on it; the main worktree stays on main. */
  const branch = (name: string, base: string, files: Record<string, string>): void => {
    git('checkout', '--quiet', '-b', name, base);
    for (const [file, content] of Object.entries(files)) {
      writeFileSync(join(repo.dir, file), content);
    }
    git('commit', '--quiet', '--all', '--message', name);
    git('checkout', '--quiet', 'main');
  };
  const sha = (rev: string) => git('rev-parse', rev).trim();
  const agent = (id: string): AgentRecord => agentRecord(id, { repoRoot: repo.dir, branch: `agents/${id}` });

  let start: string;
  beforeEach(async () => {
    repo = await createTempRepo({
      'shared.txt': lines('l1', 'l2', 'l3', 'l4', 'l5'),
      'a.txt': lines('a1', 'a2', 'a3'),
      'b.txt': lines('b1', 'b2', 'b3'),
      'c.txt': lines('c1', 'c2', 'c3'),
      'y.txt': lines('y1', 'y2', 'y3'),
    });
    start = git('rev-parse', 'HEAD').trim();
    // The stale agent started here and rewrote line 3 of shared.txt; then main rewrote it too.
    branch('agents/stale', start, { 'shared.txt': lines('l1', 'l2', 'stale', 'l4', 'l5') });
    writeFileSync(join(repo.dir, 'shared.txt'), lines('l1', 'l2', 'main', 'l4', 'l5'));
    git('commit', '--quiet', '--all', '--message', 'main rewrites line 3');
  });
  afterEach(() => repo.dispose());

  it('a stale agent that conflicts with the branch, three fresh agents on other files: the stale one against the branch alone', async () => {
    branch('agents/a', 'main', { 'a.txt': lines('a1', 'fresh a', 'a3') });
    branch('agents/b', 'main', { 'b.txt': lines('b1', 'fresh b', 'b3') });
    branch('agents/c', 'main', { 'c.txt': lines('c1', 'fresh c', 'c3') });
    const agents = ['stale', 'a', 'b', 'c'].map(agent);
    // What made the issue: the tips of the stale and a fresh agent do conflict, on a file the fresh one never touched.
    assert.deepEqual(await new NodeGit().forecastMerge(repo.dir, 'agents/stale', 'agents/a'), {
      clean: false,
      conflicts: ['shared.txt'],
    });
    for (const mergeTree of modes) {
      const before = recordWorkspace(repo.dir);
      const worktrees = git('worktree', 'list', '--porcelain');
      const report = await forecastRepo(new NodeGit({ mergeTree }), repo.dir, agents, 'main');
      assert.deepEqual(
        report.conflicts,
        [{ agentId: 'stale', otherId: undefined, files: ['shared.txt'] }],
        `no pair, the stale agent against main once (${mergeTree})`,
      );
      assert.deepEqual(report.suggestion, {
        conflictFree: false,
        order: ['a', 'b', 'c', 'stale'],
        clean: ['a', 'b', 'c'],
        needsResolution: [{ id: 'stale', conflictsWith: [], conflictsWithBranch: true }],
      });
      assert.deepEqual(report.agentIds, ['stale', 'a', 'b', 'c']);
      assert.equal(report.currentBranch, 'main');
      assertUntouched(before, `the workspace, its refs and index (${mergeTree})`);
      assert.equal(git('worktree', 'list', '--porcelain'), worktrees, 'no worktree left behind');
    }
  });

  it('still names pairs that change the same lines differently: stale with fresh, fresh with fresh', async () => {
    // d and the stale agent rewrite line 2 of y.txt, which main never touched.
    git('checkout', '--quiet', 'agents/stale');
    writeFileSync(join(repo.dir, 'y.txt'), lines('y1', 'stale y', 'y3'));
    git('commit', '--quiet', '--all', '--message', 'stale rewrites y');
    git('checkout', '--quiet', 'main');
    branch('agents/d', 'main', { 'y.txt': lines('y1', 'fresh d', 'y3') });
    // e rewrites the very line of shared.txt the stale agent and main disagree on.
    branch('agents/e', 'main', { 'shared.txt': lines('l1', 'l2', 'fresh e', 'l4', 'l5') });
    // f and g, both fresh, rewrite the same line of c.txt.
    branch('agents/f', 'main', { 'c.txt': lines('c1', 'fresh f', 'c3') });
    branch('agents/g', 'main', { 'c.txt': lines('c1', 'fresh g', 'c3') });
    const agents = ['stale', 'd', 'e', 'f', 'g'].map(agent);
    for (const mergeTree of modes) {
      const report = await forecastRepo(new NodeGit({ mergeTree }), repo.dir, agents, 'main');
      assert.deepEqual(
        report.conflicts,
        [
          { agentId: 'stale', otherId: 'd', files: ['y.txt'] },
          { agentId: 'stale', otherId: 'e', files: ['shared.txt'] },
          { agentId: 'f', otherId: 'g', files: ['c.txt'] },
          { agentId: 'stale', otherId: undefined, files: ['shared.txt'] },
        ],
        mergeTree,
      );
      assert.deepEqual(report.suggestion, {
        conflictFree: false,
        order: ['d', 'e', 'f', 'stale', 'g'],
        clean: ['d', 'e', 'f'],
        needsResolution: [
          { id: 'stale', conflictsWith: ['d', 'e'], conflictsWithBranch: true },
          { id: 'g', conflictsWith: ['f'], conflictsWithBranch: false },
        ],
      });
    }
  });

  it('against HEAD when detached; a second stale agent that merges cleanly is clean', async () => {
    branch('agents/a', 'main', { 'a.txt': lines('a1', 'fresh a', 'a3') });
    branch('agents/b', start, { 'b.txt': lines('b1', 'old b', 'b3') });
    git('checkout', '--quiet', '--detach', 'main');
    const report = await forecastRepo(new NodeGit(), repo.dir, ['stale', 'a', 'b'].map(agent));
    assert.equal(report.currentBranch, undefined);
    assert.deepEqual(report.conflicts, [{ agentId: 'stale', otherId: undefined, files: ['shared.txt'] }]);
    assert.deepEqual(report.suggestion.clean, ['a', 'b']);
    const clean = await forecastRepo(new NodeGit(), repo.dir, ['a', 'b'].map(agent));
    assert.deepEqual(clean.conflicts, []);
    assert.equal(clean.suggestion.conflictFree, true);
  });

  it('forecasts against the branch it is given, whatever the workspace has checked out', async () => {
    branch('agents/a', 'main', { 'a.txt': lines('a1', 'fresh a', 'a3') });
    // The workspace is on a branch from before main rewrote line 3: the stale agent merges cleanly with it.
    git('checkout', '--quiet', '-b', 'older', start);
    const before = recordWorkspace(repo.dir);
    const report = await forecastRepo(new NodeGit(), repo.dir, ['stale', 'a'].map(agent), 'main');
    assert.equal(report.currentBranch, 'main');
    assert.deepEqual(report.conflicts, [{ agentId: 'stale', otherId: undefined, files: ['shared.txt'] }]);
    const onHead = await forecastRepo(new NodeGit(), repo.dir, ['stale', 'a'].map(agent));
    // On older, a brings main's line 3 with it: the clash is the pair's, not the branch's.
    assert.deepEqual(onHead.conflicts, [{ agentId: 'stale', otherId: 'a', files: ['shared.txt'] }], 'against HEAD');
    assertUntouched(before, 'the workspace on another branch');
  });

  it('git processes: one cat-file and one merge-tree batch when no tips conflict; one hash-object and one more batch when some do', async () => {
    branch('agents/a', 'main', { 'a.txt': lines('a1', 'fresh a', 'a3') });
    branch('agents/b', 'main', { 'b.txt': lines('b1', 'fresh b', 'b3') });
    const runner = new CountingRunner();
    const nodeGit = new NodeGit({ runner, mergeTree: 'stdin' });
    await forecastRepo(nodeGit, repo.dir, ['a', 'b'].map(agent), 'main');
    assert.deepEqual(runner.commands.splice(0), ['cat-file', 'merge-tree']);
    const written: string[][] = [];
    for (let run = 0; run < 2; run++) {
      runner.outputs.splice(0);
      const report = await forecastRepo(nodeGit, repo.dir, ['stale', 'a', 'b'].map(agent), 'main');
      assert.deepEqual(runner.commands.splice(0), ['cat-file', 'merge-tree', 'hash-object', 'merge-tree']);
      assert.deepEqual(report.conflicts, [{ agentId: 'stale', otherId: undefined, files: ['shared.txt'] }]);
      written.push(runner.outputs[2].trim().split('\n'));
    }
    assert.deepEqual(written[1], written[0], 'the same merge commits both times');
    // The pairs stale↔a and stale↔b were asked again: the three agents, each merged into main.
    const [stale, a, b] = written[0];
    const main = sha('main');
    for (const [commit, name] of [
      [stale, 'stale'],
      [a, 'a'],
      [b, 'b'],
    ]) {
      assert.deepEqual(git('rev-parse', `${commit}^1`, `${commit}^2`).split('\n').filter(Boolean), [
        main,
        sha(`agents/${name}`),
      ]);
    }
    assert.equal(sha(`${a}^{tree}`), sha('agents/a^{tree}'));
    assert.match(
      git('show', `${stale}:shared.txt`),
      /^l1\nl2\n<<<<<<< [0-9a-f]+\nmain\n=======\nstale\n>>>>>>> [0-9a-f]+\nl4/,
    );
    assert.equal(git('for-each-ref').includes(stale), false);
  });

  it('the merges it forecasts from: commits with parents main and the agent, the same objects each time, no ref', async () => {
    const runner = new GitRunner();
    const [main, stale] = ['main', 'agents/stale'].map((r) => git('rev-parse', r).trim());
    const tree = (r: string) => git('rev-parse', `${r}^{tree}`).trim();
    const bodies = [landedCommit(tree('main'), [main, stale]), landedCommit(tree(stale), [main])];
    const refs = git('for-each-ref');
    const shas = await writeCommits(runner, repo.dir, bodies);
    assert.deepEqual(await writeCommits(runner, repo.dir, bodies), shas);
    assert.deepEqual(git('rev-parse', `${shas[0]}^1`, `${shas[0]}^2`).split('\n').filter(Boolean), [main, stale]);
    assert.equal(git('rev-parse', `${shas[1]}^{tree}`).trim(), tree(stale));
    assert.equal(git('cat-file', 'commit', shas[1]), bodies[1]);
    assert.equal(git('for-each-ref'), refs, 'no ref points at them');
    // A temporary folder with a line break in its name: the same commits, one process each.
    const odd = mkdtempSync(join(tmpdir(), 'line\nbreak-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = odd;
    try {
      assert.deepEqual(await writeCommits(runner, repo.dir, bodies), shas);
      assert.deepEqual(readdirSync(odd), [], 'its temporary files are removed');
    } finally {
      if (saved === undefined) {
        delete process.env.TMPDIR;
      } else {
        process.env.TMPDIR = saved;
      }
      rmSync(odd, { recursive: true, force: true });
    }
  });
});
