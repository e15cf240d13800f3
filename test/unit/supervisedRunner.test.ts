import * as assert from 'node:assert/strict';
import { englishStored } from '../../src/ui/errorText';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AgentError } from '../../src/core/errors';
import type { LaunchRequest } from '../../src/core/ports';
import { demoCommand, expandArgs, findProfile, builtinProfiles } from '../../src/core/clis/profiles';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { SupervisedRunner, type SupervisedRunnerOptions } from '../../src/node/supervisedRunner';
import { englishMessage } from '../../src/ui/errorText';
import { pidAlive, waitForOutput, waitUntil } from './processTestUtils';
import { supervisedFixture } from './supervisedFixture';
import type { SupervisorStatus } from '../../src/supervisor/protocol';

// Compiled to out/test/unit/; the bundles are in dist/ at the repository root.
const demoAgentScript = path.resolve(__dirname, '../../../dist/demoAgent.js');

/** Launcher mode: this bundle, required by a child Node process, starts one agent and waits to be killed. */
interface LauncherInput {
  readonly options: SupervisedRunnerOptions;
  readonly request: LaunchRequest;
}

const launcher = process.env.PA_SUPERVISED_LAUNCHER;
if (launcher !== undefined) {
  const input = JSON.parse(launcher) as LauncherInput;
  const agent = new SupervisedRunner(input.options).start(input.request);
  agent.onDidOutput(() => undefined);
  process.stdout.write(`launched ${agent.pid}\n`);
  setInterval(() => undefined, 1000);
} else {
  describe('SupervisedRunner (real processes)', function () {
    this.timeout(60000);
    const fx = supervisedFixture('pa-supervised-', { pollMs: 200 });
    const { options, runner, request, statusOf } = fx;
    const readLog = (req: LaunchRequest) => fs.readFileSync(req.logPath, 'utf8');
    const numbered = (count: number, everyMs: number, exitCode: number) => [
      `let i = 0; const t = setInterval(() => { console.log('line ' + i); if (++i === ${count}) { clearInterval(t); process.exitCode = ${exitCode}; } }, ${everyMs});`,
    ];
    const lineNumbers = (text: string) => [...text.matchAll(/^line (\d+)$/gm)].map((m) => Number(m[1]));
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);

    it('writes the spec with mode 0600 for a supervisor in its own process group, which deletes it', async () => {
      const probe = path.join(fx.dir, 'probe.js');
      const report = path.join(fx.dir, 'probe.json');
      fs.writeFileSync(
        probe,
        [
          "const fs = require('fs');",
          'const spec = process.argv[2];',
          "const stat = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');",
          `fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify({ spec, mode: fs.statSync(spec).mode & 0o777, keys: Object.keys(JSON.parse(fs.readFileSync(spec, 'utf8'))).sort(), pgrp: Number(stat[2]), pid: process.pid, electron: process.env.ELECTRON_RUN_AS_NODE }));`,
        ].join('\n'),
      );
      const probed = runner({ supervisorScript: probe }).start(request(['']));
      assert.deepEqual(await probed.exit, { error: 'supervisor lost' });
      const seen = JSON.parse(fs.readFileSync(report, 'utf8')) as {
        spec: string;
        mode: number;
        keys: string[];
        pgrp: number;
        pid: number;
        electron: string;
      };
      assert.equal(seen.spec, path.join(fx.stateDir, 'a1.spec.json'));
      assert.equal(seen.mode, 0o600);
      assert.deepEqual(seen.keys, [
        'args',
        'cwd',
        'drainMs',
        'env',
        'file',
        'graceMs',
        'logPath',
        'maxLogBytes',
        'statusPath',
      ]);
      assert.equal(seen.pgrp, seen.pid, 'the supervisor leads its own process group');
      assert.equal(seen.electron, '1');
      assert.equal(fs.existsSync(seen.spec), false, 'a spec the supervisor never consumed is deleted too');
      assert.equal(fs.statSync(fx.stateDir).mode & 0o777, 0o700);

      const real = runner().start(request(['setTimeout(() => {}, 300);']));
      await waitUntil(() => statusOf('a1')?.state === 'running', 5000);
      assert.equal(fs.existsSync(seen.spec), false, 'the supervisor deleted the spec after reading it');
      assert.deepEqual(await real.exit, { exitCode: 0 });
    });

    it('output arrives live and completely: 2000 numbered lines, stdout and stderr, in the log and on onDidOutput', async () => {
      const req = request([
        'let i = 0;',
        "const t = setInterval(() => { for (let k = 0; k < 100; k++, i++) (i % 10 === 9 ? process.stderr : process.stdout).write('line ' + i + '\\n');",
        '  if (i === 2000) { clearInterval(t); setTimeout(() => {}, 300); } }, 10);',
      ]);
      const agent = runner().start(req);
      let seen = '';
      let firstAt = 0;
      agent.onDidOutput((text) => {
        firstAt ||= Date.now();
        seen += text;
      });
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      const exitAt = Date.now();
      // stdout and stderr are two pipes: their lines interleave in arrival order.
      assert.deepEqual(
        lineNumbers(readLog(req)).sort((x, y) => x - y),
        range(2000),
      );
      assert.equal(seen, readLog(req));
      assert.ok(exitAt - firstAt > 300, `output arrived while the agent ran (${exitAt - firstAt} ms before the end)`);
      assert.equal(agent.tail, seen.slice(-16384));
      const status = statusOf('a1');
      assert.equal(status?.state, 'ended');
    });

    it('measures output latency (watch events, with a fast or a very slow poll)', async () => {
      const script = [
        "let i = 0; const t = setInterval(() => { console.log('t=' + Date.now()); if (++i === 30) clearInterval(t); }, 40);",
      ];
      for (const pollMs of [200, 100000]) {
        const agent = runner({ pollMs }).start(request(script, { agentId: `lat${pollMs}` }));
        const delays: number[] = [];
        agent.onDidOutput((text) => {
          for (const m of text.matchAll(/t=(\d+)/g)) {
            delays.push(Date.now() - Number(m[1]));
          }
        });
        assert.deepEqual(await agent.exit, { exitCode: 0 });
        delays.sort((a, b) => a - b);
        assert.equal(delays.length, 30);
        console.log(`      measured: output latency (pollMs ${pollMs}): median ${delays[15]} ms, max ${delays[29]} ms`);
        assert.ok(delays[15] < 250, `median latency ${delays[15]} ms`);
      }
    });

    it('poll fallback: with fs.watch failing, output and the end still arrive, within about pollMs', async () => {
      // The real module object: the bundle reads its properties through getters, so this patch reaches the runner.
      const realFs = createRequire(__filename)('node:fs') as typeof fs;
      const watch = realFs.watch;
      realFs.watch = (() => {
        throw new Error('watching is not supported here');
      }) as typeof fs.watch;
      try {
        const agent = runner({ pollMs: 100 }).start(
          request([
            "let i = 0; const t = setInterval(() => { console.log('t=' + Date.now()); if (++i === 20) { clearInterval(t); process.exitCode = 2; } }, 40);",
          ]),
        );
        const delays: number[] = [];
        agent.onDidOutput((text) =>
          [...text.matchAll(/t=(\d+)/g)].forEach((m) => delays.push(Date.now() - Number(m[1]))),
        );
        assert.deepEqual(await agent.exit, { exitCode: 2 });
        delays.sort((a, b) => a - b);
        assert.equal(delays.length, 20);
        console.log(
          `      measured: output latency by polling alone (pollMs 100): median ${delays[10]} ms, max ${delays[19]} ms`,
        );
        assert.ok(delays[19] < 1000);
      } finally {
        realFs.watch = watch;
      }
    });

    it('records the exit code and the signal in the status file', async () => {
      const coded = runner().start(request(["process.stderr.write('err1\\n');", 'process.exitCode = 7;']));
      assert.ok(typeof coded.pid === 'number' && coded.pid > 0);
      assert.deepEqual(await coded.exit, { exitCode: 7 });
      assert.deepEqual(coded.status, statusOf('a1'));
      const ended = statusOf('a1');
      assert.ok(
        ended?.state === 'ended' &&
          ended.exitCode === 7 &&
          ended.signal === undefined &&
          ended.endedAt >= ended.startedAt,
      );

      const killed = runner().start(
        request(["console.log('before');", "process.kill(process.pid, 'SIGKILL');"], { agentId: 'a2' }),
      );
      assert.deepEqual(await killed.exit, { signal: 'SIGKILL' });
      const signalled = statusOf('a2');
      assert.ok(signalled?.state === 'ended' && signalled.signal === 'SIGKILL' && signalled.exitCode === undefined);
      assert.ok(typeof signalled.agentPid === 'number' && !pidAlive(signalled.agentPid));
      await waitUntil(() => !pidAlive(signalled.supervisorPid), 2000);
      assert.equal(pidAlive(signalled.supervisorPid), false, 'the supervisor exits after the agent');
    });

    it('runs in the requested folder with process.env plus the request env, stdin closed; the banner goes to the log first', async () => {
      const req = request(
        [
          'console.log(JSON.stringify({ cwd: process.cwd(), mine: process.env.MY_VAR, path: process.env.PATH }));',
          "process.stdin.on('data', () => console.log('got input')).on('end', () => console.log('stdin ended'));",
        ],
        { env: { MY_VAR: 'value with spaces' }, banner: '> follow-up: do more' },
      );
      fs.mkdirSync(path.dirname(req.logPath), { recursive: true });
      fs.writeFileSync(req.logPath, 'earlier run\n');
      const agent = runner().start(req);
      let seen = '';
      agent.onDidOutput((t) => (seen += t));
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      const [earlier, banner, json, rest] = readLog(req).split('\n');
      assert.equal(earlier, 'earlier run');
      assert.equal(banner, '> follow-up: do more');
      const info = JSON.parse(json) as { cwd: string; mine: string; path: string };
      assert.equal(fs.realpathSync(info.cwd), fs.realpathSync(fx.dir));
      assert.equal(info.mine, 'value with spaces');
      assert.equal(info.path, process.env.PATH);
      assert.equal(rest, 'stdin ended');
      assert.equal(
        seen,
        `${json}\nstdin ended\n`,
        'live output starts after the banner (the manager shows the banner itself)',
      );
      assert.equal(agent.startOffset, 'earlier run\n> follow-up: do more\n'.length);
    });

    it('a command that cannot be started, or a missing folder, ends with an error, never a rejection', async () => {
      const missing = request([], { file: path.join(fx.dir, 'no-such-agent'), args: ['x'] });
      const agent = runner().start(missing);
      const exit = await agent.exit;
      assert.match(exit.error ?? '', /ENOENT/);
      assert.equal(exit.exitCode, undefined);
      assert.equal(exit.signal, undefined);
      assert.equal(agent.status?.agentPid, undefined, 'no agent process ever existed');
      assert.match(readLog(missing), /\[runner\] could not start .*no-such-agent/);
      await agent.stop();
      const noFolder = runner().start(
        request(["console.log('x')"], { agentId: 'a2', cwd: path.join(fx.dir, 'missing') }),
      );
      assert.ok((await noFolder.exit).error !== undefined);
      const noRuntime = runner({ runtime: path.join(fx.dir, 'no-node') }).start(request([''], { agentId: 'a3' }));
      assert.match(englishStored((await noRuntime.exit).error ?? ''), /could not start the supervisor.*ENOENT/);
      assert.equal(fs.existsSync(path.join(fx.stateDir, 'a3.spec.json')), false);
    });

    it('multi-byte characters split across writes arrive whole', async () => {
      const agent = runner().start(
        request([
          "const b = Buffer.from('🚀é');",
          'process.stdout.write(b.subarray(0, 2));',
          'setTimeout(() => process.stdout.write(b.subarray(2)), 300);',
        ]),
      );
      const chunks: string[] = [];
      agent.onDidOutput((t) => chunks.push(t));
      await agent.exit;
      assert.equal(chunks.join(''), '🚀é');
      assert.ok(chunks.every((c) => !c.includes('\uFFFD')));
    });

    it('stop() ends a sleep-30 agent and its grandchild within seconds, leaving no process', async () => {
      const req = request([
        "const { spawn } = require('child_process');",
        "const child = spawn('sleep', ['30'], { stdio: 'ignore' });",
        "console.log('grandchild ' + child.pid);",
        'setTimeout(() => {}, 30000);',
      ]);
      const agent = runner({ graceMs: 3000 }).start(req);
      const grandchild = Number(/grandchild (\d+)/.exec(await waitForOutput(agent, 'grandchild '))?.[1]);
      const status = agent.status as SupervisorStatus;
      const started = Date.now();
      await Promise.all([agent.stop(), agent.stop()]);
      const took = Date.now() - started;
      console.log(`      measured: stop() of a cooperative agent with a grandchild: ${took} ms`);
      assert.deepEqual(await agent.exit, { signal: 'SIGTERM', stopRequested: true });
      assert.ok(took < 3000, `stop took ${took} ms`);
      for (const pid of [grandchild, status.agentPid as number, status.supervisorPid]) {
        assert.equal(pidAlive(pid), false, `pid ${pid} is gone`);
      }
      const ended = statusOf('a1');
      assert.ok(ended?.state === 'ended' && ended.stopRequested === true);
      await agent.stop();
    });

    it('an agent (and grandchild) ignoring SIGTERM is SIGKILLed after graceMs', async () => {
      const req = request([
        "const { spawn } = require('child_process');",
        "process.on('SIGTERM', () => console.log('ignoring SIGTERM'));",
        "const child = spawn(process.execPath, ['-e', \"process.on('SIGTERM', () => {}); setTimeout(() => {}, 30000)\"], { stdio: 'ignore' });",
        "console.log('grandchild ' + child.pid);",
        'setTimeout(() => {}, 30000);',
      ]);
      const agent = runner({ graceMs: 500 }).start(req);
      const grandchild = Number(/grandchild (\d+)/.exec(await waitForOutput(agent, 'grandchild '))?.[1]);
      const started = Date.now();
      await agent.stop();
      const took = Date.now() - started;
      console.log(`      measured: stop() of an agent ignoring SIGTERM (graceMs 500): ${took} ms`);
      assert.deepEqual(await agent.exit, { signal: 'SIGKILL', stopRequested: true });
      assert.ok(took >= 450 && took < 5000, `stop took ${took} ms`);
      assert.match(readLog(req), /ignoring SIGTERM/);
      assert.equal(pidAlive(grandchild), false);
    });

    it('stop() after a normal end ends the children the agent left behind', async () => {
      const agent = runner().start(
        request([
          "const { spawn } = require('child_process');",
          "const child = spawn('sleep', ['30'], { stdio: 'ignore' });",
          "console.log('leftover ' + child.pid);",
          'child.unref();',
        ]),
      );
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      const leftover = Number(/leftover (\d+)/.exec(fs.readFileSync(path.join(fx.dir, 'logs', 'a1.log'), 'utf8'))?.[1]);
      assert.ok(pidAlive(leftover));
      await agent.stop();
      await waitUntil(() => !pidAlive(leftover), 2000);
      assert.equal(pidAlive(leftover), false);
    });

    it('exit resolves soon after the agent exits (drainMs) even while a child it left holds the output pipes open', async () => {
      const req = request([
        "const { spawn } = require('child_process');",
        "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: ['ignore', 'inherit', 'inherit'] });",
        "console.log('leftover ' + child.pid);",
        'child.unref();',
      ]);
      const agent = runner({ drainMs: 300 }).start(req);
      const started = Date.now();
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.ok(Date.now() - started < 5000, `exit took ${Date.now() - started} ms`);
      const leftover = Number(/leftover (\d+)/.exec(readLog(req))?.[1]);
      assert.ok(pidAlive(leftover), 'the leftover child is not killed by a normal exit');
      await agent.stop();
      await waitUntil(() => !pidAlive(leftover), 2000);
      assert.equal(pidAlive(leftover), false, 'stop() ends what the agent left behind');
    });

    it('8 MiB written without waiting for drain all reach the log, while only a bounded tail stays in memory', async () => {
      const req = request([
        "const line = 'x'.repeat(1023) + '\\n';",
        'for (let i = 0; i < 8192; i++) process.stdout.write(line);',
        "process.stdout.write('END\\n');",
      ]);
      const agent = runner({ tailChars: 1000 }).start(req);
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.equal(fs.statSync(req.logPath).size, 8 * 1024 * 1024 + 4);
      assert.equal(agent.tail.length, 1000);
      assert.ok(agent.tail.endsWith('xx\nEND\n'));
    });

    it('survives its host: a fresh runner adopts the running agent, live output continues, no byte is missing', async () => {
      const req = request(numbered(300, 10, 3));
      const first = runner().start(req);
      await waitForOutput(first, 'line 50\n');
      first.detach();
      await delay(200);
      const began = performance.now();
      const adopted = runner().adopt('a1');
      const adoptMs = performance.now() - began;
      assert.ok(adopted);
      let live = '';
      let firstLiveAt = 0;
      adopted.onDidOutput((t) => {
        firstLiveAt ||= performance.now();
        live += t;
      });
      assert.deepEqual(await adopted.exit, { exitCode: 3 });
      console.log(
        `      measured: adopt() ${adoptMs.toFixed(2)} ms; first live output ${(firstLiveAt - began).toFixed(0)} ms after it`,
      );
      const log = readLog(req);
      assert.deepEqual(lineNumbers(log), range(300));
      const before = await adopted.readLogFrom(0, { end: adopted.startOffset });
      assert.equal(before.skipped, 0);
      assert.equal(before.next, adopted.startOffset);
      assert.equal(before.text + live, log, 'what came before plus what came live is the whole log');
      assert.ok(lineNumbers(live).length > 100, 'most lines arrived live after adoption');
    });

    it("keeps a run's state where stateDirFor says (a repository's registry): any runner with that folder adopts it", async () => {
      const own = path.join(fx.dir, 'registry', 'runs');
      const shared = (extra: Partial<SupervisedRunnerOptions> = {}) =>
        runner({ stateDirFor: (cwd) => (cwd === fx.dir ? own : undefined), ...extra });
      const req = request(numbered(200, 10, 0), { agentId: 'r1' });
      const first = shared().start(req);
      await waitForOutput(first, 'line 20\n');
      first.detach();
      assert.ok(fs.existsSync(path.join(own, 'r1.status.json')), 'the status is in the folder stateDirFor named');
      assert.equal(fs.existsSync(path.join(fx.stateDir, 'r1.status.json')), false, 'and not in the common stateDir');
      assert.equal(runner().adopt('r1'), undefined, 'a runner that does not know the folder finds nothing');
      const adopted = shared().adopt('r1', { cwd: fx.dir });
      assert.ok(adopted, 'another runner (window) adopts it by its folder');
      assert.deepEqual(await adopted.exit, { exitCode: 0 });
      shared().forget('r1', { cwd: fx.dir });
      assert.equal(fs.existsSync(path.join(own, 'r1.status.json')), false, 'forget() removes it there');
    });

    it('survives a host that is SIGKILLed after launching (a child Node process)', async () => {
      const req = request(numbered(300, 10, 4), { agentId: 'k1' });
      const host = spawn(process.execPath, ['-e', `require(${JSON.stringify(__filename)})`], {
        env: { ...process.env, PA_SUPERVISED_LAUNCHER: JSON.stringify({ options: options(), request: req }) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let hostOut = '';
      host.stdout.on('data', (d: Buffer) => (hostOut += d.toString()));
      await waitUntil(() => /line 40\n/.test(fs.existsSync(req.logPath) ? readLog(req) : ''), 10000);
      const supervisorPid = Number(/launched (\d+)/.exec(hostOut)?.[1]);
      host.kill('SIGKILL');
      await new Promise((resolve) => host.once('exit', resolve));
      await delay(100);
      assert.ok(pidAlive(supervisorPid), 'the supervisor outlived its host');
      const adopted = runner().adopt('k1');
      assert.ok(adopted);
      assert.equal(adopted.pid, supervisorPid);
      let live = '';
      adopted.onDidOutput((t) => (live += t));
      assert.deepEqual(await adopted.exit, { exitCode: 4 });
      const log = readLog(req);
      assert.deepEqual(lineNumbers(log), range(300));
      const before = await adopted.readLogFrom(0, { end: adopted.startOffset });
      assert.equal(before.text + live, log);
      assert.ok(lineNumbers(live).length > 100);
      await waitUntil(() => !pidAlive(supervisorPid), 2000);
      assert.equal(pidAlive(supervisorPid), false);
    });

    it('a host dying right after start() still leaves an adoptable agent (status "starting" until the supervisor writes)', async () => {
      const req = request(numbered(50, 10, 6));
      const first = runner().start(req);
      const early = statusOf('a1');
      assert.equal(early?.state, 'starting');
      assert.equal(early?.supervisorPid, first.pid);
      first.detach();
      const adopted = runner().adopt('a1');
      assert.ok(adopted);
      let live = '';
      adopted.onDidOutput((t) => (live += t));
      assert.deepEqual(await adopted.exit, { exitCode: 6 });
      assert.deepEqual(lineNumbers(live), range(50));
      assert.equal(live, readLog(req));
    });

    it('Stop works on an adopted agent', async () => {
      const req = request(["console.log('ready');", 'setTimeout(() => {}, 30000);']);
      const first = runner().start(req);
      await waitForOutput(first, 'ready');
      const status = first.status as SupervisorStatus;
      first.detach();
      const adopted = runner().adopt('a1');
      assert.ok(adopted);
      const started = Date.now();
      await adopted.stop();
      assert.deepEqual(await adopted.exit, { signal: 'SIGTERM', stopRequested: true });
      assert.ok(Date.now() - started < 3000);
      assert.equal(pidAlive(status.agentPid as number), false);
      assert.equal(pidAlive(status.supervisorPid), false);
    });

    it('adopt() after the agent ended while away settles at once with the real exit status', async () => {
      const first = runner().start(request(["console.log('done');", 'process.exitCode = 5;']));
      first.detach();
      const signalled = runner().start(
        request(["process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 1000);"], { agentId: 'a2' }),
      );
      signalled.detach();
      await waitUntil(() => statusOf('a1')?.state === 'ended' && statusOf('a2')?.state === 'ended', 10000);
      const began = performance.now();
      const adopted = runner().adopt('a1');
      assert.ok(adopted);
      assert.deepEqual(await adopted.exit, { exitCode: 5 });
      console.log(
        `      measured: adopt() of an agent that ended while away, until exit resolved: ${(performance.now() - began).toFixed(2)} ms`,
      );
      assert.deepEqual(await runner().adopt('a2')?.exit, { signal: 'SIGTERM' });
      await adopted.stop();
    });

    it('adopt(): nothing known → undefined; "running" with nothing alive → lost while the window was closed', async () => {
      const r = runner();
      assert.equal(r.adopt('never-started'), undefined);
      fs.mkdirSync(fx.stateDir, { recursive: true });
      fs.writeFileSync(path.join(fx.stateDir, 'bad.status.json'), '{"state":"runn');
      assert.equal(r.adopt('bad'), undefined);
      const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
      const deadPid = Number(dead.stdout.trim());
      const logPath = path.join(fx.dir, 'logs', 'gone.log');
      fs.mkdirSync(path.dirname(logPath), { recursive: true });
      fs.writeFileSync(logPath, 'partial output\n');
      const running: SupervisorStatus = {
        state: 'running',
        supervisorPid: deadPid,
        agentPid: deadPid,
        logPath,
        startedAt: Date.now() - 1000,
      };
      fs.writeFileSync(path.join(fx.stateDir, 'gone.status.json'), JSON.stringify(running));
      const lost = r.adopt('gone');
      assert.ok(lost);
      assert.deepEqual(await lost.exit, { error: 'lost while the window was closed' });
      assert.throws(
        () => r.adopt('../evil'),
        (e) =>
          AgentError.isCode(e, 'invalidAgentId') &&
          e.data.id === '../evil' &&
          /Invalid agent id/.test(englishMessage(e)),
      );
    });

    it('adopt(): a recorded pid now used by another process is never taken for ours, nor signalled', async () => {
      const stranger = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
      try {
        const logPath = path.join(fx.dir, 'logs', 'reused.log');
        fs.mkdirSync(path.dirname(logPath), { recursive: true });
        fs.mkdirSync(fx.stateDir, { recursive: true });
        fs.writeFileSync(logPath, '');
        const pid = stranger.pid as number;
        const running = {
          state: 'running',
          supervisorPid: pid,
          supervisorStart: '1',
          agentPid: pid,
          agentStart: '1',
          logPath,
          startedAt: 0,
        };
        fs.writeFileSync(path.join(fx.stateDir, 'reused.status.json'), JSON.stringify(running));
        const adopted = runner().adopt('reused');
        assert.ok(adopted);
        assert.deepEqual(await adopted.exit, { error: 'lost while the window was closed' });
        await adopted.stop();
        assert.ok(pidAlive(pid), 'the stranger lives on');
      } finally {
        stranger.kill('SIGKILL');
      }
    });

    it('a supervisor killed under a live host: exit says supervisor lost, and the agent is ended too', async () => {
      const agent = runner().start(request(["console.log('ready');", 'setTimeout(() => {}, 30000);']));
      await waitForOutput(agent, 'ready');
      const status = agent.status as SupervisorStatus;
      process.kill(status.supervisorPid, 'SIGKILL');
      assert.deepEqual(await agent.exit, { error: 'supervisor lost' });
      assert.equal(pidAlive(status.agentPid as number), false);
    });

    it('caps the log: 3 MB through a 1 MiB cap keeps the newest part below a cut marker; live output shows every byte or says what it skipped', async () => {
      const lines = 30000;
      const pad = 'x'.repeat(90);
      const full = range(lines)
        .map((i) => `line ${i} ${pad}\n`)
        .join('');
      const req = request([
        `let i = 0; const pad = ${JSON.stringify(pad)};`,
        `function more() { let chunk = ''; for (let k = 0; k < 500 && i < ${lines}; k++, i++) chunk += 'line ' + i + ' ' + pad + '\\n';`,
        '  if (chunk) process.stdout.write(chunk, more); }',
        'more();',
      ]);
      const agent = runner({ maxLogBytes: 1024 * 1024 }).start(req);
      let live = '';
      agent.onDidOutput((t) => (live += t));
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      const log = readLog(req);
      const size = fs.statSync(req.logPath).size;
      const marker = /^\[parallel-agents\] (\d+) bytes of older output were cut here\n/.exec(log);
      assert.ok(marker, 'the cut is marked at the top');
      assert.ok(size <= 1024 * 1024 + marker[0].length, `log size ${size}`);
      assert.ok(size >= 400 * 1024, 'roughly the newest half (or more) is kept');
      assert.equal(Number(marker[1]) + size - marker[0].length, full.length, 'the marker counts exactly the bytes cut');
      assert.equal(
        log.slice(marker[0].length),
        full.slice(Number(marker[1])),
        'the kept part is the newest output, byte for byte',
      );
      assert.ok(log.slice(marker[0].length).startsWith('line '), 'the kept part starts at a line');
      const slice = await agent.readLogFrom(0, { maxBytes: 100 });
      assert.equal(slice.skipped, Number(marker[1]));
      assert.equal(slice.text, full.slice(Number(marker[1]), Number(marker[1]) + 100));
      // A reader more than half the cap behind the agent (a busy host) loses the gap, and says so exactly.
      const skipped = assertLiveIsStreamMinusGaps(live, full);
      console.log(
        `      measured: ${full.length} bytes through a 1 MiB cap left a ${size}-byte log; live output skipped ${skipped} bytes`,
      );
    });

    it('heavy output (40 MiB) reaches onDidOutput without stalling this event loop', async () => {
      const req = request([
        "const line = 'y'.repeat(1023) + '\\n'; let n = 0;",
        'function more() { while (n < 40 * 1024) { n++; if (!process.stdout.write(line)) return process.stdout.once("drain", more); } }',
        'more();',
      ]);
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      const started = performance.now();
      const agent = runner().start(req);
      let bytes = 0;
      agent.onDidOutput((t) => (bytes += t.length));
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      const seconds = (performance.now() - started) / 1000;
      histogram.disable();
      const p99 = histogram.percentile(99) / 1e6;
      console.log(
        `      measured: 40 MiB in ${seconds.toFixed(2)} s (${(40 / seconds).toFixed(0)} MiB/s); event-loop delay p99 ${p99.toFixed(0)} ms, max ${(histogram.max / 1e6).toFixed(0)} ms`,
      );
      assert.equal(bytes, 40 * 1024 * 1024);
      assert.equal(fs.statSync(req.logPath).size, 40 * 1024 * 1024);
      assert.ok(p99 < 250, `event-loop delay p99 ${p99} ms`);
    });

    it('runs the bundled demo agent under the supervisor', async () => {
      const resolved = await new PathExecutableResolver({ demoAgentScript, runtime: process.execPath }).resolve(
        demoCommand,
      );
      assert.ok(resolved);
      const args = [
        ...resolved.prefixArgs,
        ...expandArgs(findProfile(builtinProfiles, 'demo').args, 'create hello.txt: hi\\n\nprint all done'),
      ];
      const agent = runner().start({
        agentId: 'demo1',
        title: 'demo',
        file: resolved.file,
        args,
        cwd: fx.dir,
        env: { ...resolved.env },
        logPath: path.join(fx.dir, 'logs', 'demo1.log'),
      });
      let seen = '';
      agent.onDidOutput((t) => (seen += t));
      assert.deepEqual(await agent.exit, { exitCode: 0 });
      assert.equal(fs.readFileSync(path.join(fx.dir, 'hello.txt'), 'utf8'), 'hi\n');
      assert.match(seen, /all done/);
    });
  });
}

/** Live output must be the agent's output with only announced gaps; returns the bytes skipped. */
function assertLiveIsStreamMinusGaps(live: string, full: string): number {
  const note = /\n\[parallel-agents\] (\d+) bytes of output were cut before they could be shown\n/g;
  let streamPos = 0;
  let livePos = 0;
  let skipped = 0;
  for (const m of live.matchAll(note)) {
    assert.equal(live.slice(livePos, m.index), full.slice(streamPos, streamPos + m.index - livePos));
    streamPos += m.index - livePos + Number(m[1]);
    skipped += Number(m[1]);
    livePos = m.index + m[0].length;
  }
  assert.equal(live.slice(livePos), full.slice(streamPos), 'live output is the output, byte for byte');
  return skipped;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
