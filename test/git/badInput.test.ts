// Bad and hostile input through a real AgentManager: real git, real demo-agent (and shell script)
// processes. After every case: no worktree registered, no agents/* branch, no folder under the
// worktree root and no process running that the manager's agents do not account for.
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager, DispatchOptions } from '../../src/core/agents/agentManager';
import { AgentError, type AgentErrorReason } from '../../src/core/errors';
import type { Logger, ManagerSettings } from '../../src/core/ports';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { NodeGit } from '../../src/node/git/createGit';
import { git, ManagerFixture } from './managerFixture';
import { englishMessage } from '../../src/ui/errorText';

const notesHeader =
  '# Agent notes\n\nThe demo agent found no command in its prompt, so it recorded the prompt here.\n\n';
const isRoot = process.getuid?.() === 0;

/** Processes (other than this one) whose current folder is under `dir`: agents left running. */
function processesIn(dir: string): string[] {
  if (process.platform !== 'linux') {
    return [];
  }
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) {
      continue;
    }
    try {
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) {
        found.push(`${entry} ${fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
      }
    } catch {
      // Gone meanwhile, or a zombie: neither runs.
    }
  }
  return found;
}

function worktreesOf(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .slice(1);
}

function agentBranchesOf(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/agents/').split('\n').filter(Boolean);
}

const sorted = (values: Iterable<string | undefined>) => [...values].filter((v): v is string => v !== undefined).sort();

describe('dispatch with bad and hostile input (real git, real agents)', function () {
  this.timeout(120000);
  let fx: ManagerFixture;
  let retries: string[];
  const logger: Logger = {
    info: (m) => (m.includes('hit a lock') ? retries.push(m) : undefined),
    warn() {},
    error() {},
  };

  beforeEach(() => {
    fx = new ManagerFixture({ 'README.md': '# sample\n', 'app.js': 'console.log("hi");\n', 'x/keep.txt': 'keep me\n' });
    retries = [];
  });

  afterEach(() => fx.dispose());

  function manager(
    options: { settings?: Partial<ManagerSettings>; profiles?: Profile[]; graceMs?: number } = {},
  ): AgentManager {
    return fx.manager({
      git: new NodeGit({ logger }),
      headlessRunner: fx.headlessRunner(options.graceMs ?? 1000),
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), ...options.settings }),
      profiles: () => [...builtinProfiles, ...(options.profiles ?? [])],
    });
  }

  /**
   * The repository holds exactly the worktrees, agents/* branches and worktree folders of the
   * manager's agents, `agents` of them, none running, and no process works under the temp folder.
   */
  function assertClean(m: AgentManager, repo: string, agents: number, worktreeRoot = `${repo}.worktrees`): void {
    const records = m.list();
    assert.equal(records.length, agents, `agents: ${records.map((r) => `${r.title} ${r.status}`).join(', ')}`);
    const present = records.filter((r) => r.worktreePath && r.worktreePresent !== false);
    assert.deepEqual(sorted(worktreesOf(repo)), sorted(present.map((r) => r.worktreePath)), 'registered worktrees');
    assert.deepEqual(agentBranchesOf(repo), sorted(records.map((r) => r.branch)), 'agents/* branches');
    const folders = fs.existsSync(worktreeRoot) ? fs.readdirSync(worktreeRoot) : [];
    assert.deepEqual(
      folders.sort(),
      sorted(present.map((r) => path.basename(r.worktreePath!))),
      `folders under ${worktreeRoot}`,
    );
    assert.deepEqual(
      records.filter((r) => m.isRunning(r.id)).map((r) => r.title),
      [],
      'agents still running',
    );
    assert.deepEqual(processesIn(fx.tmp), [], 'processes left running');
  }

  async function refused(
    m: AgentManager,
    options: DispatchOptions,
    reason: AgentErrorReason,
    message: RegExp,
  ): Promise<AgentError> {
    let error: AgentError | undefined;
    await assert.rejects(m.dispatch(options), (e) => {
      assert.ok(
        AgentError.is(e, reason),
        `${reason} expected, got ${(e as AgentError).reason}: ${(e as Error).message}`,
      );
      assert.match(englishMessage(e), message);
      error = e;
      return true;
    });
    return error!;
  }

  async function runToEnd(
    m: AgentManager,
    options: Omit<DispatchOptions, 'profile'> & { profile?: string },
  ): Promise<AgentRecord> {
    const record = await m.dispatch({ profile: 'demo', ...options });
    return fx.finished(m, record.id);
  }

  function notesOf(record: AgentRecord): string {
    return fs.readFileSync(path.join(record.cwd, 'AGENT_NOTES.md'), 'utf8');
  }

  it('16 dispatches at once on one repository: all succeed, unique names, all registered', async () => {
    const m = manager();
    const t0 = Date.now();
    const records = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        m.dispatch({ prompt: `create f${i}.txt: ${i}`, profile: 'demo', folder: fx.repo, title: 'Same title' }),
      ),
    );
    const dispatched = Date.now() - t0;
    const done = await Promise.all(records.map((r) => fx.finished(m, r.id)));
    assert.deepEqual(
      done.map((r) => r.status),
      Array(16).fill('succeeded'),
    );
    done.forEach((r, i) =>
      assert.deepEqual(
        r.changedFiles.map((f) => f.path),
        [`f${i}.txt`],
      ),
    );
    assert.equal(new Set(done.map((r) => r.branch)).size, 16);
    assert.equal(worktreesOf(fx.repo).length, 16);
    assertClean(m, fx.repo, 16);
    console.log(`      16 dispatches returned in ${dispatched} ms; lock retries: ${retries.length}`);
  });

  it('prompts with shell metacharacters reach the agent verbatim and nothing executes', async () => {
    const m = manager();
    const mark = `/tmp/pwned-${randomBytes(6).toString('hex')}`;
    const prompts = [
      `Please look at $(touch ${mark}-dollar) first`,
      'Tidy the code; rm -rf x',
      `Use \`touch ${mark}-backtick\` as an example`,
      `Build it && touch ${mark}-and || touch ${mark}-or & touch ${mark}-bg`,
      `Fix the bug\ntouch ${mark}-newline\nrm -rf x\n$(rm -rf x)`,
      `Quote "it's" here > ${mark}-redirect | tee ${mark}-pipe; echo $HOME \${PATH} %PATH% !! ~ * ?`,
    ];
    const done = await Promise.all(prompts.map((prompt) => runToEnd(m, { prompt, folder: fx.repo })));
    done.forEach((r, i) => {
      assert.equal(r.status, 'succeeded', r.error);
      assert.equal(r.prompt, prompts[i]);
      assert.equal(notesOf(r), `${notesHeader}## Prompt\n\n${prompts[i]}\n`);
      assert.equal(fs.readFileSync(path.join(r.cwd, 'x', 'keep.txt'), 'utf8'), 'keep me\n');
    });
    const pwned = fs.readdirSync('/tmp').filter((name) => name.startsWith(path.basename(mark)));
    assert.deepEqual(pwned, []);
    assert.ok(fs.existsSync(path.join(fx.repo, 'x', 'keep.txt')));
    assertClean(m, fx.repo, prompts.length);
  });

  it('refuses a prompt with a NUL character before creating anything', async () => {
    const m = manager();
    await refused(m, { prompt: 'before\0after', profile: 'demo', folder: fx.repo }, 'launchFailed', /NUL/);
    assertClean(m, fx.repo, 0);
  });

  it('passes 100 KB of text, emoji and right-to-left text whole', async () => {
    const m = manager();
    const line = 'Please make the parser tolerate odd input and explain why in a comment.\n';
    const big = line.repeat(Math.ceil((100 * 1024) / line.length)).slice(0, 100 * 1024);
    // Arabic, Hebrew, a right-to-left override, emoji with skin tone and ZWJ, a flag.
    const bidi = 'Fix 🐛 in the parser 👩🏽‍💻🇫🇷 — أصلح الخطأ في المحلل — תקן את הבאג \u202Egnp.exe\u202C done';
    const [large, mixed] = await Promise.all([
      runToEnd(m, { prompt: big, folder: fx.repo }),
      runToEnd(m, { prompt: bidi, folder: fx.repo }),
    ]);
    assert.equal(large.status, 'succeeded', large.error);
    assert.equal(Buffer.byteLength(large.prompt), 100 * 1024);
    assert.equal(notesOf(large), `${notesHeader}## Prompt\n\n${big}\n`);
    assert.equal(mixed.status, 'succeeded', mixed.error);
    assert.equal(notesOf(mixed), `${notesHeader}## Prompt\n\n${bidi}\n`);
    assert.ok(mixed.title.startsWith('Fix 🐛 in the parser 👩🏽‍💻🇫🇷 — أصلح') && mixed.title.endsWith('...'), mixed.title);
    assert.equal(mixed.branch, 'agents/fix-in-the-parser');
    // A title cut at 60 characters does not cut an emoji in half.
    const cut = await runToEnd(m, { prompt: `${'a'.repeat(56)}🐛🐛🐛🐛🐛`, folder: fx.repo });
    assert.ok(
      !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(cut.title),
      JSON.stringify(cut.title),
    );
    assert.equal(cut.title, `${'a'.repeat(56)}🐛...`);
    assertClean(m, fx.repo, 3);
  });

  it('names an agent "agent" when its title has no letters or digits', async () => {
    const m = manager();
    const first = await runToEnd(m, { prompt: 'print hi', title: '🚀 ✨ !!!', folder: fx.repo });
    const second = await runToEnd(m, { prompt: '¿¡ — ???', folder: fx.repo });
    assert.equal(first.branch, 'agents/agent');
    assert.equal(second.branch, 'agents/agent-2');
    assert.equal(path.basename(second.worktreePath!), 'agent-2');
    assert.deepEqual([first.status, second.status], ['succeeded', 'succeeded']);
    assertClean(m, fx.repo, 2);
  });

  it('refuses a branch prefix with spaces or "..", creating nothing', async () => {
    for (const branchPrefix of ['my agents', 'agents/../x', 'a..b', ' agents', 'agents/', 'agents.lock', '-agents']) {
      const m = manager({ settings: { branchPrefix } });
      await refused(
        m,
        { prompt: 'print hi', profile: 'demo', folder: fx.repo },
        'invalidProfile',
        /branchPrefix .* is not a valid git branch prefix/,
      );
      assertClean(m, fx.repo, 0);
    }
  });

  it('works in a repository and worktree folder whose paths have spaces and non-ASCII letters', async () => {
    const repo = path.join(fx.tmp, 'my repo ünï');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'café.txt'), 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    const m = manager();
    const done = await runToEnd(m, {
      prompt: 'create dossier/naïve-ñ.txt: olé\nappend café.txt: two',
      title: 'Crème brûlée',
      folder: repo,
    });
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(done.worktreePath, path.join(fx.tmp, 'my repo ünï.worktrees', 'creme-brulee'));
    assert.equal(done.branch, 'agents/creme-brulee');
    assert.deepEqual(done.changedFiles.map((f) => `${f.kind} ${f.path}`).sort(), [
      'modified café.txt',
      'untracked dossier/naïve-ñ.txt',
    ]);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'dossier', 'naïve-ñ.txt'), 'utf8'), 'olé');
    assertClean(m, repo, 1);
  });

  it('refuses a folder that is not a repository, a missing folder and a repository without commits', async () => {
    const m = manager();
    const plain = path.join(fx.tmp, 'plain');
    fs.mkdirSync(plain);
    await refused(
      m,
      { prompt: 'x', profile: 'demo', folder: plain },
      'notGitRepository',
      /is not inside a git repository/,
    );
    await refused(
      m,
      { prompt: 'x', profile: 'demo', folder: path.join(fx.tmp, 'missing') },
      'notGitRepository',
      /is not inside a git repository/,
    );
    const empty = path.join(fx.tmp, 'empty');
    fs.mkdirSync(empty);
    git(empty, 'init', '-q');
    await refused(m, { prompt: 'x', profile: 'demo', folder: empty }, 'noCommits', /has no commits yet/);
    assertClean(m, empty, 0);
    assert.deepEqual(fs.readdirSync(fx.tmp).sort(), ['empty', 'plain', 'repo']);
  });

  it('dispatches from a detached HEAD, starting at the detached commit', async () => {
    const first = git(fx.repo, 'rev-parse', 'HEAD');
    fs.writeFileSync(path.join(fx.repo, 'later.txt'), 'later\n');
    git(fx.repo, 'add', '.');
    git(fx.repo, 'commit', '-q', '-m', 'later');
    git(fx.repo, 'checkout', '-q', '--detach', first);
    const m = manager();
    const done = await runToEnd(m, { prompt: 'create detached.txt: yes', title: 'From detached', folder: fx.repo });
    assert.equal(done.status, 'succeeded', done.error);
    assert.equal(done.baseSha, first);
    assert.ok(!fs.existsSync(path.join(done.cwd, 'later.txt')));
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['detached.txt'],
    );
    assert.equal(git(fx.repo, 'rev-parse', '--abbrev-ref', 'HEAD'), 'HEAD', 'the main checkout stays detached');
    assertClean(m, fx.repo, 1);
  });

  it('works in a repository with a submodule, which stays uninitialised in the worktree', async () => {
    const lib = path.join(fx.tmp, 'lib');
    fs.mkdirSync(lib);
    git(lib, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(lib, 'lib.txt'), 'lib\n');
    git(lib, 'add', '.');
    git(lib, 'commit', '-q', '-m', 'lib');
    git(fx.repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
    git(fx.repo, 'commit', '-q', '-m', 'submodule');
    const m = manager();
    const done = await runToEnd(m, { prompt: 'create notes.txt: with submodule', title: 'Sub', folder: fx.repo });
    assert.equal(done.status, 'succeeded', done.error);
    // Git's documented behaviour: a new worktree has its submodules' folders, empty and uninitialised.
    assert.deepEqual(fs.readdirSync(path.join(done.cwd, 'vendor', 'lib')), []);
    assert.match(git(done.cwd, 'submodule', 'status'), /^-[0-9a-f]{40} vendor\/lib$/);
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['notes.txt'],
    );
    assertClean(m, fx.repo, 1);
    // Uninitialised, it does not stop a plain removal (git refuses one only once submodules are initialised).
    git(done.cwd, 'add', 'notes.txt');
    git(done.cwd, 'commit', '-q', '-m', 'notes');
    await fx.git.removeWorktree(fx.repo, done.worktreePath!, false);
    m.annotate(done.id, { worktreePresent: false });
    assertClean(m, fx.repo, 1);
  });

  it('refuses a bare repository: it has no work tree', async () => {
    const bare = path.join(fx.tmp, 'bare.git');
    git(fx.tmp, 'clone', '-q', '--bare', fx.repo, bare);
    const m = manager();
    await refused(m, { prompt: 'x', profile: 'demo', folder: bare }, 'notGitRepository', /has no work tree/);
    assert.deepEqual(
      git(bare, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree ')).length,
      1,
    );
    assert.equal(git(bare, 'for-each-ref', 'refs/heads/agents/'), '');
    assert.ok(!fs.existsSync(`${bare}.worktrees`));
    assertClean(m, fx.repo, 0);
  });

  it('refuses a worktree root that cannot be created or written, leaving nothing', async () => {
    let worktreeRoot: string;
    if (isRoot) {
      // root writes through any permission bits: a regular file in the way makes mkdir fail instead.
      fs.writeFileSync(path.join(fx.tmp, 'afile'), '');
      worktreeRoot = path.join(fx.tmp, 'afile', 'sub');
    } else {
      worktreeRoot = path.join(fx.tmp, 'readonly');
      fs.mkdirSync(worktreeRoot, { mode: 0o500 });
    }
    const m = manager({ settings: { worktreeRoot } });
    try {
      const e = await refused(m, { prompt: 'print hi', profile: 'demo', folder: fx.repo }, 'worktreeFailed', /./);
      // root: "The folder for worktrees, <root>, cannot be created" (ENOTDIR as detail); others: git's
      // "could not create directory of '<root>/agent': Permission denied" as detail.
      assert.ok(`${englishMessage(e)}\n${e.detail}`.includes(worktreeRoot), `${englishMessage(e)}\n${e.detail}`);
      assert.match(e.detail ?? '', isRoot ? /ENOTDIR/ : /Permission denied/);
      assertClean(m, fx.repo, 0, worktreeRoot);
    } finally {
      if (!isRoot) {
        fs.chmodSync(worktreeRoot, 0o700);
      }
    }
  });

  it('refuses a worktree root inside the repository', async () => {
    for (const worktreeRoot of [path.join(fx.repo, '.worktrees'), fx.repo, `${fx.repo}/sub/dir/`]) {
      const m = manager({ settings: { worktreeRoot } });
      await refused(
        m,
        { prompt: 'print hi', profile: 'demo', folder: fx.repo },
        'invalidProfile',
        /parallelAgents\.worktreeRoot .* is inside the repository/,
      );
      assertClean(m, fx.repo, 0);
      // Nothing was created inside the repository either.
      assert.equal(git(fx.repo, 'status', '--porcelain', '--ignored'), '');
    }
    // A sibling whose name merely starts like the repository's is outside it.
    const m = manager({ settings: { worktreeRoot: `${fx.repo}-trees` } });
    const done = await runToEnd(m, { prompt: 'print hi', title: 'Sibling', folder: fx.repo });
    assert.equal(done.worktreePath, path.join(`${fx.repo}-trees`, 'sibling'));
    assertClean(m, fx.repo, 1, `${fx.repo}-trees`);
  });

  describe('agent executables', () => {
    let bin: string;
    const script = (name: string, text: string, mode: number) => {
      const file = path.join(bin, name);
      fs.writeFileSync(file, text, { mode });
      fs.chmodSync(file, mode);
      return file;
    };
    const profile = (name: string, command: string): Profile => ({
      name,
      command,
      args: ['${prompt}'],
      mode: 'headless',
    });

    beforeEach(() => {
      bin = path.join(fx.tmp, 'bin dir');
      fs.mkdirSync(bin);
    });

    it('refuses a missing executable, on PATH or by path, before creating anything', async () => {
      const m = manager({
        profiles: [profile('gone', 'definitely-not-installed-cli'), profile('gone-path', path.join(bin, 'nope'))],
      });
      await refused(
        m,
        { prompt: 'x', profile: 'gone', folder: fx.repo },
        'executableNotFound',
        /definitely-not-installed-cli was not found on PATH/,
      );
      await refused(
        m,
        { prompt: 'x', profile: 'gone-path', folder: fx.repo },
        'executableNotFound',
        /nope does not exist or is not executable/,
      );
      assertClean(m, fx.repo, 0);
    });

    it('refuses a file that is not executable (mode 644) before creating anything', async () => {
      const file = script('agent.sh', '#!/bin/sh\nexit 0\n', 0o644);
      const m = manager({ profiles: [profile('noexec', file)] });
      await refused(
        m,
        { prompt: 'x', profile: 'noexec', folder: fx.repo },
        'executableNotFound',
        /agent\.sh does not exist or is not executable/,
      );
      assertClean(m, fx.repo, 0);
    });

    it('records an agent that exits at once with a non-zero code as failed, keeping its worktree', async () => {
      const file = script('fails.sh', '#!/bin/sh\necho "boom: $1" >&2\nexit 7\n', 0o755);
      const m = manager({ profiles: [profile('fails', file)] });
      const done = await runToEnd(m, { prompt: 'go $(touch nothing)', profile: 'fails', folder: fx.repo });
      assert.equal(done.status, 'failed');
      assert.equal(done.exitCode, 7);
      assert.match(fs.readFileSync(done.logPath!, 'utf8'), /boom: go \$\(touch nothing\)/);
      assert.ok(!fs.existsSync(path.join(done.cwd, 'nothing')));
      assertClean(m, fx.repo, 1);
    });

    it('stop ends an agent that ignores SIGTERM, with SIGKILL after the grace period', async () => {
      const file = script('stubborn.sh', "#!/bin/sh\ntrap '' TERM\necho ready\nwhile :; do sleep 0.1; done\n", 0o755);
      const m = manager({ profiles: [profile('stubborn', file)], graceMs: 300 });
      const record = await m.dispatch({ prompt: 'x', profile: 'stubborn', folder: fx.repo });
      await new Promise<void>((resolve) => {
        const sub = m.onDidOutput((e) => e.id === record.id && e.text.includes('ready') && (sub.dispose(), resolve()));
      });
      assert.ok(processesIn(record.cwd).length >= 1, 'the agent runs');
      const t0 = Date.now();
      await m.stop(record.id);
      const took = Date.now() - t0;
      const stopped = m.get(record.id);
      assert.equal(stopped.status, 'stopped');
      assert.equal(stopped.signal, 'SIGKILL');
      assert.ok(took >= 300 && took < 5000, `stop took ${took} ms`);
      assertClean(m, fx.repo, 1);
      console.log(`      stop of a SIGTERM-ignoring agent took ${took} ms (grace 300 ms)`);
    });
  });
});
