// Output nobody looks at costs the host nothing, and nothing is lost for it (real supervisors, real
// agent processes; no timing assertions: a missed event fails by the test's timeout, since the polls
// here are set to minutes).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { LaunchRequest } from '../../src/core/ports';
import { signalGroup } from '../../src/supervisor/processGroup';
import { pidAlive, waitUntil } from './processTestUtils';
import { supervisedFixture } from './supervisedFixture';
import type { SupervisorStatus } from '../../src/supervisor/protocol';

/** Polls that never come within a test: what arrives, arrives through events. */
const noPoll = { pollMs: 600_000, idlePollMs: 600_000 };

/**
 * An agent that prints `bytes` of numbered lines (some not ASCII) to stdout in blocks, waiting for
 * drain, and writes the same bytes to `copy`: what it printed, to compare the log with.
 */
function printer(copy: string, bytes: number, tag: string): string[] {
  return [
    "const fs = require('fs');",
    `const copy = fs.openSync(${JSON.stringify(copy)}, 'w');`,
    `let i = 0, written = 0; const total = ${bytes};`,
    'function more() {',
    '  while (written < total) {',
    "    let block = '';",
    `    for (let k = 0; k < 50; k++, i++) block += '${tag} line ' + i + (i % 7 ? ' output' : ' résumé ✓ 🚀') + '\\n';`,
    '    fs.writeSync(copy, block); written += Buffer.byteLength(block);',
    "    if (!process.stdout.write(block)) return process.stdout.once('drain', more);",
    '  }',
    '}',
    'more();',
  ];
}

