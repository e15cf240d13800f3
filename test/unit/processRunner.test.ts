import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchRequest } from '../../src/core/ports';
import { HeadlessRunner } from '../../src/node/processRunner';
import { pidAlive, waitForOutput, waitUntil } from './processTestUtils';

describe('HeadlessRunner (real processes)', function () {
  this.timeout(20000);
  let dir: string;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-runner-'));
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A Node script (lines joined) run as the agent. */
  function request(lines: string[], extra: Partial<LaunchRequest> = {}): LaunchRequest {
    const script = path.join(dir, `script-${Math.random().toString(36).slice(2)}.js`);
    fs.writeFileSync(script, lines.join('\n'));
    return {
      agentId: 'a', title: 'a', file: process.execPath, args: [script], cwd: dir, env: {},
      logPath: path.join(dir, 'logs', 'deep', 'a.log'), ...extra,
    };
  }

  const readLog = (req: LaunchRequest) => fs.readFileSync(req.logPath, 'utf8');

  it('streams stdout and stderr to the log (parent folders created) and to onDidOutput', async () => {
    const req = request(["process.stdout.write('out1\\n');", "process.stderr.write('err1\\n');", 'process.exitCode = 7;']);
    const agent = new HeadlessRunner().start(req);
    let seen = '';
    agent.onDidOutput((t) => (seen += t));
    assert.ok(typeof agent.pid === 'number' && agent.pid > 0);
    assert.deepEqual(await agent.exit, { exitCode: 7 });
    assert.ok(readLog(req).includes('out1\n') && readLog(req).includes('err1\n'));
    assert.equal(seen, readLog(req));
    assert.equal(agent.tail, seen);
  });

  it('runs in the requested folder with process.env plus the request env, stdin closed', async () => {
    const req = request([
      "console.log(JSON.stringify({ cwd: process.cwd(), mine: process.env.MY_VAR, path: process.env.PATH }));",
      "process.stdin.on('data', () => console.log('got input')).on('end', () => console.log('stdin ended'));",
    ], { env: { MY_VAR: 'value with spaces' } });
    const agent = new HeadlessRunner().start(req);
    assert.deepEqual(await agent.exit, { exitCode: 0 });
    const [json, rest] = readLog(req).split('\n');
    const info = JSON.parse(json) as { cwd: string; mine: string; path: string };
    assert.equal(fs.realpathSync(info.cwd), fs.realpathSync(dir));
    assert.equal(info.mine, 'value with spaces');
    assert.equal(info.path, process.env.PATH);
    assert.equal(rest, 'stdin ended');
  });

  it('appends to an existing log', async () => {
    const first = request(["console.log('first')"]);
    await new HeadlessRunner().start(first).exit;
    const second = request(["console.log('second')"], { logPath: first.logPath });
    await new HeadlessRunner().start(second).exit;
    assert.equal(readLog(first), 'first\nsecond\n');
  });

  it('a command that cannot be started resolves exit with an error, never rejects', async () => {
    const req = request([], { file: path.join(dir, 'no-such-agent'), args: ['x'] });
    const agent = new HeadlessRunner().start(req);
    const exit = await agent.exit;
    assert.equal(exit.exitCode, undefined);
    assert.equal(exit.signal, undefined);
    assert.match(exit.error ?? '', /ENOENT/);
    assert.equal(agent.pid, undefined);
    await agent.stop();
    assert.match(readLog(req), /\[runner\] could not start .*no-such-agent/);
  });

  it('a missing working folder is an error too', async () => {
    const exit = await new HeadlessRunner().start(request(["console.log('x')"], { cwd: path.join(dir, 'missing') })).exit;
    assert.ok(exit.error !== undefined, JSON.stringify(exit));
  });

  it('multi-byte characters split across chunks arrive whole', async () => {
    const req = request([
      "const b = Buffer.from('🚀é');",
      'process.stdout.write(b.subarray(0, 2));',
      'setTimeout(() => process.stdout.write(b.subarray(2)), 100);',
    ]);
    const agent = new HeadlessRunner().start(req);
    const chunks: string[] = [];
    agent.onDidOutput((t) => chunks.push(t));
    await agent.exit;
    assert.equal(chunks.join(''), '🚀é');
    assert.ok(chunks.every((c) => !c.includes('\uFFFD')));
  });

  it('large output goes to the log while only a bounded tail stays in memory', async () => {
    const req = request(["const line = 'x'.repeat(1023) + '\\n';", 'for (let i = 0; i < 8192; i++) process.stdout.write(line);', "process.stdout.write('END\\n');"]);
    const agent = new HeadlessRunner({ tailChars: 1000 }).start(req);
    assert.deepEqual(await agent.exit, { exitCode: 0 });
    assert.equal(fs.statSync(req.logPath).size, 8 * 1024 * 1024 + 4);
    assert.equal(agent.tail.length, 1000);
    assert.ok(agent.tail.endsWith('xx\nEND\n'));
  });

  it('exit resolves shortly after the agent exits even if a child it left holds the output open', async () => {
    const req = request([
      "const { spawn } = require('child_process');",
      "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: ['ignore', 'inherit', 'inherit'] });",
      "console.log('leftover ' + child.pid);",
      'child.unref();',
    ]);
    const agent = new HeadlessRunner({ drainMs: 300 }).start(req);
    const started = Date.now();
    assert.deepEqual(await agent.exit, { exitCode: 0 });
    assert.ok(Date.now() - started < 5000, `exit took ${Date.now() - started} ms`);
    const leftover = Number(/leftover (\d+)/.exec(readLog(req))?.[1]);
    assert.ok(pidAlive(leftover), 'the leftover child is not killed by a normal exit');
    await agent.stop();
    await waitUntil(() => !pidAlive(leftover), 2000);
    assert.equal(pidAlive(leftover), false, 'stop() ends what the agent left behind');
  });

  it('stop() escalates to SIGKILL after the grace period when SIGTERM is ignored, for the whole tree', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const req = request([
      "const { spawn } = require('child_process');",
      "process.on('SIGTERM', () => console.log('ignoring SIGTERM'));",
      "const child = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setTimeout(() => {}, 30000)\"], { stdio: 'ignore' });",
      "console.log('grandchild ' + child.pid);",
      'setTimeout(() => {}, 30000);',
    ]);
    const agent = new HeadlessRunner({ graceMs: 500 }).start(req);
    const grandchild = Number(/grandchild (\d+)/.exec(await waitForOutput(agent, 'grandchild '))?.[1]);
    const started = Date.now();
    await agent.stop();
    const took = Date.now() - started;
    assert.deepEqual(await agent.exit, { signal: 'SIGKILL' });
    assert.ok(took >= 450 && took < 5000, `stop took ${took} ms`);
    assert.match(readLog(req), /ignoring SIGTERM/);
    await waitUntil(() => !pidAlive(grandchild), 2000);
    assert.equal(pidAlive(grandchild), false);
  });

  it('stop() twice, or after the exit, is harmless', async () => {
    const agent = new HeadlessRunner().start(request(['setTimeout(() => {}, 30000);']));
    await new Promise((r) => setTimeout(r, 200));
    await Promise.all([agent.stop(), agent.stop()]);
    assert.deepEqual(await agent.exit, { signal: 'SIGTERM' });
    await agent.stop();
    const done = new HeadlessRunner().start(request(['']));
    assert.deepEqual(await done.exit, { exitCode: 0 });
    await done.stop();
  });
});
