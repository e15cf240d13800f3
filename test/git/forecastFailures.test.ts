// Forecasts on the real git binary when git answers badly or fails half way: an answer of merge-tree
// without a tree, a trial merge (git < 2.38) that stops without conflicts, fails to stage or to
// write its tree, a trial worktree git cannot add; and what forecasts cost and wait for (the write
// queue, the ways taken for commits already resolved). Wrappers stand in for git where a real git
// would need a broken repository; they run the real git for everything else.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeGit } from '../../src/node/git/createGit';
import { MergeForecaster, type MergeTreeSupport } from '../../src/node/git/forecast';
import { GitRunner } from '../../src/node/git/runner';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { refusal } from './refusal';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const hex40 = 'a'.repeat(40);

describe('Forecasts when git answers badly or fails half way (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;

  const write = (dir: string, file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  };
  /** Branch agents/<name> from main with `files` committed; the main worktree stays on main. */
  const branch = (name: string, files: Record<string, string>) => {
    git(repo, 'checkout', '--quiet', '-b', `agents/${name}`, 'main');
    for (const [file, content] of Object.entries(files)) {
      write(repo, file, content);
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', name);
    git(repo, 'checkout', '--quiet', 'main');
  };
  /** Two agents editing line 2 of app.ts differently, and main editing it too: every merge among them conflicts. */
  const allConflict = () => {
    branch('b0', { 'src/app.ts': 'line 1\nA\nline 3\n' });
    branch('b1', { 'src/app.ts': 'line 1\nB\nline 3\n' });
    write(repo, 'src/app.ts', 'line 1\nmain\nline 3\n');
    git(repo, 'commit', '--quiet', '--all', '-m', 'main edits line 2');
  };
  /**
   * A git that runs the real one, except for commands whose arguments hold `words` (space-separated,
   * in order): those run `script` (sh) instead; the real git is "$real".
   */
  const wrapper = (name: string, words: string, script: string): string => {
    const file = path.join(root, name);
    const lines = [
      '#!/bin/sh',
      `real="${realGit}"`,
      `case " $* " in *" ${words} "*) ${script};; esac`,
      'exec "$real" "$@"',
      '',
    ];
    fs.writeFileSync(file, lines.join('\n'), { mode: 0o755 });
    return file;
  };

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-forecast-failures-')));
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.name', 'Forecast Tests');
    git(repo, 'config', 'user.email', 'forecast@example.invalid');
    write(repo, 'src/app.ts', 'line 1\nline 2\nline 3\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
  });

  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  describe('merge-tree per pair', () => {
    it('refuses an answer whose tree is not an object name, whole, naming the pair', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      for (const answer of ['not-a-tree', `zz${hex40}`, `${hex40}zz`, hex40.slice(1)]) {
        const port = new NodeGit({
          binary: wrapper('git-tree', 'merge-tree', `printf '%s\\0' '${answer}'; exit 0`),
          mergeTree: 'writeTree',
        });
        const e = await refusal(port.forecastMerge(repo, 'main', 'agents/b0'), 'gitCommandFailed');
        assert.equal(e.reason, 'gitFailed', answer);
        assert.equal(e.detail, 'no tree in the answer of git merge-tree main agents/b0', answer);
      }
    });

    it('reports git’s stderr, trimmed, and a stderr of only white space as no answer', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      const said = (stderr: string) =>
        new NodeGit({
          binary: wrapper('git-said', 'merge-tree', `printf '${stderr}' >&2; exit 1`),
          mergeTree: 'writeTree',
        });
      const told = await refusal(
        said('refused by the test\\n').forecastMerge(repo, 'main', 'agents/b0'),
        'gitCommandFailed',
      );
      assert.equal(told.detail, 'refused by the test');
      const blank = await refusal(said(' \\n').forecastMerge(repo, 'main', 'agents/b0'), 'gitCommandFailed');
      assert.equal(blank.detail, 'no tree in the answer of git merge-tree main agents/b0');
    });
  });

  describe('trial merges (git < 2.38)', () => {
    it('a merge git stops without conflicts is reported with what git said, stderr before stdout', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      branch('b1', { 'b.txt': 'b\n' });
      const pairs: [string, string][] = [
        ['main', 'agents/b0'],
        ['main', 'agents/b1'],
      ];
      for (const [script, detail] of [
        ['echo "said on stdout"; echo "stopped by the test" >&2; exit 1', 'stopped by the test'],
        ['echo "only on stdout"; exit 1', 'only on stdout'],
      ]) {
        const port = new NodeGit({ binary: wrapper('git-merge', 'merge --no-commit', script), mergeTree: 'none' });
        const before = recordWorkspace(repo);
        const e = await refusal(port.forecastMany(repo, pairs), 'gitCommandFailed');
        assert.equal(e.detail, detail);
        assert.equal(e.reason, 'gitFailed');
        assert.equal((e.data as { command?: string }).command, 'git merge', 'the command, not the settings before it');
        assertUntouched(before);
        assert.doesNotMatch(git(repo, 'worktree', 'list'), /pa-trial-/);
      }
    });

    it('one pair too is forecast by a trial merge, never by merge-tree (a wrapper refuses it, as git < 2.38 would)', async () => {
      branch('b0', { 'src/app.ts': 'line 1\nA\nline 3\n' });
      branch('b1', { 'src/app.ts': 'line 1\nB\nline 3\n' });
      const refusing = 'echo "error: unknown option write-tree" >&2; exit 129';
      const port = new NodeGit({ binary: wrapper('git-old', 'merge-tree', refusing), mergeTree: 'none' });
      assert.deepEqual(await port.forecastMerge(repo, 'agents/b0', 'agents/b1'), {
        clean: false,
        conflicts: ['src/app.ts'],
      });
      assert.deepEqual(await port.forecastMerge(repo, 'main', 'agents/b0'), { clean: true, conflicts: [] });
    });

    it('a trial worktree git cannot add is a worktree failure', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      branch('b1', { 'b.txt': 'b\n' });
      const port = new NodeGit({
        binary: wrapper('git-no-add', 'worktree add', 'echo "no worktrees today" >&2; exit 1'),
        mergeTree: 'none',
      });
      const e = await refusal(
        port.forecastMany(repo, [
          ['main', 'agents/b0'],
          ['main', 'agents/b1'],
        ]),
        'worktreeCommandFailed',
      );
      assert.equal(e.reason, 'worktreeFailed');
      assert.equal(e.detail, 'no worktrees today');
    });

    it('a conflicted merge whose staging git reports failed has no tree: Forecast Conflicts says so', async () => {
      allConflict();
      // The real add stages everything, then the wrapper reports a failure all the same.
      const port = new NodeGit({ binary: wrapper('git-add', 'add --all', '"$real" "$@"; exit 1'), mergeTree: 'none' });
      const e = await refusal(port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']), 'gitCommandFailed');
      assert.match(e.detail ?? '', /^no tree for the merge of agents\/b[01]$/);
    });

    it('a conflicted merge whose tree git fails to write has no tree: Forecast Conflicts says so', async () => {
      allConflict();
      // write-tree fails right after each add --all (only conflicted trial merges stage with add).
      const marker = path.join(root, 'staged');
      const script = [
        `if [ "$1" = add ]; then touch "${marker}"; fi`,
        `if [ "$1" = write-tree ] && [ -e "${marker}" ]; then rm "${marker}"; exit 1; fi`,
        'exec "$real" "$@"',
      ].join('\n');
      const file = path.join(root, 'git-write-tree');
      fs.writeFileSync(file, `#!/bin/sh\nreal="${realGit}"\n${script}\n`, { mode: 0o755 });
      const port = new NodeGit({ binary: file, mergeTree: 'none' });
      const e = await refusal(port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']), 'gitCommandFailed');
      assert.match(e.detail ?? '', /^no tree for the merge of agents\/b[01]$/);
    });

    it('a trial worktree git fails to remove, with no logger to tell: the forecast stands all the same', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      branch('b1', { 'b.txt': 'b\n' });
      const pairs: [string, string][] = [
        ['main', 'agents/b0'],
        ['agents/b0', 'agents/b1'],
      ];
      const port = new NodeGit({ binary: wrapper('git-no-remove', 'worktree remove', 'exit 1'), mergeTree: 'none' });
      assert.deepEqual(await port.forecastMany(repo, pairs), [
        { clean: true, conflicts: [] },
        { clean: true, conflicts: [] },
      ]);
      assert.doesNotMatch(git(repo, 'worktree', 'list'), /pa-trial-/);
    });

    it('a trial merge that goes well logs nothing', async () => {
      allConflict();
      const warnings: string[] = [];
      const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
      const port = new NodeGit({ mergeTree: 'none', logger });
      const forecast = await port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']);
      assert.deepEqual(
        forecast,
        await new NodeGit({ mergeTree: 'writeTree' }).forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']),
      );
      assert.deepEqual(warnings, []);
    });
  });

  describe('the write queue', () => {
    for (const way of ['forecastMany', 'forecastAgents'] as const) {
      it(`trial merges (${way}) wait for the repository’s writes: their worktree add and remove are writes`, async () => {
        branch('b0', { 'a.txt': 'a\n' });
        branch('b1', { 'b.txt': 'b\n' });
        const port = new NodeGit({ mergeTree: 'none' });
        const run = () =>
          way === 'forecastMany'
            ? port.forecastMany(repo, [
                ['main', 'agents/b0'],
                ['main', 'agents/b1'],
              ])
            : port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']);
        const expected = await run();
        let release = () => {};
        let entered = () => {};
        const holding = new Promise<void>((resolve) => (entered = resolve));
        const held = port.runner.write(repo, async () => {
          entered();
          await new Promise<void>((resolve) => (release = resolve));
        });
        await holding;
        const before = port.runner.processCount;
        const forecast = run();
        // The names are looked up (one cat-file, not a write); then nothing until the write ends.
        const deadline = Date.now() + 10_000;
        while (port.runner.processCount === before && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        assert.equal(port.runner.processCount - before, 1, 'only the name lookup ran while the write held the queue');
        release();
        await held;
        assert.deepEqual(await forecast, expected);
      });
    }
  });

  describe('what forecasts cost', () => {
    it('Forecast Conflicts with merge-tree per pair: one cat-file, then one merge-tree per merge', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      branch('b1', { 'b.txt': 'b\n' });
      const port = new NodeGit({ mergeTree: 'writeTree' });
      const before = port.runner.processCount;
      const forecast = await port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']);
      const clean = { clean: true, conflicts: [] };
      assert.deepEqual(forecast, { landing: [clean, clean], pairs: [clean] });
      assert.equal(port.runner.processCount - before, 1 + 3, 'the pair and both landings');
    });

    it('commits already resolved, no pairs: no forecasts and no git process, every way', async () => {
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as MergeTreeSupport[]) {
        const runner = new GitRunner();
        const forecaster = new MergeForecaster(runner, mergeTree);
        assert.deepEqual(await forecaster.forecastCommits(repo, []), [], mergeTree);
        assert.deepEqual(await forecaster.forecastCommits(repo, [], true), [], mergeTree);
        assert.equal(runner.processCount, 0, mergeTree);
      }
    });

    it('a name git does not know is refused by name, the first one too', async () => {
      branch('b0', { 'a.txt': 'a\n' });
      for (const mergeTree of ['stdin', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        const e = await refusal(
          port.forecastMany(repo, [
            ['agents/none', 'agents/b0'],
            ['main', 'agents/b0'],
          ]),
          'unknownCommit',
        );
        assert.deepEqual(e.data, { ref: 'agents/none', repoRoot: repo }, mergeTree);
      }
    });
  });
});
