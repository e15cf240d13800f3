import * as assert from 'node:assert/strict';
import type { Timers } from '../../src/core/clis/agentProgress';
import { inputPatch, inputState } from '../../src/core/agents/inputState';
import { closeExit, findTerminalByPid, type TerminalSource } from '../../src/core/clis/terminalAgents';
import { Emitter } from '../../src/util/event';

interface FakeTerminal {
  readonly name: string;
  readonly pid: Promise<number | undefined>;
}

/** VS Code's terminal list as the adoption sees it: terminals open now, and those opening later. */
class Terminals implements TerminalSource<FakeTerminal> {
  readonly open: FakeTerminal[] = [];
  private readonly opened = new Emitter<FakeTerminal>();
  subscribers = 0;
  readonly current = () => this.open;
  readonly onDidOpen = (listener: (t: FakeTerminal) => void) => {
    this.subscribers++;
    const d = this.opened.event(listener);
    return {
      dispose: () => {
        this.subscribers--;
        d.dispose();
      },
    };
  };
  readonly pidOf = (t: FakeTerminal) => t.pid;
  add(name: string, pid: number | undefined | Promise<number | undefined>): FakeTerminal {
    const terminal = { name, pid: Promise.resolve(pid) };
    this.open.push(terminal);
    this.opened.fire(terminal);
    return terminal;
  }
}

/** Timers that fire only when the test says so. */
class ManualTimers implements Timers {
  private pending = new Map<number, () => void>();
  private ids = 0;
  now = () => 0;
  setTimeout(fn: () => void): unknown {
    this.pending.set(++this.ids, fn);
    return this.ids;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fireAll(): void {
    const fns = [...this.pending.values()];
    this.pending.clear();
    fns.forEach((fn) => fn());
  }
  get scheduled(): number {
    return this.pending.size;
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('terminal agents across reloads', () => {
  describe('findTerminalByPid', () => {
    it('adopts the open terminal whose pid matches, whatever its name, and stops listening', async () => {
      const terminals = new Terminals();
      const timers = new ManualTimers();
      terminals.add('Agent: fix', 111);
      const revived = terminals.add('bash', 222); // a revived terminal loses its options, its name may differ
      const found = await findTerminalByPid(terminals, 222, 15_000, timers);
      assert.equal(found, revived);
      assert.equal(terminals.subscribers, 0);
      assert.equal(timers.scheduled, 0);
    });

    it('waits for a terminal that VS Code revives after activation', async () => {
      const terminals = new Terminals();
      const timers = new ManualTimers();
      const pending = findTerminalByPid(terminals, 333, 15_000, timers);
      terminals.add('other', 444);
      await settle();
      const late = terminals.add('Agent: late', 333);
      assert.equal(await pending, late);
      assert.equal(timers.scheduled, 0);
    });

    it('gives up when no terminal with the pid comes in time: the agent is then detached', async () => {
      const terminals = new Terminals();
      const timers = new ManualTimers();
      terminals.add('Agent: same name', 555);
      const pending = findTerminalByPid(terminals, 556, 15_000, timers);
      await settle();
      timers.fireAll();
      assert.equal(await pending, undefined);
      assert.equal(terminals.subscribers, 0);
      terminals.add('too late', 556);
    });

    it('answers at once when the record has no pid (a record from before pids were kept)', async () => {
      const terminals = new Terminals();
      terminals.add('x', 1);
      assert.equal(await findTerminalByPid(terminals, undefined, 15_000, new ManualTimers()), undefined);
      assert.equal(terminals.subscribers, 0);
    });

    it('ignores terminals without a process id and ones whose pid lookup fails', async () => {
      const terminals = new Terminals();
      const timers = new ManualTimers();
      terminals.add('no pid', undefined);
      terminals.open.push({ name: 'broken', pid: Promise.reject(new Error('gone')) });
      const pending = findTerminalByPid(terminals, 7, 15_000, timers);
      await settle();
      timers.fireAll();
      assert.equal(await pending, undefined);
    });
  });

  describe('closeExit', () => {
    it('does not end the agent when the window shuts down', () => {
      assert.equal(closeExit('shutdown', false, undefined), undefined);
      assert.equal(closeExit('process', true, 0), undefined, 'any close after deactivate is the shutdown');
      assert.equal(closeExit('unknown', true, undefined), undefined);
    });

    it('ends it with the process exit code otherwise, and as stopped when the user closed a running one', () => {
      assert.deepEqual(closeExit('process', false, 0), { exitCode: 0 });
      assert.deepEqual(closeExit('process', false, 3), { exitCode: 3 });
      assert.deepEqual(closeExit('user', false, undefined), { exitCode: undefined, stopRequested: true });
      assert.deepEqual(closeExit('extension', false, undefined), { exitCode: undefined });
    });
  });

  describe('input state', () => {
    it('is unknown without shell integration, and for a revived terminal even with it', () => {
      assert.equal(inputState({ shellIntegration: false, revived: false, runningCommands: 0 }), 'unknown');
      assert.equal(inputState({ shellIntegration: false, revived: false, runningCommands: 2 }), 'unknown');
      assert.equal(inputState({ shellIntegration: true, revived: true, runningCommands: 0 }), 'unknown');
    });

    it('comes from shell integration when it can be trusted: idle prompt = waiting, a running command = busy', () => {
      assert.equal(inputState({ shellIntegration: true, revived: false, runningCommands: 0 }), 'waiting');
      assert.equal(inputState({ shellIntegration: true, revived: false, runningCommands: 1 }), 'busy');
    });

    it('moves a running agent between running and waiting for input, and never a finished one', () => {
      assert.deepEqual(inputPatch({ status: 'running' }, 'waiting'), { status: 'waiting-for-input', input: 'tracked' });
      assert.deepEqual(inputPatch({ status: 'waiting-for-input' }, 'busy'), { status: 'running', input: 'tracked' });
      assert.deepEqual(inputPatch({ status: 'waiting-for-input' }, 'unknown'), { status: 'running', input: 'unknown' });
      for (const status of ['succeeded', 'failed', 'detached', 'stopped', 'preparing'] as const) {
        assert.equal(inputPatch({ status }, 'waiting'), undefined, status);
      }
    });
  });
});
