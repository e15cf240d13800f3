// Worktree preparation with real git and the real demo agent: .worktreeinclude, setupCommand, symlinkFolders.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { ManagerSettings } from '../../src/core/ports';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { git, ManagerFixture } from './managerFixture';
import { englishStored } from '../../src/ui/errorText';

const isWindows = process.platform === 'win32';

describe('Worktree preparation with real git and real agent processes', function () {
  this.timeout(60000);
  let fx: ManagerFixture;

  afterEach(() => fx.dispose());

  const withSettings = (extra: Partial<ManagerSettings>): AgentManager =>
    fx.manager({ settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), ...extra }) });
  const write = (rel: string, text: string, mode?: number) => {
    const file = path.join(fx.repo, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    if (mode !== undefined) {
      fs.chmodSync(file, mode);
    }
  };
  const log = (logPath: string | undefined) => fs.readFileSync(logPath!, 'utf8');

  it('copies the ignored files .worktreeinclude matches, with their modes, and nothing else', async () => {
    fx = new ManagerFixture({
      'app.js': 'console.log("hi");\n',
      'tracked.txt': 'committed\n',
      '.gitignore': '.env\n.env.link\n*.local.json\nscripts/local.sh\nlogs/\n',
      '.worktreeinclude':
        '# local files agents need\n.env\n.env.link\nconfig/*.local.json\n!config/keep.local.json\nscripts/*.sh\ntracked.txt\ntodo.draft\nlogs/\n',
    });
    write('.env', 'SECRET=1\n');
    write('config/a.local.json', '{"a":1}\n');
    write('config/keep.local.json', '{"keep":true}\n');
    write('config/other.json', '{}\n');
    write('notes.local.json', '{}\n');
    write('scripts/local.sh', '#!/bin/sh\necho local\n', 0o755);
    write('tracked.txt', 'changed in the main worktree\n');
    write('todo.draft', 'untracked but not ignored\n');
    write('logs/today/run.log', 'deep\n');
    fs.symlinkSync('.env', path.join(fx.repo, '.env.link'));
    const manager = fx.manager();

    const record = await manager.dispatch({
      prompt: 'replace .env: SECRET=1 => SECRET=2',
      profile: 'demo',
      folder: fx.repo,
      title: 'Includes',
    });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    const wt = done.worktreePath!;
    const read = (rel: string) => fs.readFileSync(path.join(wt, rel), 'utf8');
    // The agent saw the copied .env and changed its copy only.
    assert.equal(read('.env'), 'SECRET=2\n');
    assert.equal(fs.readFileSync(path.join(fx.repo, '.env'), 'utf8'), 'SECRET=1\n');
    assert.equal(read('config/a.local.json'), '{"a":1}\n');
    assert.equal(read('logs/today/run.log'), 'deep\n');
    assert.ok(!fs.existsSync(path.join(wt, 'config/keep.local.json')), 'negated by !config/keep.local.json');
    assert.ok(!fs.existsSync(path.join(wt, 'config/other.json')), 'not matched');
    assert.ok(!fs.existsSync(path.join(wt, 'notes.local.json')), 'ignored but not matched');
    assert.ok(
      !fs.existsSync(path.join(wt, 'todo.draft')),
      "matched but not ignored: it would become part of the agent's changes",
    );
    // A tracked file comes from the checkout, never from the main worktree's uncommitted copy.
    assert.equal(read('tracked.txt'), 'committed\n');
    assert.equal(fs.lstatSync(path.join(wt, '.env.link')).isSymbolicLink(), true);
    assert.equal(fs.readlinkSync(path.join(wt, '.env.link')), '.env');
    if (!isWindows) {
      assert.equal(fs.statSync(path.join(wt, 'scripts/local.sh')).mode & 0o777, 0o755);
    }
    // Copied files are ignored: the agent's change set has none of them.
    assert.deepEqual(done.changedFiles, []);
    const text = log(done.logPath);
    assert.match(text, /──── preparing the worktree\ncopied from the main worktree \(\.worktreeinclude\): (.+)\n/);
    const copied = /copied from the main worktree \(\.worktreeinclude\): (.+)\n/.exec(text)![1].split(', ').sort();
    assert.deepEqual(copied, ['.env', '.env.link', 'config/a.local.json', 'logs/today/run.log', 'scripts/local.sh']);
    assert.ok(text.indexOf('copied from') < text.indexOf('replace'), 'the copy is logged before the agent runs');
  });

  it('runs setupCommand in the new worktree before the agent, with its output in the log', async () => {
    fx = new ManagerFixture();
    const setupCommand = [
      process.execPath,
      '-e',
      "require('fs').writeFileSync('setup-ran.txt','ok'); console.log('setup says hi from ' + process.cwd())",
    ];
    const manager = withSettings({ setupCommand });
    const outputs: string[] = [];
    manager.onDidOutput((e) => outputs.push(e.text));

    const record = await manager.dispatch({
      prompt: 'replace setup-ran.txt: ok => ok',
      profile: 'demo',
      folder: fx.repo,
      title: 'Setup',
    });
    assert.equal(record.status, 'preparing');
    assert.equal(manager.isRunning(record.id), true, "the setup counts as the agent's run");
    // whenEnded waits through the setup and the agent's own run.
    const ended = await manager.whenEnded(record.id);
    assert.equal(ended.status, 'succeeded', ended.error);
    const done = await fx.finished(manager, record.id);
    assert.equal(fs.readFileSync(path.join(done.worktreePath!, 'setup-ran.txt'), 'utf8'), 'ok');
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['setup-ran.txt'],
    );
    const text = log(done.logPath);
    assert.match(text, /──── setup: .*node.* -e /);
    assert.ok(text.includes(`setup says hi from ${done.worktreePath}`), text);
    assert.ok(text.indexOf('setup says hi') < text.indexOf('replace'), 'the setup ran before the agent');
    assert.ok(outputs.join('').includes('setup says hi'), 'setup output reaches the output view');
    assert.equal(git(fx.repo, 'status', '--porcelain'), '', 'the main worktree is untouched');
  });

  it('fails the agent without starting it when setupCommand fails, and keeps the worktree', async () => {
    fx = new ManagerFixture();
    const manager = withSettings({
      setupCommand: [process.execPath, '-e', "console.error('missing dependency foo'); process.exit(3)"],
    });
    const record = await manager.dispatch({
      prompt: 'create agent-ran.txt: yes',
      profile: 'demo',
      folder: fx.repo,
      title: 'Broken setup',
    });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'failed');
    assert.match(
      englishStored(done.error ?? ''),
      /setup command \(parallelAgents\.setupCommand\) .* failed with exit code 3; the agent was not started\.\nmissing dependency foo/,
    );
    assert.equal(done.startedAt, undefined);
    assert.ok(fs.existsSync(done.worktreePath!), 'the worktree stays for inspection');
    assert.ok(!fs.existsSync(path.join(done.worktreePath!, 'agent-ran.txt')), 'no agent process ran');
    assert.match(log(done.logPath), /missing dependency foo/);
    assert.doesNotMatch(log(done.logPath), /create/);

    const missing = withSettings({ setupCommand: ['definitely-not-a-setup-command'] });
    const other = await missing.dispatch({
      prompt: 'create agent-ran.txt: yes',
      profile: 'demo',
      folder: fx.repo,
      title: 'Missing setup',
    });
    const failed = await fx.finished(missing, other.id);
    assert.equal(failed.status, 'failed');
    assert.match(englishStored(failed.error ?? ''), /definitely-not-a-setup-command could not be started/);
    assert.ok(!fs.existsSync(path.join(failed.worktreePath!, 'agent-ran.txt')));
  });

  it('stops a running setupCommand: the agent ends stopped and never starts', async () => {
    fx = new ManagerFixture();
    const manager = withSettings({
      setupCommand: [process.execPath, '-e', "console.log('installing'); setTimeout(() => {}, 30000)"],
    });
    const outputs: string[] = [];
    manager.onDidOutput((e) => outputs.push(e.text));
    const record = await manager.dispatch({
      prompt: 'create agent-ran.txt: yes',
      profile: 'demo',
      folder: fx.repo,
      title: 'Slow setup',
    });
    for (let i = 0; i < 200 && !outputs.join('').includes('installing'); i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    await manager.stop(record.id);
    const done = manager.get(record.id);
    assert.equal(done.status, 'stopped');
    assert.equal(done.startedAt, undefined);
    assert.equal(manager.isRunning(record.id), false);
    assert.ok(!fs.existsSync(path.join(done.worktreePath!, 'agent-ran.txt')));
  });

  it('links symlinkFolders that git ignores to the main worktree, and keeps the link out of the change set', async function () {
    fx = new ManagerFixture({ 'app.js': 'x\n', 'src/main.js': 'y\n', '.gitignore': 'node_modules/\n' });
    write('node_modules/left-pad/index.js', 'module.exports = 1;\n');
    const manager = withSettings({ symlinkFolders: ['node_modules', 'src', 'not-installed', '../outside'] });
    const record = await manager.dispatch({
      prompt: 'create done.txt: ok',
      profile: 'demo',
      folder: fx.repo,
      title: 'Links',
    });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    const link = path.join(done.worktreePath!, 'node_modules');
    assert.equal(fs.lstatSync(link).isSymbolicLink(), true);
    assert.equal(fs.realpathSync(link), path.join(fx.repo, 'node_modules'));
    assert.equal(fs.readFileSync(path.join(link, 'left-pad/index.js'), 'utf8'), 'module.exports = 1;\n');
    assert.equal(
      fs.lstatSync(path.join(done.worktreePath!, 'src')).isSymbolicLink(),
      false,
      'a tracked folder is never replaced',
    );
    // `node_modules/` matches folders only: the link is ignored through info/exclude instead.
    assert.deepEqual(
      done.changedFiles.map((f) => f.path),
      ['done.txt'],
    );
    assert.match(fs.readFileSync(path.join(fx.repo, '.git/info/exclude'), 'utf8'), /^\/node_modules$/m);
    assert.equal(git(fx.repo, 'status', '--porcelain'), '');
    const text = log(done.logPath);
    assert.match(text, /linked node_modules → .*node_modules/);
    assert.match(text, /not linked: src \(git does not ignore it in the main worktree\)/);
    assert.match(text, /not linked: not-installed \(not in the main worktree\)/);
    assert.match(text, /not linked: \.\.\/outside \(symlinkFolders takes folders relative to the repository\)/);

    // A second agent reuses the exclude line rather than adding another.
    const second = await manager.dispatch({
      prompt: 'create more.txt: ok',
      profile: 'demo',
      folder: fx.repo,
      title: 'Links again',
    });
    const again = await fx.finished(manager, second.id);
    assert.deepEqual(
      again.changedFiles.map((f) => f.path),
      ['more.txt'],
    );
    assert.equal(
      fs
        .readFileSync(path.join(fx.repo, '.git/info/exclude'), 'utf8')
        .split('\n')
        .filter((l) => l === '/node_modules').length,
      1,
    );
  });

  it('does nothing of this without .worktreeinclude or settings', async () => {
    fx = new ManagerFixture({ 'app.js': 'x\n', '.gitignore': '.env\nnode_modules/\n' });
    write('.env', 'SECRET=1\n');
    write('node_modules/a/index.js', '1\n');
    const exclude = fs.readFileSync(path.join(fx.repo, '.git/info/exclude'), 'utf8');
    const manager = fx.manager();
    const record = await manager.dispatch({
      prompt: 'create done.txt: ok',
      profile: 'demo',
      folder: fx.repo,
      title: 'Plain',
    });
    assert.equal(record.status, 'running', 'without a setup command the agent starts at once');
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.deepEqual(fs.readdirSync(done.worktreePath!).sort(), ['.git', '.gitignore', 'app.js', 'done.txt']);
    assert.doesNotMatch(log(done.logPath), /preparing the worktree|setup/);
    assert.equal(fs.readFileSync(path.join(fx.repo, '.git/info/exclude'), 'utf8'), exclude);
  });
});

