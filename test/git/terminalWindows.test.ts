// A terminal agent another window runs is never marked detached by this window's start. Two windows
// on one repository, each an AgentManager with its own RegistryStore on the repository's registry
// and its own terminals: real child processes standing in for VS Code's terminals (TerminalStandIn),
// so a window finds no terminal of another window's agent, as in VS Code. Real git, real processes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord, AgentStatus } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { elsewhereGraceMs } from '../../src/core/agents/runningElsewhere';
import { registryDirSync } from '../../src/node/registry/location';
import { recordsOnDisk } from '../../src/node/registry/recordsOnDisk';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { openRegistryStore } from './registryFixture';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture } from './managerFixture';
import { TerminalStandIn } from './terminalStandIn';

const profiles = () => [
  ...builtinProfiles,
  { name: 'demo-terminal', command: '${demoAgent}', args: ['${prompt}'], mode: 'terminal' as const },
];

interface Window {
  readonly manager: AgentManager;
  readonly terminals: TerminalStandIn;
  /** Every status this window's copy of each agent took, in order. */
  readonly seen: Map<string, AgentStatus[]>;
}

describe('a terminal agent of another window stays running while its process lives (real git, real processes)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let registry: string;
  const windows: Window[] = [];
  const stores: RegistryStore<AgentRecord>[] = [];

  beforeEach(() => {
    fx = new ManagerFixture();
    registry = registryDirSync(fx.repo) as string;
  });

  afterEach(async () => {
    windows.splice(0).forEach((w) => w.terminals.killAll());
    stores.splice(0).forEach((s) => s.dispose());
    await fx.dispose();
  });

  function window(name: string): Window {
    const store = openRegistryStore(registry);
    stores.push(store);
    const terminals = new TerminalStandIn();
    let n = 0;
    const seen = new Map<string, AgentStatus[]>();
    const manager = fx.manager({
      store,
      terminalRunner: terminals,
      profiles,
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(registry, 'logs') }),
      newId: () => `${name}${Date.now().toString(36)}${n++}`,
    });
    // Restore ran in the constructor: its first statuses are read from the list.
    manager.list().forEach((r) => seen.set(r.id, [r.status]));
    manager.onDidChangeAgent(({ id }) => {
      const status = manager.list().find((r) => r.id === id)?.status;
      const list = seen.get(id) ?? [];
      if (status && list.at(-1) !== status) {
        seen.set(id, [...list, status]);
      }
    });
    const w = { manager, terminals, seen };
    windows.push(w);
    return w;
  }

  async function dispatchTerminal(w: Window, prompt: string): Promise<{ id: string; pid: number }> {
    const record = await w.manager.dispatch({ prompt, profile: 'demo-terminal', folder: fx.repo, title: 'Terminal' });
    const pid = await waitFor('the terminal pid in the record', () => w.manager.get(record.id).terminalPid);
    await w.manager.flush();
    return { id: record.id, pid };
  }

  const onDisk = async (id: string) => (await recordsOnDisk<AgentRecord>(fx.repo, 'agents')).find((r) => r.id === id);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('B opens while A runs a terminal agent: B shows it running, never detached; A ends it; B shows its end', async () => {
    const a = window('a');
    const { id, pid } = await dispatchTerminal(a, 'sleep 4\ncreate done.txt: yes');
    const b = window('b');
    assert.equal(b.manager.get(id).status, 'running');
    // B's adoption finds no terminal of it: that "run" ends at once, and the record stays as A keeps it.
    assert.equal((await b.manager.whenEnded(id)).status, 'running');
    assert.ok(!b.manager.isRunning(id), 'B follows no run of it: its terminal is in A');
    // A poll of its process has come and gone meanwhile.
    await sleep(1500);
    assert.equal(b.manager.get(id).status, 'running', 'running elsewhere, not detached');
    assert.equal(b.manager.get(id).terminalPid, pid);
    await b.manager.flush();
    assert.equal((await onDisk(id))?.status, 'running', 'the registry still says running');
    assert.ok(a.manager.isRunning(id), 'A still follows it');

    const done = await fx.finished(a.manager, id);
    assert.equal(done.status, 'succeeded');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'done.txt'), 'utf8').trim(), 'yes');
    await waitFor("B to see A's end", () => b.manager.get(id).status === 'succeeded', { timeoutMs: 10_000 });
    await sleep(elsewhereGraceMs + 1500);
    assert.deepEqual(b.seen.get(id), ['running', 'succeeded'], 'B never showed it detached');
    assert.deepEqual(a.seen.get(id)?.includes('detached'), false);
    assert.equal((await onDisk(id))?.status, 'succeeded');
  });

  it('when the process ends and no window records its end (A closed), B marks it detached only then', async () => {
    const a = window('a');
    const { id, pid } = await dispatchTerminal(a, 'sleep 30');
    const b = window('b');
    await sleep(1500);
    assert.equal(b.manager.get(id).status, 'running');
    a.manager.dispose(); // A's window closes; its terminal (the process) is left running
    await sleep(1500);
    assert.equal(b.manager.get(id).status, 'running', 'still running elsewhere while its process lives');
    const killedAt = Date.now();
    a.terminals.children.get(pid)!.child.kill('SIGKILL');
    await waitFor('B to mark it detached', () => b.manager.get(id).status === 'detached', { timeoutMs: 15_000 });
    const after = Date.now() - killedAt;
    console.log(`      measured: detached ${after} ms after its process died (grace ${elsewhereGraceMs} ms)`);
    assert.ok(after >= elsewhereGraceMs, `not before the grace period (${after} ms)`);
    assert.deepEqual(b.seen.get(id), ['running', 'detached']);
    await b.manager.flush();
    assert.equal((await onDisk(id))?.status, 'detached');
  });
});
