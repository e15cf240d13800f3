// A profile with `promptVia: "stdin"` (the opencode preset's way): the real AgentManager, supervisor
// and a real process that reads its standard input, in real worktrees. The real OpenCode is driven
// the same way in test/agents/realClis.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { type Profile, builtinProfiles } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import { englishMessage, englishStored } from '../../src/ui/errorText';
import { ManagerFixture, git } from './managerFixture';
import { TerminalStandIn } from './terminalStandIn';

describe('a profile that gives the task on standard input', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let profile: Profile;

  beforeEach(() => {
    fx = new ManagerFixture();
    // Appends its whole standard input (it ends only once the input is closed) to received.txt, and
    // records its arguments: the task must not be among them.
    const script = path.join(fx.tmp, 'stdinAgent.js');
    fs.writeFileSync(
      script,
      [
        'const fs = require("fs");',
        'const chunks = [];',
        'process.stdin.on("data", (c) => chunks.push(c)).on("end", () => {',
        '  fs.appendFileSync("received.txt", Buffer.concat(chunks));',
        '  fs.appendFileSync("args.json", JSON.stringify(process.argv.slice(2)) + "\\n");',
        '});',
        '',
      ].join('\n'),
    );
    profile = {
      name: 'stdin-agent',
      command: process.execPath,
      args: [script, '--first'],
      continueArgs: [script, '--continue'],
      mode: 'headless',
      promptVia: 'stdin',
    };
    manager = fx.manager({ profiles: () => [...builtinProfiles, profile] });
  });

  afterEach(() => fx.dispose());

  it('the task and a follow-up reach the agent byte for byte on its input, never as an argument', async () => {
    const prompt = '- create notes/hello.txt saying "hi" $(touch pwned)\n  ünïcödé 🚀\n';
    const record = await manager.dispatch({ prompt, profile: profile.name, folder: fx.repo, title: 'stdin' });
    const done = await fx.finished(manager, record.id);
    assert.equal(done.status, 'succeeded', done.error);
    const worktree = done.worktreePath as string;
    assert.ok(fs.readFileSync(path.join(worktree, 'received.txt')).equals(Buffer.from(prompt, 'utf8')));
    const followUp = "then say 'bye'";
    await manager.followUp(record.id, followUp);
    const again = await fx.finished(manager, record.id);
    assert.equal(again.status, 'succeeded', again.error);
    assert.equal(fs.readFileSync(path.join(worktree, 'received.txt'), 'utf8'), prompt + followUp);
    assert.deepEqual(
      fs
        .readFileSync(path.join(worktree, 'args.json'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string[]),
      [['--first'], ['--continue']],
    );
    assert.ok(!fs.existsSync(path.join(worktree, 'pwned')));
  });

  it('is refused in a terminal before anything is created', async () => {
    for (const options of [{ isolation: 'terminal' as const }, { inTerminal: true }]) {
      await assert.rejects(
        manager.dispatch({ prompt: 'x y', profile: profile.name, folder: fx.repo, ...options }),
        (e) => {
          assert.ok(AgentError.isCode(e, 'stdinPromptInTerminal'), String(e));
          assert.ok(AgentError.is(e, 'invalidProfile'));
          assert.match(englishMessage(e), /Profile "stdin-agent" gives the task on standard input/);
          return true;
        },
      );
    }
    assert.equal(manager.list().length, 0);
    assert.ok(!fs.existsSync(path.join(fx.tmp, 'repo.worktrees')));
    assert.equal(git(fx.repo, 'branch', '--list', 'agents/*'), '');
  });

  it('a terminal agent whose profile now reads stdin: its follow-up fails with the reason, starting nothing', async () => {
    const terminals = new TerminalStandIn();
    let current: Profile = { ...profile, args: [...profile.args, '${prompt}'], promptVia: undefined };
    const inTerminal = fx.manager({ profiles: () => [current], terminalRunner: terminals });
    try {
      const record = await inTerminal.dispatch({
        prompt: 'first',
        profile: profile.name,
        folder: fx.repo,
        inTerminal: true,
      });
      assert.equal(record.mode, 'terminal');
      // The stand-in terminal gives the process no input: it ends at once.
      assert.equal((await fx.finished(inTerminal, record.id)).status, 'succeeded');
      current = profile;
      await inTerminal.followUp(record.id, 'second');
      const failed = await fx.finished(inTerminal, record.id);
      assert.equal(failed.status, 'failed');
      assert.match(englishStored(failed.error ?? ''), /Profile "stdin-agent" gives the task on standard input/);
      assert.equal(terminals.started.length, 1, 'the follow-up started no process');
    } finally {
      terminals.killAll();
    }
  });
});