describe('NodeFileSystem.copyInto and linkInto guards', () => {
  const nodeFs = new NodeFileSystem();
  let tmp: string;
  let src: string;
  let dst: string;
  let outside: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-copy-')));
    [src, dst, outside] = ['src', 'dst', 'outside'].map((d) => path.join(tmp, d));
    [src, dst, outside].forEach((d) => fs.mkdirSync(d));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('never writes or reads through a symlinked folder that leaves its root, and never overwrites', async () => {
    fs.mkdirSync(path.join(src, 'config'));
    fs.writeFileSync(path.join(src, 'config/a.json'), 'a');
    fs.writeFileSync(path.join(src, 'kept.txt'), 'from src');
    fs.writeFileSync(path.join(dst, 'kept.txt'), 'already here');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(src, 'escape'));
    fs.symlinkSync(outside, path.join(dst, 'config'));
    const report = await nodeFs.copyInto(src, dst, [
      'config/a.json',
      'kept.txt',
      'escape/secret.txt',
      '../outside/secret.txt',
      '.git/config',
      'config',
    ]);
    assert.deepEqual(report.done, []);
    assert.deepEqual(
      report.skipped.map((s) => `${s.path}: ${s.reason}`),
      [
        'config/a.json: its folder in the worktree is a symlink or file that leads out of it',
        'kept.txt: already in the worktree',
        'escape/secret.txt: its folder is a symlink that leads out of the repository',
        '../outside/secret.txt: not a path inside the repository',
        '.git/config: not a path inside the repository',
        'config: a folder',
      ],
    );
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt']);
    assert.equal(fs.readFileSync(path.join(dst, 'kept.txt'), 'utf8'), 'already here');
  });

  it('links a folder once and refuses files and existing paths', async () => {
    fs.mkdirSync(path.join(src, 'deps/node_modules'), { recursive: true });
    fs.writeFileSync(path.join(src, 'file'), 'x');
    assert.deepEqual((await nodeFs.linkInto(src, dst, 'deps/node_modules')).done, ['deps/node_modules']);
    assert.equal(fs.realpathSync(path.join(dst, 'deps/node_modules')), path.join(src, 'deps/node_modules'));
    assert.deepEqual((await nodeFs.linkInto(src, dst, 'deps/node_modules')).skipped, [
      { path: 'deps/node_modules', reason: 'already in the worktree' },
    ]);
    assert.deepEqual((await nodeFs.linkInto(src, dst, 'file')).skipped, [{ path: 'file', reason: 'not a folder' }]);
  });
});
