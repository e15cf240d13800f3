// One Run on its own: a real process under the real supervisor (dist/supervisor.js), no manager and
// no record. What the run reports — output, progress, its end — arrives only through its events and
// `ended`.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentActivity } from '../../src/core/agent';
import { Run, type RunOptions } from '../../src/core/agents/run';
import { SetupRun } from '../../src/core/worktrees/setupRun';
import type { LaunchRequest } from '../../src/core/ports';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { englishStored } from '../../src/ui/errorText';
import { agentOutputFixtures } from './recordedCli';
import { supervisorScript } from './managerFixture';

describe('Run: one agent process, followed through its events', function () {
  this.timeout(60_000);
  let tmp = '';
  let runner: SupervisedRunner;
  const runs: Run[] = [];

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-run-')));
    runner = new SupervisedRunner({
      supervisorScript,
      runtime: process.execPath,
      stateDir: path.join(tmp, 'state'),
      graceMs: 500,
      pollMs: 100,
    });
  });

  afterEach(async () => {
    for (const run of runs.splice(0)) {
      await run.stop().catch(() => undefined);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  function start(script: string, args: string[], options: Partial<RunOptions> = {}): Run {
    const request: LaunchRequest = {
      agentId: `a${runs.length}`,
      title: 'a run',
      file: process.execPath,
      args: ['-e', script, ...args],
      cwd: tmp,
      env: {},
      logPath: path.join(tmp, `a${runs.length}.log`),
    };
    const run = new Run(runner.start(request), {
      agentId: request.agentId,
      cwd: tmp,
      startedAt: Date.now(),
      adopted: false,
      timeoutMs: 0,
      clock: { now: () => Date.now() },
      logger: { info() {}, warn() {}, error() {} },
      ...options,
    });
    runs.push(run);
    return run;
  }

  it("emits the CLI's output; without an output format no progress; a clean exit ends succeeded", async () => {
    const fixture = fs.readFileSync(path.join(agentOutputFixtures, 'claude-edit.jsonl'), 'utf8');
    const run = start('process.stdout.write(require("fs").readFileSync(process.argv[1], "utf8"))', [
      path.join(agentOutputFixtures, 'claude-edit.jsonl'),
    ]);
    let output = '';
    const progress: AgentActivity[] = [];
    run.onDidOutput((text) => (output += text));
    run.onDidProgress((a) => progress.push(a));
    const end = await run.ended;
    assert.equal(end.status, 'succeeded');
    assert.equal(end.exitCode, 0);
    assert.equal(end.error, undefined);
    assert.equal(output, fixture);
    assert.equal(progress.length, 0, 'a run without an output format reports no progress');
    assert.equal(end.activity, undefined);
  });

  it('with the claude format: progress events while it runs, the final answer at its end', async () => {
    const run = start(
      'process.stdout.write(require("fs").readFileSync(process.argv[1], "utf8"))',
      [path.join(agentOutputFixtures, 'claude-edit.jsonl')],
      { output: 'claude-stream-json' },
    );
    const progress: AgentActivity[] = [];
    run.onDidProgress((a) => progress.push(a));
    const end = await run.ended;
    assert.equal(end.status, 'succeeded');
    assert.ok(progress.length > 0, 'progress was reported while it ran');
    assert.ok(end.activity?.result, 'the final answer is in the end activity');
    assert.ok((end.activity?.turns ?? 0) > 0, 'turns were counted');
  });

  it('a non-zero exit ends failed with its code; a full disk in its last output says diskFull', async () => {
    const failed = start('process.exit(3)', []);
    const full = start('console.error("write: No space left on device"); process.exit(1)', []);
    const [a, b] = await Promise.all([failed.ended, full.ended]);
    assert.equal(a.status, 'failed');
    assert.equal(a.exitCode, 3);
    assert.equal(a.errorReason, undefined);
    assert.equal(b.status, 'failed');
    assert.equal(b.errorReason, 'diskFull');
    assert.match(englishStored(b.error ?? ''), /disk/i);
  });

  it('a JSON-events agent after MBs of other output: its step, turns and answer arrive with nobody listening to its output', async () => {
    const fixture = path.join(agentOutputFixtures, 'claude-edit.jsonl');
    const run = start(
      [
        "const line = 'a line that is not an event ✓ '.repeat(3) + '\\n';",
        "let n = 0; const text = require('fs').readFileSync(process.argv[1], 'utf8');",
        'function more() { while (n < 40000) { n++; if (!process.stdout.write(line)) return process.stdout.once("drain", more); }',
        '  process.stdout.write(text); }',
        'more();',
      ].join('\n'),
      [fixture],
      { output: 'claude-stream-json' },
    );
    const progress: AgentActivity[] = [];
    run.onDidProgress((a) => progress.push(a));
    const end = await run.ended;
    assert.equal(end.status, 'succeeded');
    assert.ok(
      progress.some((a) => a.step !== undefined),
      'a step was reported while it ran',
    );
    assert.ok((end.activity?.turns ?? 0) > 0, 'turns were counted');
    assert.ok(end.activity?.result, 'the final answer is in the end activity');
  });

  it("the end of a run's output is its real last output, with nobody listening: 4 MB, then a full disk", async () => {
    const run = start(
      [
        "const line = 'x'.repeat(99) + '\\n'; let n = 0;",
        'function more() { while (n < 40000) { n++; if (!process.stdout.write(line)) return process.stdout.once("drain", more); }',
        '  console.log("write: No space left on device"); process.exitCode = 1; }',
        'more();',
      ].join('\n'),
      [],
    );
    const end = await run.ended;
    assert.equal(end.status, 'failed');
    assert.equal(end.errorReason, 'diskFull', 'the last line, after 4 MB, was seen');
  });

  it("a failed setup command's error ends with its real last lines, after MBs of output nobody listened to", async () => {
    const logPath = path.join(tmp, 'setup.log');
    const request: LaunchRequest = {
      agentId: 'setup1',
      title: 'setup',
      file: process.execPath,
      args: [
        '-e',
        [
          "const line = 'installing '.repeat(9) + '\\n'; let n = 0;",
          'function more() { while (n < 40000) { n++; if (!process.stdout.write(line)) return process.stdout.once("drain", more); }',
          '  console.log("npm ERR! the real reason"); process.exitCode = 2; }',
          'more();',
        ].join('\n'),
      ],
      cwd: tmp,
      env: {},
      logPath,
    };
    const setup = SetupRun.launch(runner, request, (exit, output) => `exit ${exit.exitCode}: ${output.trim()}`, {
      info() {},
      warn() {},
      error() {},
    });
    assert.ok(typeof setup !== 'string');
    const end = await setup.ended;
    assert.equal(end.outcome, 'failed');
    const error = end.outcome === 'failed' ? end.error : '';
    assert.match(error, /^exit 2: /);
    assert.ok(error.endsWith('installing \nnpm ERR! the real reason'), error.slice(-200));
    assert.ok(error.length < 10_000, 'only the end of the output');
  });

  it('stop() ends it stopped; a timeout ends it timed-out', async () => {
    const stopped = start('setInterval(() => {}, 1000)', []);
    const timed = start('setInterval(() => {}, 1000)', [], { timeoutMs: 300 });
    await new Promise((r) => setTimeout(r, 200));
    await stopped.stop();
    const [a, b] = await Promise.all([stopped.ended, timed.ended]);
    assert.equal(a.status, 'stopped');
    assert.equal(b.status, 'timed-out');
  });
});
