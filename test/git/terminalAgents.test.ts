// Terminal agents across a reload with real git and real demo-agent processes. VS Code's terminals
// are played by TerminalStandIn: each "terminal" is a real child process, which, like a terminal of
// VS Code's persistent sessions, outlives the manager (window) that started it and keeps its pid.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { ManagerFixture, git } from './managerFixture';
import { TerminalStandIn } from './terminalStandIn';

describe('terminal agents across a reload (real git, real processes)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let terminals: TerminalStandIn;
  const profiles = () => [
    ...builtinProfiles,
    { name: 'demo-terminal', command: '${demoAgent}', args: ['${prompt}'], mode: 'terminal' as const },
  ];
  const manager = () => fx.manager({ terminalRunner: terminals, profiles });

  beforeEach(() => {
    fx = new ManagerFixture();
    terminals = new TerminalStandIn();
  });

  afterEach(async () => {
    terminals.killAll();
    await fx.dispose();
  });

  async function waitFor<T>(what: string, probe: () => T | undefined): Promise<T> {
    for (let i = 0; i < 400; i++) {
      const value = probe();
      if (value !== undefined) {
        return value;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  async function dispatchRunning(m: AgentManager, prompt: string): Promise<{ id: string; pid: number }> {
    const record = await m.dispatch({ prompt, profile: 'demo-terminal', folder: fx.repo, title: 'Terminal work' });
    assert.equal(record.mode, 'terminal');
    const pid = await waitFor('the terminal pid in the record', () => m.get(record.id).terminalPid);
    await m.flush();
    return { id: record.id, pid };
  }

  it('records the pid; after the window closes the next one adopts the same process, which ends succeeded', async () => {
    const first = manager();
    const { id, pid } = await dispatchRunning(first, 'sleep 1.5\ncreate done.txt: yes');
    assert.equal(first.get(id).input, 'unknown', 'no shell integration: input unknown, never a guess');
    first.dispose(); // the window reloads: the process is left running
    assert.equal(store(fx).find((r) => r.id === id)?.status, 'running');
    assert.equal(store(fx).find((r) => r.id === id)?.terminalPid, pid);

    const second = manager();
    assert.equal(second.get(id).status, 'running', 'adopted, not interrupted');
    assert.ok(second.isRunning(id));
    const done = await fx.finished(second, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'done.txt'), 'utf8').trim(), 'yes');
  });

  it('without a revived terminal the agent is detached, its worktree kept; Reopen in Terminal runs it again; it can be discarded', async () => {
    const first = manager();
    const { id, pid } = await dispatchRunning(first, 'create a.txt: one\nsleep 30');
    first.dispose();
    terminals.children.get(pid)!.child.kill('SIGKILL'); // this window's VS Code did not keep it
    terminals.revives = false;

    const second = manager();
    const detached = await waitFor('detached', () =>
      second.get(id).status === 'detached' ? second.get(id) : undefined,
    );
    assert.ok(!second.isRunning(id));
    assert.ok(fs.existsSync(detached.worktreePath!), 'the worktree is kept');
    assert.match(git(fx.repo, 'worktree', 'list', '--porcelain'), new RegExp(`branch refs/heads/${detached.branch}`));
    await second.flush();
    assert.equal(store(fx).find((r) => r.id === id)?.status, 'detached');

    terminals.started = [];
    await second.reopenTerminal(id);
    assert.equal(terminals.started.length, 1);
    assert.equal(terminals.started[0].cwd, detached.worktreePath, 'reopened in its worktree');
    assert.equal(terminals.started[0].args.at(-1), 'create a.txt: one\nsleep 30', 'with its prompt');
    assert.equal(second.get(id).status, 'running');
    await second.stop(id);
    assert.equal(second.get(id).status, 'stopped');
    await assert.rejects(
      second.reopenTerminal(id),
      (e) => AgentError.is(e, 'invalidTransition'),
      'only a detached agent is reopened',
    );

    const landing = new AgentLanding(second, fx.git, {
      info() {},
      warn() {},
      error() {},
    });
    await landing.discard(id);
    assert.equal(second.get(id).status, 'discarded');
    assert.ok(!fs.existsSync(detached.worktreePath!));
  });

  it('a running terminal agent whose record kept no pid is detached: no terminal is adopted by a guess', async () => {
    const first = manager();
    const { id } = await dispatchRunning(first, 'sleep 30');
    first.dispose();
    const saved = store(fx).map((r) => (r.id === id ? { ...r, terminalPid: undefined } : r));
    fx.store.records = saved;
    const second = manager();
    await waitFor('detached', () => (second.get(id).status === 'detached' ? true : undefined));
    assert.ok(!second.isRunning(id));
  });
});

function store(fx: ManagerFixture) {
  return fx.store.records;
}
