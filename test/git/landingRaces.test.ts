// Landings that the forecast said were clean and that git still stops (src/node/git/merge.ts): a
// rebase replaying a commit that conflicts although the branch's sum does not, and the current
// branch moving between the forecast and the merge (a git that commits on it first, then runs the
// real command). Each is undone before it is reported; what is left is checked file by file.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { NodeGit } from '../../src/node/git/createGit';
import { assertRestored, assertUntouched, recordWorkspace } from '../harness/untouched';
import { commitAll, git, LandingRepo, write } from './landingRepo';
import { rejection } from './refusal';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

describe('landings git stops after a clean forecast: undone, then reported', function () {
  this.timeout(60_000);
  let fx: LandingRepo;
  let root: string;
  let repo: string;
  const agent = (name: string, files: Record<string, string>) => fx.agent(name, files);
  /**
   * A git that runs the real one, except for commands whose arguments hold `words` (space-separated,
   * in order): those run `script` (sh) first, then the real command; the real git is "$real".
   */
  const wrapper = (words: string, script: string): string => {
    const file = path.join(root, `git-${words.replace(/\W+/g, '-')}`);
    const lines = [
      '#!/bin/sh',
      `real="${realGit}"`,
      `case " $* " in *" ${words} "*) ${script};; esac`,
      'exec "$real" "$@"',
    ];
    fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o755 });
    return file;
  };
  /** Commits `text` as app.ts on main, from inside a wrapped command (git's own variables unset). */
  const commitOnMain = (text: string) =>
    [
      'unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX',
      `printf '${text}' > "${repo}/app.ts"`,
      `"$real" -C "${repo}" commit -q -am "main moved during the landing"`,
    ].join('; ');

  beforeEach(() => {
    fx = new LandingRepo('pa-races-', {}, { 'notes.txt': 'the user’s untracked notes\n' });
    ({ root, repo } = fx);
  });

  afterEach(() => fx.dispose());

  const landing = () => new NodeGit();

  it('rebase: a commit of the branch that conflicts on replay, though the branch as a whole does not: aborted, conflicts named', async () => {
    // The agent rewrote line 2, then put it back; main rewrote line 2 too. Merged whole: clean.
    const wt = agent('flipflop', { 'feature.ts': 'export const f = 1;\n', 'app.ts': 'line 1\nagent\nline 3\n' });
    write(wt, 'app.ts', 'line 1\nline 2\nline 3\n');
    commitAll(wt, 'puts line 2 back');
    write(repo, 'app.ts', 'line 1\nmain\nline 3\n');
    commitAll(repo, 'main rewrites line 2');
    const landing = new NodeGit();
    assert.deepEqual(await landing.forecastMerge(repo, 'main', 'agents/flipflop'), { clean: true, conflicts: [] });
    const tip = git(repo, 'rev-parse', 'agents/flipflop');
    const [mainBefore, agentBefore] = [recordWorkspace(repo), recordWorkspace(wt)];

    assert.deepEqual(await landing.land(repo, wt, 'agents/flipflop', 'rebase', 'x'), {
      ok: false,
      conflicts: ['app.ts'],
    });
    assert.equal(git(repo, 'rev-parse', 'agents/flipflop'), tip);
    assertRestored(agentBefore, 'the agent worktree: the rebase aborted');
    assertUntouched(mainBefore, 'the workspace');
  });

  it('names each file a landing would overwrite once, changed, untracked or ignored, and none of the user’s other files', async () => {
    write(repo, '.gitignore', '*.log\n.env\n');
    commitAll(repo, 'ignores');
    const wt = agent('wide', { 'app.ts': 'line 1\nagent\nline 3\n', 'feature.ts': 'f\n', 'absent.ts': 'a\n' });
    write(wt, '.env', 'TOKEN=agent\n');
    git(wt, 'add', '--force', '.env');
    git(wt, 'commit', '-q', '-m', 'the agent commits a .env');
    write(repo, 'app.ts', 'line 1\nline 2\nline 3, the user’s edit\n');
    write(repo, 'README.md', '# the user’s edit of a file the landing leaves alone\n');
    write(repo, 'feature.ts', 'the user’s untracked feature.ts\n');
    write(repo, '.env', 'TOKEN=the user’s\n');
    write(repo, 'debug.log', 'ignored, and not in the landing\n');
    const before = recordWorkspace(repo);

    const error = await rejection(landing().land(repo, wt, 'agents/wide', 'merge', 'x'), 'dirtyWorkspace');
    assert.ok(AgentError.isCode(error, 'landingWouldOverwrite'), String(error));
    const { files } = error.data as { files: readonly string[] };
    assert.deepEqual([...files].sort(), ['.env', 'app.ts', 'feature.ts']);
    assertUntouched(before);
  });

  it('squash: a squash git reports failed (exit 1, no conflict) after writing the index and files is put back', async () => {
    const wt = agent('squashed', { 'feature.ts': 'export const f = 1;\n', 'app.ts': 'line 1\nagent\nline 3\n' });
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    const before = recordWorkspace(repo);
    const failing = new NodeGit({ binary: wrapper('merge --squash', '"$real" "$@"; echo "squash: no" >&2; exit 1') });

    const error = await rejection(failing.land(repo, wt, 'agents/squashed', 'squash', 'Land'), 'gitFailed');
    assert.match(error.detail ?? '', /squash: no$/);
    assert.equal(git(repo, 'status', '--porcelain=v1', '--untracked-files=all'), '');
    assertRestored(before, 'the workspace: no squash left in the index or the files');
  });

  it('on git < 2.38 (trial merges) a landing forecasts inside the write queue it already holds, and lands', async () => {
    const wt = agent('trial', { 'feature.ts': 'export const f = 1;\n' });
    write(repo, 'README.md', '# main moved on\n');
    commitAll(repo, 'main moves on');
    const outcome = await new NodeGit({ mergeTree: 'none' }).land(repo, wt, 'agents/trial', 'merge', 'Land');
    assert.deepEqual(outcome, { ok: true, sha: git(repo, 'rev-parse', 'HEAD') });
    assert.equal(git(repo, 'log', '-1', '--format=%s'), 'Land');
    assert.doesNotMatch(git(repo, 'worktree', 'list'), /pa-trial-/);
  });

  it('a step git stops without conflicts is reported by that step, in its folder, with what git said: stderr first, trimmed, cut at 4000', async () => {
    const long = 'x'.repeat(5000);
    const cases = [
      { strategy: 'merge', words: 'merge --no-ff', script: 'echo "  said on stdout  "', said: 'said on stdout' },
      {
        strategy: 'merge',
        words: 'merge --no-ff',
        script: 'echo out; echo " said on stderr " >&2',
        said: 'said on stderr',
      },
      { strategy: 'merge', words: 'merge --no-ff', script: `printf '${long}' >&2`, said: long.slice(0, 4000) },
      { strategy: 'squash', words: 'merge --squash', script: 'echo "squash: no" >&2; exit 2', said: 'squash: no' },
      {
        strategy: 'squash',
        words: 'commit --quiet',
        script: 'echo "commit: no" >&2',
        said: 'commit: no',
        step: 'commit',
      },
      { strategy: 'rebase', words: 'rebase main', script: 'echo "rebase: no" >&2', said: 'rebase: no', step: 'rebase' },
      { strategy: 'rebase', words: 'merge --ff-only', script: 'echo "ff: no" >&2', said: 'ff: no' },
    ] as const;
    for (const [n, { strategy, words, script, said, ...rest }] of cases.entries()) {
      const wt = agent(`${strategy}-${n}`, { [`feature-${n}.ts`]: 'export const f = 1;\n' });
      write(repo, 'README.md', `# main moved on ${n}\n`);
      commitAll(repo, 'main moves on');
      const step = 'step' in rest ? rest.step : 'merge';
      const tip = git(repo, 'rev-parse', `agents/${strategy}-${n}`);
      const [before, agentBefore] = [recordWorkspace(repo), recordWorkspace(wt)];
      const landing = new NodeGit({ binary: wrapper(words, `${script}; exit 1`) });

      const error = await rejection(landing.land(repo, wt, `agents/${strategy}-${n}`, strategy, 'Land'), 'gitFailed');
      const what = `${strategy}, ${step} stopped by: ${script.slice(0, 40)}`;
      assert.ok(AgentError.isCode(error, 'gitCommandFailed'), what);
      assert.equal(error.detail, said, what);
      assert.deepEqual(error.data, { command: `git ${step}`, cwd: step === 'rebase' ? wt : repo }, what);
      assert.equal(git(repo, 'rev-parse', `agents/${strategy}-${n}`), tip, `${what}: the agent branch where it was`);
      assertRestored(agentBefore, `${what}: the agent worktree`);
      if (step === 'commit') {
        // The squash itself ran, then was put back.
        assertRestored(before, `${what}: the workspace`);
      } else {
        assertUntouched(before, `${what}: the workspace`);
      }
    }
  });

  for (const strategy of ['merge', 'squash', 'rebase'] as const) {
    it(`${strategy}: a file the landing adds, made untracked after the forecast, is refused by git and kept`, async () => {
      const wt = agent(strategy, { 'feature.ts': 'export const f = 1;\n' });
      write(repo, 'README.md', '# main moved on\n');
      commitAll(repo, 'main moves on');
      const words = { merge: 'merge --no-ff', squash: 'merge --squash', rebase: 'merge --ff-only' }[strategy];
      const mine = 'the user’s own feature.ts';
      const landing = new NodeGit({ binary: wrapper(words, `printf '${mine}' > "${repo}/feature.ts"`) });
      const [before, agentBefore] = [recordWorkspace(repo), recordWorkspace(wt)];
      const tip = git(repo, 'rev-parse', `agents/${strategy}`);

      const error = await rejection(landing.land(repo, wt, `agents/${strategy}`, strategy, 'Land'), 'dirtyWorkspace');
      assert.ok(AgentError.isCode(error, 'changesWouldBeOverwritten'), String(error));
      assert.deepEqual(error.data, { cwd: repo });
      assert.match(error.detail ?? '', /feature\.ts/);
      assert.equal(fs.readFileSync(path.join(repo, 'feature.ts'), 'utf8'), mine);
      // git writes ORIG_HEAD (and refreshes the index) before it refuses.
      assertRestored(before, `the workspace after the ${strategy}, but for the file made during it`, {
        except: ['file feature.ts', 'git dir ORIG_HEAD'],
      });
      assert.equal(git(repo, 'rev-parse', `agents/${strategy}`), tip, 'the agent branch where it was');
      assertRestored(agentBefore, `the agent worktree after the ${strategy}`);
    });
  }

  for (const [strategy, exit] of [
    ['merge', ''],
    ['squash', ''],
    // git merge exits 2 when its strategy fails: conflicts it left are undone all the same.
    ['squash', '"$real" "$@"; exit 2'],
  ] as const) {
    it(`${strategy}: the current branch moves to a conflicting line after the forecast: the landing is undone, the conflicts named${exit ? ' (git exits 2)' : ''}`, async () => {
      const wt = agent(strategy, { 'app.ts': 'line 1\nagent\nline 3\n' });
      const words = strategy === 'merge' ? 'merge --no-ff' : 'merge --squash';
      const script = [commitOnMain('line 1\\nmain\\nline 3\\n'), exit].filter(Boolean).join('; ');
      const landing = new NodeGit({ binary: wrapper(words, script) });
      const before = recordWorkspace(repo);

      assert.deepEqual(await landing.land(repo, wt, `agents/${strategy}`, strategy, 'Land'), {
        ok: false,
        conflicts: ['app.ts'],
      });
      assert.equal(git(repo, 'log', '-1', '--format=%s'), 'main moved during the landing');
      assert.equal(fs.readFileSync(path.join(repo, 'app.ts'), 'utf8'), 'line 1\nmain\nline 3\n');
      assert.equal(git(repo, 'status', '--porcelain=v1', '--untracked-files=all'), '?? notes.txt');
      assertRestored(before, `the workspace after the ${strategy}: only main's new commit`, {
        except: ['HEAD', 'ref refs/heads/main', 'file app.ts', 'index entry app.ts'],
      });
    });
  }
});
