// Landing and forecasting on the real git binary, at their edges: a merge a hook stopped is undone,
// a merge over local edits is refused, unrelated histories are never "merged by content", a stash of
// no files stashes nothing, and forecasts take the cheapest way git offers (one process for many
// pairs) and get over a failed version check.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NodeGit } from '../../src/node/git/createGit';
import type { MergeTreeSupport } from '../../src/node/git/forecast';
import { assertRestored, assertUntouched, recordWorkspace } from '../harness/untouched';
import { refusal } from './refusal';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

describe('Landing and forecasts at their edges (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;

  const write = (dir: string, file: string, content: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  };
  /** A worktree on agents/<name> from main, with `files` committed. */
  const agent = (name: string, files: Record<string, string>): string => {
    const dir = path.join(root, `wt-${name}`);
    git(repo, 'worktree', 'add', '--quiet', '-b', `agents/${name}`, dir, 'main');
    for (const [file, content] of Object.entries(files)) {
      write(dir, file, content);
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', `${name} work`);
    return dir;
  };
  const commitOnMain = (file: string, content: string, message = `main: ${file}`) => {
    write(repo, file, content);
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', message);
  };

  /**
   * A git that runs the real one, except for commands whose arguments hold `words` (space-separated,
   * in order): those run `script` instead.
   */
  const gitWrapper = (name: string, words: string, script: string): string => {
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const file = path.join(root, name);
    const lines = ['#!/bin/sh', `case " $* " in *" ${words} "*) ${script};; esac`, `exec "${realGit}" "$@"`, ''];
    fs.writeFileSync(file, lines.join('\n'), { mode: 0o755 });
    return file;
  };

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-edges-')));
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.name', 'Edge Tests');
    git(repo, 'config', 'user.email', 'edges@example.invalid');
    write(repo, 'README.md', '# readme\n');
    write(repo, 'src/app.ts', 'line 1\nline 2\nline 3\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
  });

  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  describe('mergeLeavingConflicts', () => {
    it('commits the merge with the message given, or git’s own without one', async () => {
      const port = new NodeGit();
      const wt = agent('a', { 'a.txt': 'a\n' });
      commitOnMain('m1.txt', 'one\n');
      assert.deepEqual(await port.mergeLeavingConflicts(wt, 'main', 'Bring main in'), { conflicts: [] });
      assert.equal(git(wt, 'log', '-1', '--format=%B'), 'Bring main in');
      commitOnMain('m2.txt', 'two\n');
      assert.deepEqual(await port.mergeLeavingConflicts(wt, 'main'), { conflicts: [] });
      assert.equal(git(wt, 'log', '-1', '--format=%s'), "Merge branch 'main' into agents/a");
      assert.equal(git(wt, 'rev-parse', 'HEAD^2'), git(repo, 'rev-parse', 'main'));
    });

    it('undoes a merge a hook stopped without conflicts, reporting the hook’s words, the worktree as it was', async () => {
      const port = new NodeGit();
      const wt = agent('hooked', { 'a.txt': 'a\n' });
      commitOnMain('m.txt', 'main\n');
      const hook = path.join(repo, '.git', 'hooks', 'pre-merge-commit');
      fs.writeFileSync(hook, '#!/bin/sh\necho "no merges today" >&2\nexit 1\n', { mode: 0o755 });
      const before = recordWorkspace(wt);
      const e = await refusal(port.mergeLeavingConflicts(wt, 'main'), 'gitCommandFailed');
      assert.equal(e.reason, 'gitFailed');
      assert.deepEqual(e.data, { command: 'git merge', cwd: wt });
      assert.match(e.detail ?? '', /^no merges today\n/, 'the hook’s words first, then git’s');
      assert.equal(e.detail, e.detail?.trim(), 'git’s stderr, trimmed');
      assert.ok(!fs.existsSync(path.join(git(wt, 'rev-parse', '--absolute-git-dir'), 'MERGE_HEAD')), 'no merge left');
      assertRestored(before, 'the agent worktree after the stopped merge', { except: ['git dir ORIG_HEAD'] });
    });

    it('refuses a merge over uncommitted edits of a file it changes, naming it, the worktree as it was', async () => {
      const port = new NodeGit();
      const wt = agent('edits', { 'a.txt': 'a\n' });
      commitOnMain('src/app.ts', 'line 1\nmain\nline 3\n');
      write(wt, 'src/app.ts', 'line 1\nthe agent’s uncommitted edit\nline 3\n');
      const before = recordWorkspace(wt);
      const e = await refusal(port.mergeLeavingConflicts(wt, 'main', 'm'), 'mergeWouldOverwrite');
      assert.deepEqual(e.data, { cwd: wt, ref: 'main' });
      assert.match(e.detail ?? '', /src\/app\.ts/);
      // git itself (2.39, ort) leaves ORIG_HEAD and AUTO_MERGE when it refuses so; files, index, HEAD, refs stay.
      assertRestored(before, 'a refused merge', { except: ['git dir ORIG_HEAD', 'git dir AUTO_MERGE'] });
    });

    it('reports what git said on stdout when a merge stopped without a word on stderr (a wrapper stops it)', async () => {
      const wt = agent('stdout', { 'a.txt': 'a\n' });
      commitOnMain('m.txt', 'main\n');
      const port = new NodeGit({
        binary: gitWrapper('git-stdout', 'merge --no-ff', 'echo "stopped, said on stdout"; exit 1'),
      });
      const before = recordWorkspace(wt);
      const e = await refusal(port.mergeLeavingConflicts(wt, 'main'), 'gitCommandFailed');
      assert.equal(e.detail, 'stopped, said on stdout');
      assertRestored(before);
    });

    it('reports a ref that does not exist as a git failure, touching nothing', async () => {
      const port = new NodeGit();
      const wt = agent('none', { 'a.txt': 'a\n' });
      const before = recordWorkspace(wt);
      const e = await refusal(port.mergeLeavingConflicts(wt, 'agents/no-such-branch'), 'gitCommandFailed');
      assert.match(e.detail ?? '', /no-such-branch/);
      assertRestored(before);
    });
  });

  describe('isMergedByContent', () => {
    it('is false for a branch with no history in common, and for one whose changed file differs', async () => {
      const port = new NodeGit();
      git(repo, 'checkout', '--quiet', '--orphan', 'unrelated');
      git(repo, 'commit', '--quiet', '-m', 'unrelated root');
      git(repo, 'checkout', '--quiet', 'main');
      assert.equal(await port.isMergedByContent(repo, 'unrelated', 'main'), false);

      agent('open', { 'src/app.ts': 'line 1\nagent\nline 3\n' });
      assert.equal(await port.isMergedByContent(repo, 'agents/open', 'main'), false);
    });

    it('is true when merging would change nothing though a changed file differs (main went further)', async () => {
      const port = new NodeGit();
      agent('behind', { 'src/app.ts': 'line 1\nagent\nline 3\n' });
      git(repo, 'merge', '--quiet', '--no-ff', '--no-edit', 'agents/behind');
      commitOnMain('src/app.ts', 'line 1\nagent\nline 3\nmain went further\n');
      assert.equal(await port.isMergedByContent(repo, 'agents/behind', 'main'), true);
      for (const mergeTree of ['writeTree', 'none'] as const) {
        assert.equal(await new NodeGit({ mergeTree }).isMergedByContent(repo, 'agents/behind', 'main'), true);
      }
    });

    it('is true from the diffs alone when every file the branch changed is the same in the current branch', async () => {
      agent('same', { 'src/app.ts': 'line 1\nagent\nline 3\n', 'docs/new.md': 'new\n' });
      git(repo, 'merge', '--quiet', '--squash', 'agents/same');
      git(repo, 'commit', '--quiet', '-m', 'squashed');
      commitOnMain('other.txt', 'main went on elsewhere\n');
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        const before = port.runner.processCount;
        assert.equal(await port.isMergedByContent(repo, 'agents/same', 'main'), true, mergeTree);
        assert.equal(
          port.runner.processCount - before,
          3,
          `merge-base and two diffs, no merge forecast (${mergeTree})`,
        );
      }
    });

    it('is true for a squash-landed branch whose file the current branch changed further (a merge would change nothing)', async () => {
      agent('squashed', { 'src/app.ts': 'line 1\nagent\nline 3\n' });
      git(repo, 'merge', '--quiet', '--squash', 'agents/squashed');
      git(repo, 'commit', '--quiet', '-m', 'squashed');
      commitOnMain('src/app.ts', 'line 1\nagent\nline 3\nmain went further\n');
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
        assert.equal(
          await new NodeGit({ mergeTree }).isMergedByContent(repo, 'agents/squashed', 'main'),
          true,
          mergeTree,
        );
      }
    });

    it('is false when the merge is clean but would change the current branch', async () => {
      const port = new NodeGit();
      agent('more', { 'src/app.ts': 'line 1\nagent\nline 3\n' });
      commitOnMain('other.txt', 'main\n');
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
        assert.equal(await new NodeGit({ mergeTree }).isMergedByContent(repo, 'agents/more', 'main'), false);
      }
      assert.equal(await port.isMergedByContent(repo, 'agents/more', 'main'), false);
    });
  });

  describe('restoreFile', () => {
    it('takes a name that only starts with two dots for a file of the folder', async () => {
      const port = new NodeGit();
      const wt = agent('dots', { '..notes': 'added\n', 'src/..draft': 'added\n' });
      const main = git(repo, 'rev-parse', 'main');
      await port.restoreFile(wt, main, '..notes');
      await port.restoreFile(path.join(wt, 'src'), main, '..draft');
      assert.ok(!fs.existsSync(path.join(wt, '..notes')));
      assert.ok(!fs.existsSync(path.join(wt, 'src/..draft')));
      assert.equal(git(wt, 'status', '--porcelain'), 'D ..notes\n D src/..draft');
      for (const bad of ['..', 'src/../..']) {
        const e = await refusal(port.restoreFile(wt, main, bad), 'fileOutsideFolder');
        assert.deepEqual(e.data, { path: bad, cwd: wt });
      }
    });

    it('deletes a file the commit lacks that git does not track, and its folder left empty', async () => {
      const port = new NodeGit();
      const wt = agent('untracked', { 'a.txt': 'a\n' });
      write(wt, 'draft.txt', 'not yet added\n');
      write(wt, 'notes/only.md', 'not yet added\n');
      const main = git(repo, 'rev-parse', 'main');
      await port.restoreFile(wt, main, 'draft.txt');
      await port.restoreFile(wt, main, 'notes/only.md');
      assert.ok(!fs.existsSync(path.join(wt, 'draft.txt')));
      assert.ok(!fs.existsSync(path.join(wt, 'notes')));
      assert.equal(git(wt, 'status', '--porcelain'), '');
    });

    it('a file neither the commit nor the folder has: nothing to do, nothing touched', async () => {
      const port = new NodeGit();
      const wt = agent('absent', { 'a.txt': 'a\n' });
      const before = recordWorkspace(wt);
      await port.restoreFile(wt, git(repo, 'rev-parse', 'main'), 'docs/never.md');
      assertUntouched(before);
    });

    it('named from a subfolder, deletes an added file there but never that subfolder, nor the folders above', async () => {
      const port = new NodeGit();
      const wt = agent('sub', { 'docs/only.md': 'added\n', 'docs/deep/er/file.md': 'added\n' });
      const main = git(repo, 'rev-parse', 'main');
      await port.restoreFile(path.join(wt, 'docs', 'deep'), main, 'er/file.md');
      assert.ok(!fs.existsSync(path.join(wt, 'docs/deep/er')), 'the folder it left empty goes');
      assert.ok(fs.statSync(path.join(wt, 'docs/deep')).isDirectory(), 'the folder named goes not, though empty');
      assert.equal(fs.readFileSync(path.join(wt, 'docs/only.md'), 'utf8'), 'added\n');
    });
  });

  describe('isMergedByContent, conflicts', () => {
    it('is false for a branch that deleted a file the current branch edited since (its merge conflicts)', async () => {
      const wt = path.join(root, 'wt-deletes');
      git(repo, 'worktree', 'add', '--quiet', '-b', 'agents/deletes', wt, 'main');
      git(wt, 'rm', '--quiet', 'src/app.ts');
      git(wt, 'commit', '--quiet', '-m', 'delete app.ts');
      commitOnMain('src/app.ts', 'line 1\nedited on main\nline 3\n');
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        assert.deepEqual(await port.forecastMerge(repo, 'main', 'agents/deletes'), {
          clean: false,
          conflicts: ['src/app.ts'],
        });
        assert.equal(await port.isMergedByContent(repo, 'agents/deletes', 'main'), false, mergeTree);
      }
    });
  });

  describe('stashFiles', () => {
    it('stashes nothing when given no files, and only the files given otherwise, untracked included', async () => {
      const port = new NodeGit();
      const wt = agent('stash', { 'a.txt': 'a\n' });
      write(wt, 'README.md', 'edited\n');
      write(wt, 'new.txt', 'untracked\n');
      write(wt, 'src/app.ts', 'kept in place\n');
      const before = recordWorkspace(wt);
      await port.stashFiles(wt, [], 'nothing');
      assertUntouched(before, 'a stash of no files');
      assert.equal(git(wt, 'stash', 'list'), '');

      await port.stashFiles(wt, ['README.md', 'new.txt'], 'parked by the test');
      assert.match(git(wt, 'stash', 'list'), /^stash@\{0\}: On agents\/stash: parked by the test$/);
      assert.equal(git(wt, 'status', '--porcelain'), 'M src/app.ts');
      assert.equal(fs.readFileSync(path.join(wt, 'README.md'), 'utf8'), '# readme\n');
      assert.ok(!fs.existsSync(path.join(wt, 'new.txt')));
      assert.equal(git(wt, 'show', 'stash@{0}^3:new.txt'), 'untracked');
    });
  });

  describe('forecasts', () => {
    /** Four branches, two of them editing the same line: six pairs. */
    const pairs = (): [string, string][] => {
      agent('b0', { 'src/app.ts': 'line 1\nA\nline 3\n' });
      agent('b1', { 'src/app.ts': 'line 1\nB\nline 3\n' });
      agent('b2', { 'docs/c.md': 'c\n' });
      agent('b3', { 'docs/d.md': 'd\n' });
      const names = ['agents/b0', 'agents/b1', 'agents/b2', 'agents/b3'];
      return names.flatMap((a, i) => names.slice(i + 1).map((b): [string, string] => [a, b]));
    };
    /** The forecasts and how many git processes they took. */
    const counted = async (port: NodeGit, run: (p: NodeGit) => Promise<unknown>) => {
      const before = port.runner.processCount;
      const result = await run(port);
      return { result, processes: port.runner.processCount - before };
    };

    it('detects merge-tree --stdin on this git: many pairs in one merge-tree process, one pair without a name lookup', async function () {
      const version = git(repo, 'version');
      const [major, minor] = (/(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
      if (major < 2 || (major === 2 && minor < 39)) {
        this.skip();
      }
      const all = pairs();
      const forced = async (mergeTree?: MergeTreeSupport) => {
        const port = new NodeGit({ mergeTree });
        await port.runner.version(repo);
        return {
          many: await counted(port, (p) => p.forecastMany(repo, all)),
          one: await counted(port, (p) => p.forecastMerge(repo, all[0][0], all[0][1])),
        };
      };
      const detected = await forced();
      const stdin = await forced('stdin');
      const perPair = await forced('writeTree');
      assert.deepEqual(detected.many.result, perPair.many.result);
      assert.deepEqual(detected.one.result, { clean: false, conflicts: ['src/app.ts'] });
      // cat-file for the names, then one merge-tree for all six pairs.
      assert.equal(detected.many.processes, 2);
      assert.equal(stdin.many.processes, 2);
      assert.equal(perPair.many.processes, all.length);
      // One pair: one merge-tree, which looks the names up itself.
      assert.equal(detected.one.processes, 1);
      assert.equal(stdin.one.processes, 1);
    });

    it('on an older git (its version answer changed by a wrapper that runs the real git): merge-tree per pair, or trial merges', async () => {
      const all = pairs();
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      const expected = await new NodeGit({ mergeTree: 'writeTree' }).forecastMany(repo, all);
      const older = (version: string) => {
        const wrapper = path.join(root, `git-${version}`);
        const script = `#!/bin/sh\nif [ "$1" = version ]; then echo "git version ${version}"; exit 0; fi\nexec "${realGit}" "$@"\n`;
        fs.writeFileSync(wrapper, script, { mode: 0o755 });
        return new NodeGit({ binary: wrapper });
      };
      for (const [version, processes] of [
        ['2.39.0', (n: number) => n === 2],
        ['2.38.9', (n: number) => n === all.length],
        ['2.38.0', (n: number) => n === all.length],
        ['2.37.7', (n: number) => n > 3 * all.length],
        ['1.99.0', (n: number) => n > 3 * all.length],
      ] as const) {
        const port = older(version);
        assert.deepEqual(await port.runner.version(repo), version.split('.').map(Number));
        const run = await counted(port, (p) => p.forecastMany(repo, all));
        assert.deepEqual(run.result, expected, version);
        assert.ok(processes(run.processes), `git ${version}: ${run.processes} processes`);
      }
    });

    it('forecasts in a repository of SHA-256 object names, every way', async () => {
      const sha256 = path.join(root, 'sha256');
      fs.mkdirSync(sha256);
      git(sha256, 'init', '--quiet', '--object-format=sha256', '--initial-branch=main');
      git(sha256, 'config', 'user.name', 'Edge Tests');
      git(sha256, 'config', 'user.email', 'edges@example.invalid');
      const commit = (branch: string, file: string, content: string) => {
        git(sha256, 'checkout', '--quiet', '-B', branch, 'main');
        write(sha256, file, content);
        git(sha256, 'add', '-A');
        git(sha256, 'commit', '--quiet', '-m', `${branch} ${file}`);
      };
      write(sha256, 'a.txt', 'one\n');
      git(sha256, 'add', '-A');
      git(sha256, 'commit', '--quiet', '-m', 'initial');
      commit('left', 'a.txt', 'left\n');
      commit('right', 'a.txt', 'right\n');
      commit('other', 'b.txt', 'b\n');
      git(sha256, 'checkout', '--quiet', 'main');
      const asked: [string, string][] = [
        ['left', 'right'],
        ['left', 'other'],
      ];
      for (const mergeTree of ['stdin', 'writeTree', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        assert.deepEqual(
          await port.forecastMany(sha256, asked),
          [
            { clean: false, conflicts: ['a.txt'] },
            { clean: true, conflicts: [] },
          ],
          mergeTree,
        );
        assert.deepEqual(await port.forecastMerge(sha256, 'left', 'other'), { clean: true, conflicts: [] });
      }
    });

    it('an answer of merge-tree that cannot be read is reported, naming the repository (a wrapper cuts the real answer)', async () => {
      const all = pairs();
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      const wrapper = (name: string, onMergeTree: string) => {
        const file = path.join(root, name);
        const script = [
          '#!/bin/sh',
          `case " $* " in *" merge-tree "*) ${onMergeTree};; esac`,
          `exec "${realGit}" "$@"`,
          '',
        ].join('\n');
        fs.writeFileSync(file, script, { mode: 0o755 });
        return file;
      };
      const cut = new NodeGit({
        binary: wrapper('git-cut', `"${realGit}" "$@" | head -c 50; exit 0`),
        mergeTree: 'stdin',
      });
      const unreadable = await refusal(cut.forecastMany(repo, all), 'mergeTreeUnreadable');
      assert.deepEqual(unreadable.data, { repoRoot: repo });
      assert.match(
        unreadable.detail ?? '',
        /^mergeTreeOutput(Truncated|Unexpected) /,
        'the parser says what was wrong',
      );

      const silent = new NodeGit({ binary: wrapper('git-silent', 'exit 1'), mergeTree: 'writeTree' });
      const noTree = await refusal(silent.forecastMerge(repo, 'agents/b0', 'agents/b2'), 'gitCommandFailed');
      assert.match(noTree.detail ?? '', /no tree in the answer of git merge-tree agents\/b0 agents\/b2/);
    });

    it('by trial merges: a trial worktree git fails to remove is logged, deleted and unregistered all the same', async () => {
      const all = pairs();
      const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
      const wrapper = path.join(root, 'git-no-remove');
      const script = `#!/bin/sh\ncase " $* " in *" worktree remove "*) echo "refused by the test" >&2; exit 1;; esac\nexec "${realGit}" "$@"\n`;
      fs.writeFileSync(wrapper, script, { mode: 0o755 });
      const warnings: string[] = [];
      const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
      const port = new NodeGit({ binary: wrapper, mergeTree: 'none', logger });
      assert.deepEqual(await port.forecastMany(repo, all), await new NodeGit().forecastMany(repo, all));
      const removal = warnings.filter((w) => w.includes('removing the trial-merge worktree'));
      assert.equal(removal.length, 1, warnings.join('\n'));
      assert.match(removal[0], /pa-trial-[^ ]*worktree: git worktree remove failed — .*refused by the test/);
      const trial = /(\S*pa-trial-[^ /]*)/.exec(removal[0])?.[1] ?? '';
      assert.ok(trial !== '' && !fs.existsSync(trial), 'the trial folder is deleted all the same');
      assert.doesNotMatch(git(repo, 'worktree', 'list'), /pa-trial-/, 'and no registration is left');
    });

    it('asks for the git version again after a failed check, and forecasts once git answers', async () => {
      const port = new NodeGit();
      const missing = path.join(root, 'no-such-folder');
      await assert.rejects(port.forecastMerge(missing, 'main', 'main'));
      const before = port.runner.processCount;
      assert.deepEqual(await port.forecastMerge(repo, 'main', 'main'), { clean: true, conflicts: [] });
      const [major, minor] = (/(\d+)\.(\d+)/.exec(git(repo, 'version')) ?? []).slice(1).map(Number);
      if (major > 2 || (major === 2 && minor >= 38)) {
        assert.equal(port.runner.processCount - before, 2, 'git version, then one merge-tree: not the trial merges');
      }
    });

    it('by trial merges: runs no hook of the repository, records nothing for rerere, leaves no worktree', async () => {
      const all = pairs();
      const marker = path.join(root, 'hook-ran');
      for (const hook of ['post-checkout', 'pre-merge-commit', 'post-merge', 'prepare-commit-msg']) {
        fs.writeFileSync(path.join(repo, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> "${marker}"\n`, {
          mode: 0o755,
        });
      }
      git(repo, 'config', 'rerere.enabled', 'true');
      const worktrees = git(repo, 'worktree', 'list', '--porcelain');
      const before = recordWorkspace(repo);
      // A temporary folder of its own, where other runs make no trial folders: what is left there is this one's.
      const temp = path.join(root, 'tmp');
      fs.mkdirSync(temp);
      const tmpdir = process.env.TMPDIR;
      process.env.TMPDIR = temp;
      const trial = await new NodeGit({ mergeTree: 'none' })
        .forecastMany(repo, all)
        .finally(() => (tmpdir === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = tmpdir)));
      assert.deepEqual(fs.readdirSync(temp), [], 'the trial folder is deleted');
      assert.deepEqual(trial, await new NodeGit({ mergeTree: 'writeTree' }).forecastMany(repo, all));
      assert.ok(!fs.existsSync(marker), fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '');
      assert.ok(!fs.existsSync(path.join(repo, '.git', 'rr-cache')), 'no rerere record');
      assert.equal(git(repo, 'worktree', 'list', '--porcelain'), worktrees);
      assertUntouched(before, 'the main worktree during trial merges');
    });

    it('refuses names that are empty or hold a line break, naming them, before asking git', async () => {
      pairs();
      for (const mergeTree of ['stdin', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        for (const bad of ['', 'agents/b0\nagents/b1', 'agents/b1\r']) {
          await port.runner.version(repo);
          const processes = port.runner.processCount;
          const e = await refusal(
            port.forecastMany(repo, [
              ['agents/b0', 'agents/b1'],
              ['agents/b2', bad],
            ]),
            'unknownCommit',
          );
          assert.deepEqual(e.data, { ref: bad, repoRoot: repo });
          assert.equal(port.runner.processCount, processes, 'git is not asked');
        }
        const missing = await refusal(
          port.forecastMany(repo, [
            ['agents/b0', 'agents/b1'],
            ['agents/b2', 'agents/none'],
          ]),
          'unknownCommit',
        );
        assert.deepEqual(missing.data, { ref: 'agents/none', repoRoot: repo });
      }
    });

    it('no pairs: no forecasts and no git process, whatever the way', async () => {
      for (const mergeTree of [undefined, 'stdin', 'writeTree', 'none'] as const) {
        const port = new NodeGit({ mergeTree });
        const { result, processes } = await counted(port, (p) => p.forecastMany(repo, []));
        assert.deepEqual(result, []);
        assert.equal(processes, 0, String(mergeTree));
      }
    });
  });
});
