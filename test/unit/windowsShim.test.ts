import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expandArgs } from '../../src/core/clis/profiles';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { launchForShim, parseCmdShim, type ShimHost } from '../../src/node/windowsShim';

// What npm's cmd-shim writes for `npm install -g @anthropic-ai/claude-code` (a Node script) and for
// a package whose bin is a program; CRLF line ends as on Windows.
const nodeShim = [
  '@ECHO off',
  'GOTO start',
  ':find_dp0',
  'SET dp0=%~dp0',
  'EXIT /b',
  ':start',
  'SETLOCAL',
  'CALL :find_dp0',
  '',
  'IF EXIST "%dp0%\\node.exe" (',
  '  SET "_prog=%dp0%\\node.exe"',
  ') ELSE (',
  '  SET "_prog=node"',
  '  SET PATHEXT=%PATHEXT:;.JS;=;%',
  ')',
  '',
  'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.js" %*',
  '',
].join('\r\n');
const programShim = '@ECHO off\r\nSETLOCAL\r\nSET dp0=%~dp0\r\n"%dp0%\\node_modules\\tool\\bin\\tool.exe"   %*\r\n';

describe('Windows: npm .cmd shims are run as what they start, never through cmd.exe', () => {
  it('reads the script a Node shim starts, and the program a program shim starts', () => {
    assert.deepEqual(parseCmdShim(nodeShim), {
      target: 'node_modules\\@anthropic-ai\\claude-code\\cli.js',
      viaNode: true,
    });
    assert.deepEqual(parseCmdShim(programShim), { target: 'node_modules\\tool\\bin\\tool.exe', viaNode: false });
    assert.deepEqual(parseCmdShim('"%_prog%"  "%dp0%\\..\\pkg\\cli.js" %*\n'), {
      target: '..\\pkg\\cli.js',
      viaNode: true,
    });
  });

  it('leaves any other batch file alone: no shim line, an absolute target, or more after %*', () => {
    assert.equal(parseCmdShim('@echo off\r\nclaude-real.exe %*\r\n'), undefined);
    assert.equal(parseCmdShim('"%dp0%\\C:\\Windows\\evil.exe" %*'), undefined);
    assert.equal(parseCmdShim('"%_prog%" "%dp0%\\cli.js" %*\r\necho done\r\n'), undefined);
    assert.equal(parseCmdShim(''), undefined);
  });

  const host = (files: Record<string, string>, node?: string): ShimHost => ({
    readText: async (f) => files[f],
    isFile: async (f) => f in files,
    findNode: async () => node,
  });

  it('runs a Node shim with the node.exe beside it, else node from PATH; a program shim runs its program', async () => {
    const shim = 'C:\\Users\\me\\AppData\\Roaming\\npm\\claude.cmd';
    const script = 'C:\\Users\\me\\AppData\\Roaming\\npm\\node_modules\\@anthropic-ai\\claude-code\\cli.js';
    const beside = 'C:\\Users\\me\\AppData\\Roaming\\npm\\node.exe';
    assert.deepEqual(await launchForShim(shim, host({ [shim]: nodeShim, [beside]: '' }, 'C:\\node\\node.exe')), {
      file: beside,
      prefixArgs: [script],
    });
    assert.deepEqual(await launchForShim(shim, host({ [shim]: nodeShim }, 'C:\\node\\node.exe')), {
      file: 'C:\\node\\node.exe',
      prefixArgs: [script],
    });
    assert.equal(await launchForShim(shim, host({ [shim]: nodeShim })), undefined, 'no node anywhere');
    const tool = 'D:\\bin\\tool.CMD';
    assert.deepEqual(await launchForShim(tool, host({ [tool]: programShim })), {
      file: 'D:\\bin\\node_modules\\tool\\bin\\tool.exe',
      prefixArgs: [],
    });
    assert.equal(await launchForShim('D:\\bin\\tool.exe', host({ 'D:\\bin\\tool.exe': programShim })), undefined);
  });

  it('a shim on disk is run as node + its script; the prompt stays one argument', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-shim-'));
    try {
      const shim = path.join(dir, 'claude.cmd');
      fs.writeFileSync(shim, nodeShim);
      const onDisk: ShimHost = {
        readText: async (f) => fs.readFileSync(f, 'utf8'),
        isFile: async (f) => fs.existsSync(f) && fs.statSync(f).isFile(),
        findNode: async () => 'C:\\node\\node.exe',
      };
      const launch = await launchForShim(shim, onDisk);
      assert.deepEqual(launch, {
        file: 'C:\\node\\node.exe',
        prefixArgs: [path.win32.join(dir, 'node_modules\\@anthropic-ai\\claude-code\\cli.js')],
      });
      const prompt = 'Fix "this" & that | more\r\n- a list item %PATH% ^ !x!\n';
      const argv = [...launch!.prefixArgs, ...expandArgs(['-p', '${prompt}'], prompt)];
      assert.deepEqual(argv.slice(1), ['-p', prompt], 'the prompt is one argument, byte for byte');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  // `which` follows the real platform, so finding the shim through PATH and PATHEXT is verified on
  // Windows only (see README, "verified where").
  it('the resolver gives node + script for a shim found through PATH and PATHEXT; the prompt stays one argument', async function () {
    if (process.platform !== 'win32') {
      this.skip();
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-shim-'));
    try {
      const npmDir = path.join(dir, 'npm');
      const nodeDir = path.join(dir, 'nodejs');
      fs.mkdirSync(npmDir);
      fs.mkdirSync(nodeDir);
      fs.writeFileSync(path.join(npmDir, 'claude.cmd'), nodeShim);
      fs.writeFileSync(path.join(nodeDir, 'node.exe'), '');
      const resolver = new PathExecutableResolver({
        demoAgentScript: path.join(dir, 'demoAgent.js'),
        runtime: process.execPath,
        env: { Path: `${npmDir};${nodeDir}`, PATHEXT: '.COM;.EXE;.BAT;.CMD' },
      });
      const resolved = await resolver.resolve('claude');
      assert.deepEqual(resolved, {
        file: path.join(nodeDir, 'node.exe'),
        prefixArgs: [path.win32.join(npmDir, 'node_modules\\@anthropic-ai\\claude-code\\cli.js')],
        env: {},
      });
      const prompt = 'Fix "this" & that | more\r\n- a list item %PATH% ^ !x!\n';
      const argv = [...resolved!.prefixArgs, ...expandArgs(['-p', '${prompt}'], prompt)];
      assert.deepEqual(argv.slice(1), ['-p', prompt], 'the prompt is one argument, byte for byte');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
