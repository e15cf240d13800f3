// The commits Forecast Conflicts merges from (src/node/git/agentsForecast.ts) on real git: who they
// are by, where their files are written, what an answer of hash-object that is not one object name
// per commit gives, how a missing tree is reported, and that no agent at all asks nothing of git.
// Wrappers stand in for git where a real git would need a broken repository.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forecastAgents, landedCommit, writeCommits } from '../../src/node/git/agentsForecast';
import { NodeGit } from '../../src/node/git/createGit';
import { MergeForecaster } from '../../src/node/git/forecast';
import type { GitExecOptions, GitExecResult } from '../../src/node/git/process';
import { GitRunner } from '../../src/node/git/runner';
import { refusal } from './refusal';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** Real git, the input given to each command recorded. */
class InputRecorder extends GitRunner {
  readonly inputs: string[] = [];
  override exec(cwd: string, args: readonly string[], options?: GitExecOptions): Promise<GitExecResult> {
    this.inputs.push(String(options?.input ?? ''));
    return super.exec(cwd, args, options);
  }
}

describe('the commits Forecast Conflicts merges from (real git)', function () {
  this.timeout(60_000);
  let root: string;
  let repo: string;
  let bodies: string[];

  /** A git that runs `script` (sh) for hash-object and the real git, "$real", for everything else. */
  const hashObjectBy = (script: string): string => {
    const file = path.join(root, `git-${fs.readdirSync(root).length}`);
    const lines = ['#!/bin/sh', `real="${realGit}"`, `case " $* " in *" hash-object "*) ${script};; esac`];
    fs.writeFileSync(file, `${[...lines, 'exec "$real" "$@"'].join('\n')}\n`, { mode: 0o755 });
    return file;
  };

  beforeEach(() => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-forecast-commits-')));
    repo = path.join(root, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'config', 'user.name', 'Forecast Tests');
    git(repo, 'config', 'user.email', 'forecast@example.invalid');
    fs.writeFileSync(path.join(repo, 'app.ts'), 'line 1\nline 2\nline 3\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '--quiet', '-m', 'initial');
    const [head, tree] = ['HEAD', 'HEAD^{tree}'].map((r) => git(repo, 'rev-parse', r));
    bodies = [landedCommit(tree, [head]), landedCommit(tree, [head, head])];
  });

  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('are by Parallel Agents at the epoch, author and committer, written from files in a pa-landed- folder then removed', async () => {
    const runner = new InputRecorder();
    const [sha] = await writeCommits(runner, repo, bodies);
    assert.equal(
      git(repo, 'show', '-s', '--format=%an <%ae> %at|%cn <%ce> %ct|%s', sha),
      'Parallel Agents <forecast@parallel-agents.invalid> 0|Parallel Agents <forecast@parallel-agents.invalid> 0|' +
        'parallel-agents forecast',
    );
    const files = runner.inputs[0].split('\n').filter(Boolean);
    assert.equal(files.length, 2);
    for (const file of files) {
      assert.match(path.basename(path.dirname(file)), /^pa-landed-/);
      assert.equal(path.dirname(path.dirname(file)), os.tmpdir());
      assert.equal(fs.existsSync(path.dirname(file)), false, 'the folder is removed');
    }
  });

  it('an answer of hash-object that is not one object name per commit is refused whole, and named', async () => {
    const [one, two] = await writeCommits(new GitRunner(), repo, bodies);
    for (const [script, answer] of [
      ['"$real" "$@" | head -n 1; exit 0', one],
      [`"$real" "$@" | sed '2s/^/x/'; exit 0`, `${one} x${two}`],
      [`"$real" "$@" | sed '2s/$/x/'; exit 0`, `${one} ${two}x`],
    ]) {
      const runner = new GitRunner({ binary: hashObjectBy(script) });
      const e = await refusal(writeCommits(runner, repo, bodies), 'gitCommandFailed');
      assert.equal(e.reason, 'gitFailed', script);
      assert.equal((e.data as { command?: string }).command, 'git hash-object', script);
      assert.equal(e.detail, `unexpected answer: ${answer}`, script);
    }
  });

  it('a conflicted merge without a tree is refused as a git merge failure, the log naming the branch', async () => {
    execFileSync('git', ['checkout', '--quiet', '-b', 'agents/b0'], { cwd: repo });
    fs.writeFileSync(path.join(repo, 'app.ts'), 'line 1\nb0\nline 3\n');
    git(repo, 'commit', '--quiet', '-am', 'b0');
    git(repo, 'checkout', '--quiet', '-b', 'agents/b1', 'main');
    fs.writeFileSync(path.join(repo, 'app.ts'), 'line 1\nb1\nline 3\n');
    git(repo, 'commit', '--quiet', '-am', 'b1');
    git(repo, 'checkout', '--quiet', 'main');
    fs.writeFileSync(path.join(repo, 'app.ts'), 'line 1\nmain\nline 3\n');
    git(repo, 'commit', '--quiet', '-am', 'main');
    // Trial merges stage a conflicted result with add --all; this git reports that failed.
    const file = path.join(root, 'git-add');
    const lines = ['#!/bin/sh', `real="${realGit}"`, 'case " $* " in *" add --all "*) "$real" "$@"; exit 1;; esac'];
    fs.writeFileSync(file, `${[...lines, 'exec "$real" "$@"'].join('\n')}\n`, { mode: 0o755 });
    const warnings: string[] = [];
    const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const port = new NodeGit({ binary: file, mergeTree: 'none', logger });
    const e = await refusal(port.forecastAgents(repo, 'main', ['agents/b0', 'agents/b1']), 'gitCommandFailed');
    assert.equal((e.data as { command?: string }).command, 'git merge');
    assert.match(e.detail ?? '', /^no tree for the merge of agents\/b0$/);
    assert.ok(
      warnings.some((w) => w.startsWith(`[Git] merge agents/b0 in ${repo}: gitFailed — no tree`)),
      warnings.join('\n'),
    );
  });

  it('no agents: an empty forecast, and no git process at all, even for a name git does not know', async () => {
    const runner = new GitRunner();
    const forecaster = new MergeForecaster(runner, 'stdin');
    assert.deepEqual(await forecastAgents(forecaster, runner, repo, 'no-such-branch', []), {
      landing: [],
      pairs: [],
    });
    assert.equal(runner.processCount, 0);
  });
});
