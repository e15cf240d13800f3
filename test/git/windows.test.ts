// Two windows on one repository, played by two AgentManagers in one process, each with its own
// RegistryStore and SupervisedRunner on the repository's registry — as two extension hosts build
// them. Real git, real demo-agent processes under the real supervisor, real file watches.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { registryDirSync } from '../../src/node/registry/location';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture } from './managerFixture';
import { windowManager } from './twoWindows';

describe('two windows on one repository share its registry (real git, real agents)', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  const stores: { dispose(): void }[] = [];

  beforeEach(() => {
    fx = new ManagerFixture();
  });

  afterEach(async () => {
    stores.splice(0).forEach((s) => s.dispose());
    await fx.dispose();
  });

  /** A window: its own store, runner and manager, on the repository's registry (logs there too). */
  const window = (name: string): AgentManager =>
    windowManager(fx, name, stores, {
      settings: {
        logDirOf: (root) => {
          const own = registryDirSync(root);
          return own && path.join(own, 'logs');
        },
      },
    });

  it('a dispatch in A shows in B; B follows its run and stops it; A sees it stopped; a third window sees all', async () => {
    const a = window('a');
    const b = window('b');
    const started = Date.now();
    const record = await a.dispatch({
      prompt: 'print working\nsleep 30\ncreate late.txt: late',
      profile: 'demo',
      folder: fx.repo,
    });
    const seen = await waitFor('B to list the agent A dispatched', () => b.list().find((r) => r.id === record.id), {
      timeoutMs: 10_000,
      everyMs: 10,
    });
    console.log(`      measured: A's dispatch listed in B ${Date.now() - started} ms after dispatch() began`);
    assert.equal(seen.title, record.title);
    await waitFor(
      'B to see it running and follow its run',
      () => b.get(record.id).status === 'running' && b.isRunning(record.id),
    );
    await b.stop(record.id);
    assert.equal(b.get(record.id).status, 'stopped');
    await waitFor("A to see B's stop", () => a.get(record.id).status === 'stopped' && !a.isRunning(record.id), {
      timeoutMs: 10_000,
    });
    assert.equal(a.list().filter((r) => r.id === record.id).length, 1, 'one record, not two');
    await Promise.all([a.flush(), b.flush()]);
    const c = window('c');
    assert.deepEqual(
      c.list().map((r) => [r.id, r.status]),
      [[record.id, 'stopped']],
      'a window opened later reads the history from the registry',
    );
  });

  it('8 dispatches in each of two windows at the same moment: 16 records in both, none lost, none duplicated', async () => {
    const a = window('a');
    const b = window('b');
    const burst = (m: AgentManager, w: string) =>
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          m.dispatch({ prompt: `create ${w}${i}.txt: ${w}`, profile: 'demo', folder: fx.repo, title: `${w} ${i}` }),
        ),
      );
    const [fromA, fromB] = await Promise.all([burst(a, 'a'), burst(b, 'b')]);
    const ids = [...fromA, ...fromB].map((r) => r.id).sort();
    assert.equal(new Set(ids).size, 16);
    for (const [name, m] of [
      ['A', a],
      ['B', b],
    ] as const) {
      await waitFor(`${name} to list all 16`, () => m.list().length === 16, { timeoutMs: 20_000 });
      assert.deepEqual(
        m
          .list()
          .map((r) => r.id)
          .sort(),
        ids,
      );
    }
    for (const r of fromA) {
      await fx.finished(a, r.id);
    }
    for (const r of fromB) {
      await fx.finished(b, r.id);
    }
    await Promise.all([a.flush(), b.flush()]);
    const c = window('c');
    assert.deepEqual(
      c
        .list()
        .map((r) => r.id)
        .sort(),
      ids,
      'all 16 are in the registry',
    );
    assert.ok(
      c.list().every((r) => r.status === 'succeeded'),
      c
        .list()
        .map((r) => `${r.id} ${r.status}`)
        .join(', '),
    );
  });
});