describe('quiet output: real agents under the supervisor', function () {
  this.timeout(120_000);
  const fx = supervisedFixture('pa-quiet-');
  const { runner, statusOf } = fx;
  const request = (id: string, lines: string[]): LaunchRequest => fx.request(lines, { agentId: id });

  it('16 agents × 3 MB at once, half of them followed: every byte in every log; the followed get all of it; nobody reads the others', async () => {
    // Every open of a log by this host, by path: the real module object, which the runner's bundle reads.
    const realFs = createRequire(__filename)('node:fs') as typeof fs;
    const open = realFs.promises.open;
    const opens = new Map<string, number>();
    realFs.promises.open = ((file: fs.PathLike, ...rest: unknown[]) => {
      opens.set(String(file), (opens.get(String(file)) ?? 0) + 1);
      return (open as (...args: unknown[]) => Promise<fs.promises.FileHandle>)(file, ...rest);
    }) as typeof open;
    try {
      const r = runner({ ...noPoll, tailChars: 5000 });
      const agents = Array.from({ length: 16 }, (_, k) => {
        const copy = path.join(fx.dir, `printed-${k}.txt`);
        const req = request(`q${k}`, printer(copy, 3 * 1024 * 1024, `agent${k}`));
        const agent = r.start(req);
        let seen = '';
        if (k % 2 === 0) {
          agent.onDidOutput((text) => (seen += text));
        }
        return { k, req, copy, agent, seen: () => seen };
      });
      const exits = await Promise.all(agents.map((a) => a.agent.exit));
      const opensWhileQuiet = agents.filter((a) => a.k % 2 === 1).map((a) => opens.get(a.req.logPath) ?? 0);
      for (const [i, { k, req, copy, agent, seen }] of agents.entries()) {
        assert.deepEqual(exits[i], { exitCode: 0 });
        const printed = fs.readFileSync(copy);
        assert.ok(printed.length >= 3 * 1024 * 1024);
        assert.ok(fs.readFileSync(req.logPath).equals(printed), `log of agent ${k}: every byte, in order`);
        const text = printed.toString('utf8');
        assert.equal(agent.tail, text.slice(-5000), `agent ${k}: the tail is the output's real end`);
        if (k % 2 === 0) {
          assert.equal(seen(), text, `agent ${k}: its listener got every character, in order`);
        }
      }
      assert.deepEqual(
        opensWhileQuiet,
        opensWhileQuiet.map(() => 1),
        'an agent whose output nobody followed had its log opened once: for its tail, at its end',
      );
    } finally {
      realFs.promises.open = open;
    }
  });

  it('output printed while nobody listened comes to the listener that comes later, from where reading stopped', async () => {
    const go = path.join(fx.dir, 'go');
    const req = request('late', [
      "const fs = require('fs'); const path = require('path');",
      "for (let i = 0; i < 2000; i++) process.stdout.write('before ' + i + ' ✓\\n');",
      `const go = ${JSON.stringify(go)};`,
      // Looked at once more after the watch is set: on a loaded machine the test may write `go` before that.
      'let done = false;',
      "const check = () => { if (!done && fs.existsSync(go)) { done = true; w.close(); console.log('after go'); } };",
      'const w = fs.watch(path.dirname(go), check);',
      'check();',
    ]);
    const agent = runner(noPoll).start(req);
    const first: string[] = [];
    const sub = agent.onDidOutput((t) => first.push(t));
    await waitUntil(() => first.join('').includes('before 9 '), 20_000);
    sub.dispose();
    const expectedSize = Buffer.byteLength(Array.from({ length: 2000 }, (_, i) => `before ${i} ✓\n`).join(''));
    await waitUntil(() => fs.statSync(req.logPath).size >= expectedSize, 20_000);
    let later = '';
    agent.onDidOutput((t) => (later += t));
    fs.writeFileSync(go, '');
    assert.deepEqual(await agent.exit, { exitCode: 0 });
    assert.equal(first.join('') + later, fs.readFileSync(req.logPath, 'utf8'), 'every byte once, in order');
    assert.match(later, /after go\n$/);
  });

  it("an idle agent's end is noticed without any poll: its own supervisor, and one adopted from another host", async () => {
    const own = runner(noPoll).start(request('idle1', ['setTimeout(() => { process.exitCode = 3; }, 1500);']));
    assert.deepEqual(await own.exit, { exitCode: 3 });

    const first = runner(noPoll).start(request('idle2', ['setTimeout(() => { process.exitCode = 4; }, 4000);']));
    await waitUntil(() => statusOf('idle2')?.state === 'running', 10_000);
    first.detach();
    const adopted = runner(noPoll).adopt('idle2');
    assert.ok(adopted, 'adopted by a host that did not start its supervisor: no exit event from it');
    assert.deepEqual(await adopted.exit, { exitCode: 4 });
  });

  it('an agent whose supervisor died while no host watched is noticed at adoption; one that dies while adopted, by the slow poll', async () => {
    const sleeper = ["console.log('ready');", 'setTimeout(() => {}, 60_000);'];
    const gone = runner(noPoll).start(request('gone', sleeper));
    await waitUntil(() => statusOf('gone')?.state === 'running', 10_000);
    gone.detach();
    const status = statusOf('gone') as SupervisorStatus;
    process.kill(status.supervisorPid, 'SIGKILL');
    signalGroup(status.agentPid as number, 'SIGKILL');
    await waitUntil(() => !pidAlive(status.supervisorPid) && !pidAlive(status.agentPid as number), 10_000);
    const found = runner(noPoll).adopt('gone');
    assert.ok(found);
    assert.deepEqual(await found.exit, { error: 'lost while the window was closed' });

    const watched = runner(noPoll).start(request('watched', sleeper));
    await waitUntil(() => statusOf('watched')?.state === 'running', 10_000);
    watched.detach();
    // Not this host's child, so its death sends no event: only the slow poll can notice it.
    const adopted = runner({ pollMs: 600_000, idlePollMs: 300 }).adopt('watched');
    assert.ok(adopted);
    const running = statusOf('watched') as SupervisorStatus;
    process.kill(running.supervisorPid, 'SIGKILL');
    assert.deepEqual(await adopted.exit, { error: 'supervisor lost' });
    await waitUntil(() => !pidAlive(running.agentPid as number), 10_000);
    assert.equal(pidAlive(running.agentPid as number), false, 'what was left of the agent is ended too');
  });
});
