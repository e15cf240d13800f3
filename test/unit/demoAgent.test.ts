import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LaunchRequest, ProcessExit } from '../../src/core/ports';
import { AgentEventParser } from '../../src/core/clis/agentEvents';
import { ownOutput } from '../../src/core/clis/ownEvents';
import { extractPlanJson, planningPrompt, replyText } from '../../src/core/plans/planningRequest';
import { demoCommand, expandArgs, findProfile, builtinProfiles } from '../../src/core/clis/profiles';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { SupervisedRunner, type SupervisedProcess } from '../../src/node/supervisedRunner';
import { pidAlive, waitForOutput, waitUntil } from './processTestUtils';

// Compiled to out/test/unit/; the bundled agent and supervisor are in dist/ at the repository root.
const demoAgentScript = path.resolve(__dirname, '../../../dist/demoAgent.js');
const supervisorScript = path.resolve(__dirname, '../../../dist/supervisor.js');
const stepLine = /^\[demo\] (create|append|replace|delete|rename|mkdir|sleep|exit|print|ignored|notes)( |$)/;

interface Run {
  readonly exit: ProcessExit;
  readonly log: string;
  readonly output: string;
}

describe('demo agent (real process)', function () {
  this.timeout(20000);
  let dir: string;
  let logs: string;
  let processes: SupervisedProcess[];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-demo-'));
    logs = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-demo-logs-'));
    processes = [];
  });

  afterEach(async () => {
    // The supervisor is detached: nothing a test started may outlive it.
    await Promise.all(processes.map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(logs, { recursive: true, force: true });
  });

  /** Starts an agent with the product's runner; its state folder is in the per-test `logs` folder, away from the agent's `dir`. */
  function start(request: LaunchRequest): SupervisedProcess {
    const agent = new SupervisedRunner({
      supervisorScript,
      runtime: process.execPath,
      stateDir: path.join(logs, 'state'),
    }).start(request);
    processes.push(agent);
    return agent;
  }

  /** `asProfile`: with the demo profile's environment too, as the extension starts it (its JSON lines on). */
  async function launch(prompt: string, asProfile = false): Promise<SupervisedProcess> {
    const resolved = await new PathExecutableResolver({ demoAgentScript, runtime: process.execPath }).resolve(
      demoCommand,
    );
    assert.ok(resolved, 'the demo agent resolves');
    const profile = findProfile(builtinProfiles, 'demo');
    return start({
      agentId: 'demo-1',
      title: 'demo',
      file: resolved.file,
      args: [...resolved.prefixArgs, ...expandArgs(profile.args, prompt)],
      cwd: dir,
      env: { ...resolved.env, ...(asProfile ? profile.env : {}) },
      logPath: path.join(logs, 'nested', 'demo-1.log'),
    });
  }

  async function run(prompt: string, asProfile = false): Promise<Run> {
    const agent = await launch(prompt, asProfile);
    let output = '';
    agent.onDidOutput((text) => (output += text));
    const exit = await agent.exit;
    return { exit, log: fs.readFileSync(path.join(logs, 'nested', 'demo-1.log'), 'utf8'), output };
  }

  const read = (rel: string) => fs.readFileSync(path.join(dir, rel), 'utf8');
  const exists = (rel: string) => fs.existsSync(path.join(dir, rel));
  const progressLines = (log: string) => log.split('\n').filter((l) => stepLine.test(l));

  it('edits files for real and prints one progress line per step', async () => {
    fs.writeFileSync(path.join(dir, 'old.txt'), 'bye');
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'keep');
    const prompt = [
      'Implement the feature, please.',
      'create src/a.txt: alpha\\nbeta\\n',
      'append src/a.txt: gamma\\n',
      'replace src/a.txt: beta => BETA $&',
      'mkdir build/out',
      'rename keep.txt -> docs/kept.txt',
      'delete old.txt',
      'print all done',
      'sleep 0.1',
    ].join('\n');
    const { exit, log, output } = await run(prompt);
    assert.deepEqual(exit, { exitCode: 0 });
    assert.equal(read('src/a.txt'), 'alpha\nBETA $&\ngamma\n');
    assert.ok(fs.statSync(path.join(dir, 'build/out')).isDirectory());
    assert.equal(read('docs/kept.txt'), 'keep');
    assert.equal(exists('keep.txt'), false);
    assert.equal(exists('old.txt'), false);
    assert.equal(exists('AGENT_NOTES.md'), false);
    assert.deepEqual(progressLines(log), [
      '[demo] ignored line 1: Implement the feature, please.',
      '[demo] create src/a.txt',
      '[demo] append src/a.txt',
      '[demo] replace src/a.txt',
      '[demo] mkdir build/out',
      '[demo] rename keep.txt -> docs/kept.txt',
      '[demo] delete old.txt',
      '[demo] print',
      '[demo] sleep 0.1',
    ]);
    assert.ok(log.includes('\n[demo] print\nall done\n'));
    assert.match(
      log,
      /\[demo\] summary: 9 step\(s\) run, 5 path\(s\) changed: build\/out, docs\/kept.txt, keep.txt, old.txt, src\/a.txt; exit 0\n$/,
    );
    assert.equal(output, log, 'onDidOutput carries exactly what the log holds');
  });

  it('run as its profile says, also reports its summary as its final message in the JSON lines', async () => {
    const profile = findProfile(builtinProfiles, 'demo');
    assert.equal(profile.output, 'parallel-agents-json');
    const { exit, log } = await run('create a.txt: one\\ntwo\\n\nprint hi', true);
    assert.deepEqual(exit, { exitCode: 0 });
    const summary = '2 step(s) run, 1 path(s) changed: a.txt; exit 0';
    assert.ok(log.includes(`\n[demo] summary: ${summary}\n`), 'the lines for people stay');
    const parser = new AgentEventParser(profile.output!);
    parser.push(log);
    parser.end();
    assert.deepEqual(parser.state, {
      progress: {},
      result: `${summary}\n\n- create a.txt\n- print`,
      denials: [],
      reportedError: false,
    });
    const failed = await run('replace a.txt: missing => x', true);
    const failedParser = new AgentEventParser(profile.output!);
    failedParser.push(failed.log);
    assert.equal(failedParser.state.reportedError, true);
    assert.match(
      failedParser.state.result ?? '',
      /^0 step\(s\) run, 0 path\(s\) changed; exit 1\n\n- replace a\.txt\n- error: line 1: replace a\.txt: text not found/,
    );
  });

  it('run as its profile says, answers a planning request with its plan as the final message', async () => {
    const plain = await run(planningPrompt('Add a users table.\nShow users in the UI.', ['demo']), false);
    fs.rmSync(path.join(logs, 'nested'), { recursive: true, force: true });
    const { log } = await run(planningPrompt('Add a users table.\nShow users in the UI.', ['demo']), true);
    assert.equal(replyText(log), plain.log, 'Plan with Agent reads the same reply');
    assert.ok(extractPlanJson(replyText(log)), 'which holds the plan');
    const parser = new AgentEventParser(ownOutput);
    parser.push(log);
    assert.equal(parser.state.result, plain.log.trim());
  });

  it('prints no JSON line when run from a terminal (without its profile environment)', async () => {
    const { log } = await run('create a.txt: one', false);
    assert.equal(log.split('\n').filter((l) => l.startsWith('{')).length, 0);
  });

  it('exit N ends the run with that code and skips the rest', async () => {
    const { exit, log } = await run('create a.txt: 1\nexit 3\ncreate b.txt: 2');
    assert.deepEqual(exit, { exitCode: 3 });
    assert.equal(read('a.txt'), '1');
    assert.equal(exists('b.txt'), false);
    assert.match(log, /summary: 2 step\(s\) run.*exit 3/);
  });

  it('a failing step prints an error, exits 1 and runs nothing after it', async () => {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'hello');
    const { exit, log } = await run('replace a.txt: missing => x\ncreate b.txt: never');
    assert.deepEqual(exit, { exitCode: 1 });
    assert.match(log, /\[demo\] error: line 1: replace a\.txt: text not found: "missing"/);
    assert.equal(read('a.txt'), 'hello');
    assert.equal(exists('b.txt'), false);
  });

  it('refuses a path outside its folder, also through a symbolic link', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-outside-'));
    try {
      fs.symlinkSync(outside, path.join(dir, 'link'));
      for (const prompt of [
        'create ../escaped.txt: x',
        'create link/escaped.txt: x',
        `create ${path.join(outside, 'abs.txt')}: x`,
      ]) {
        const { exit, log } = await run(prompt);
        assert.deepEqual(exit, { exitCode: 1 }, prompt);
        assert.match(log, /\[demo\] error: /);
      }
      assert.deepEqual(fs.readdirSync(outside), []);
      assert.equal(fs.existsSync(path.join(path.dirname(dir), 'escaped.txt')), false);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('a prompt without commands writes it to AGENT_NOTES.md, appending on the next run', async () => {
    const prompt = "Refactor the parser.\nKeep the tests green; don't touch $(anything).";
    const first = await run(prompt);
    assert.deepEqual(first.exit, { exitCode: 0 });
    assert.ok(read('AGENT_NOTES.md').startsWith('# Agent notes\n'));
    assert.ok(read('AGENT_NOTES.md').endsWith(`## Prompt\n\n${prompt}\n`));
    assert.deepEqual(progressLines(first.log), [
      '[demo] ignored line 1: Refactor the parser.',
      "[demo] ignored line 2: Keep the tests green; don't touch $(anything).",
      '[demo] notes AGENT_NOTES.md (the prompt has no command)',
    ]);
    await run('second task');
    assert.equal(read('AGENT_NOTES.md').split('## Prompt').length, 3);
    assert.ok(read('AGENT_NOTES.md').endsWith('## Prompt\n\nsecond task\n'));
  });

  it('the log file is appended to across runs', async () => {
    await run('print one');
    const { log } = await run('print two');
    assert.match(log, /one\n[\s\S]*two\n/);
  });

  it('sleep 30 is ended by stop() within seconds, with a signal', async () => {
    const agent = await launch('print started\nsleep 30\ncreate late.txt: x');
    await waitForOutput(agent, 'started');
    const started = Date.now();
    await agent.stop();
    const exit = await agent.exit;
    assert.ok(Date.now() - started < 5000, `stop took ${Date.now() - started} ms`);
    assert.deepEqual(exit, { signal: 'SIGTERM', stopRequested: true });
    assert.equal(exists('late.txt'), false);
  });

  it('stop() also ends a grandchild the agent started', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    const script = path.join(dir, 'spawner.js');
    fs.writeFileSync(
      script,
      [
        "const { spawn } = require('child_process');",
        "const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });",
        "console.log('grandchild ' + child.pid);",
        'setTimeout(() => {}, 30000);',
      ].join('\n'),
    );
    const agent = start({
      agentId: 'g',
      title: 'g',
      file: process.execPath,
      args: [script],
      cwd: dir,
      env: {},
      logPath: path.join(logs, 'g.log'),
    });
    const grandchild = Number(/grandchild (\d+)/.exec(await waitForOutput(agent, 'grandchild '))?.[1]);
    assert.ok(grandchild > 0 && pidAlive(grandchild), 'the grandchild runs');
    await agent.stop();
    assert.deepEqual(await agent.exit, { signal: 'SIGTERM', stopRequested: true });
    await waitUntil(() => !pidAlive(grandchild), 2000);
    assert.equal(pidAlive(grandchild), false, `grandchild ${grandchild} still alive`);
  });

  it('refuses to run with other than one argument (exit 2)', async () => {
    const agent = start({
      agentId: 'a',
      title: 'a',
      file: process.execPath,
      args: [demoAgentScript, 'one', 'two'],
      cwd: dir,
      env: {},
      logPath: path.join(logs, 'a.log'),
    });
    assert.deepEqual(await agent.exit, { exitCode: 2 });
    assert.match(fs.readFileSync(path.join(logs, 'a.log'), 'utf8'), /exactly one argument/);
  });
});
