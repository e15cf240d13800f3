import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { demoCommand } from '../../src/core/clis/profiles';
import { firstOnPath, PathExecutableResolver } from '../../src/node/executableResolver';

describe('PathExecutableResolver', () => {
  let dir: string;
  let bin1: string;
  let bin2: string;
  let script: string;

  function touch(file: string, mode: number): string {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '#!/bin/sh\necho hi\n');
    fs.chmodSync(file, mode);
    return file;
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-resolve-'));
    bin1 = path.join(dir, 'bin1');
    bin2 = path.join(dir, 'bin2');
    fs.mkdirSync(bin1);
    fs.mkdirSync(bin2);
    script = touch(path.join(dir, 'dist', 'demoAgent.js'), 0o644);
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const resolver = (env: Record<string, string | undefined>, extra: { baseDir?: string } = {}) =>
    new PathExecutableResolver({ demoAgentScript: script, runtime: process.execPath, env, ...extra });

  it('${demoAgent} is the runtime running the shipped script as Node', async () => {
    assert.deepEqual(await resolver({ PATH: '' }).resolve(demoCommand), {
      file: process.execPath,
      prefixArgs: [script],
      env: { ELECTRON_RUN_AS_NODE: '1' },
    });
  });

  it('${demoAgent} is not found when the script is missing', async () => {
    fs.rmSync(script);
    assert.equal(await resolver({ PATH: '' }).resolve(demoCommand), undefined);
  });

  it('searches PATH in order and takes the first executable file', async () => {
    touch(path.join(bin1, 'agent'), 0o644); // not executable: skipped
    const second = touch(path.join(bin2, 'agent'), 0o755);
    fs.mkdirSync(path.join(bin1, 'tool')); // a folder is not a command
    const third = touch(path.join(bin2, 'tool'), 0o755);
    const r = resolver({ PATH: [bin1, bin2].join(':') });
    assert.deepEqual(await r.resolve('agent'), { file: second, prefixArgs: [], env: {} });
    assert.deepEqual(await r.resolve('tool'), { file: third, prefixArgs: [], env: {} });
    touch(path.join(bin1, 'both'), 0o755);
    touch(path.join(bin2, 'both'), 0o755);
    assert.equal((await r.resolve('both'))?.file, path.join(bin1, 'both'));
  });

  it('finds real system commands on the real PATH', async () => {
    const found = await new PathExecutableResolver({ demoAgentScript: script, runtime: process.execPath }).resolve(
      'node',
    );
    assert.ok(found && path.isAbsolute(found.file), JSON.stringify(found));
    assert.deepEqual(found.prefixArgs, []);
  });

  it('is undefined for an unknown command, an empty one, or no PATH', async () => {
    assert.equal(await resolver({ PATH: bin1 }).resolve('definitely-not-installed-xyz'), undefined);
    assert.equal(await resolver({ PATH: bin1 }).resolve('  '), undefined);
    touch(path.join(bin1, 'agent'), 0o755);
    assert.equal(await resolver({}).resolve('agent'), undefined);
  });

  it('ignores empty and relative PATH entries (they would mean the current folder)', async () => {
    touch(path.join(dir, 'agent'), 0o755);
    const r = resolver({ PATH: ['', '.', 'bin1'].join(':') }, { baseDir: dir });
    const previous = process.cwd();
    process.chdir(dir);
    try {
      assert.equal(await r.resolve('agent'), undefined);
    } finally {
      process.chdir(previous);
    }
  });

  it('a command with a slash is that path, if it exists and is executable', async () => {
    const tool = touch(path.join(dir, 'tools', 'my-agent'), 0o755);
    const plain = touch(path.join(dir, 'tools', 'plain'), 0o644);
    const r = resolver({ PATH: '' }, { baseDir: dir });
    assert.deepEqual(await r.resolve(tool), { file: tool, prefixArgs: [], env: {} });
    assert.deepEqual(await r.resolve('./tools/my-agent'), { file: tool, prefixArgs: [], env: {} });
    assert.equal(await r.resolve(plain), undefined);
    assert.equal(await r.resolve(path.join(dir, 'tools', 'missing')), undefined);
    assert.equal(await r.resolve(path.join(dir, 'tools')), undefined);
  });

  it('expands ~/ to the home folder', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const tool = touch(path.join(dir, 'home', '.local', 'bin', 'agent'), 0o755);
    const previous = process.env.HOME;
    process.env.HOME = path.join(dir, 'home'); // os.homedir() reads HOME on POSIX
    try {
      assert.equal((await resolver({ PATH: '' }).resolve('~/.local/bin/agent'))?.file, tool);
    } finally {
      process.env.HOME = previous;
    }
  });

  describe('PATH order over `which` matches (the current folder Windows adds first is not on PATH)', () => {
    it('Windows paths: a match in an unlisted folder is dropped; folders compare regardless of case', () => {
      const dirs = ['C:\\Tools', 'D:\\npm\\'];
      const cwdMatch = 'C:\\work\\repo\\agent.exe';
      assert.equal(firstOnPath([cwdMatch, 'D:\\npm\\agent.cmd'], dirs, path.win32), 'D:\\npm\\agent.cmd');
      assert.equal(firstOnPath([cwdMatch, 'c:\\tools\\agent.exe'], dirs, path.win32), 'c:\\tools\\agent.exe');
      assert.equal(firstOnPath([cwdMatch], dirs, path.win32), undefined);
    });

    it('the current folder, when also on PATH, counts at its own place in PATH', () => {
      const dirs = ['C:\\Tools', 'C:\\work\\repo'];
      const inCwd = 'C:\\work\\repo\\agent.exe';
      const matches = [inCwd, 'C:\\Tools\\agent.exe', inCwd];
      assert.equal(firstOnPath(matches, dirs, path.win32), 'C:\\Tools\\agent.exe');
      assert.equal(firstOnPath([inCwd, inCwd], dirs, path.win32), inCwd);
    });

    it('POSIX paths compare case-sensitively', () => {
      assert.equal(firstOnPath(['/Opt/bin/agent'], ['/opt/bin'], path.posix), undefined);
      assert.equal(firstOnPath(['/opt/bin/agent'], ['/usr/bin', '/opt/bin/'], path.posix), '/opt/bin/agent');
    });
  });

  // `which` follows the real platform: these run on Windows only (see README, "verified where").
  describe('Windows rules', () => {
    before(function () {
      if (process.platform !== 'win32') {
        this.skip();
      }
    });

    it('tries PATHEXT extensions, reads Path case-insensitively and strips quotes', async () => {
      const cmd = touch(path.join(bin2, 'agent.cmd'), 0o644); // no executable bit needed on Windows
      const r = resolver({ Path: [`"${bin1}"`, bin2].join(';'), PATHEXT: '.EXE;.CMD' });
      assert.deepEqual(await r.resolve('agent'), { file: cmd, prefixArgs: [], env: {} });
      assert.deepEqual(await r.resolve('agent.cmd'), { file: cmd, prefixArgs: [], env: {} });
      const exe = touch(path.join(bin1, 'agent.exe'), 0o644);
      assert.equal((await r.resolve('agent'))?.file, exe);
    });

    it('a file without a PATHEXT extension is not a command', async () => {
      touch(path.join(bin1, 'agent'), 0o755);
      assert.equal(await resolver({ PATH: bin1, PATHEXT: '.EXE' }).resolve('agent'), undefined);
    });

    it('an executable in the current folder is not found unless its folder is on PATH', async () => {
      touch(path.join(dir, 'agent.exe'), 0o644);
      const previous = process.cwd();
      process.chdir(dir);
      try {
        assert.equal(await resolver({ PATH: bin1, PATHEXT: '.EXE' }).resolve('agent'), undefined);
        const inBin1 = touch(path.join(bin1, 'agent.exe'), 0o644);
        assert.equal((await resolver({ PATH: bin1, PATHEXT: '.EXE' }).resolve('agent'))?.file, inBin1);
      } finally {
        process.chdir(previous);
      }
    });
  });
});
