// Which windows are open, told by real processes; and the locked read-modify-write of a registry
// record by which two windows claim a plan run at the same moment: exactly one wins.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { WindowId } from '../../src/core/plans/planTypes';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { openRegistryStore } from './registryFixture';
import { NodeWindowPresence, processWindow } from '../../src/node/windowPresence';
import { ended, longLivedProcess } from './windowProcesses';

describe('window presence (real processes)', function () {
  this.timeout(20_000);

  it('this process: each presence is open until disposed; a live process is open, an ended one is gone', async () => {
    const one = new NodeWindowPresence();
    const two = new NodeWindowPresence();
    assert.equal(one.self.pid, process.pid);
    assert.notEqual(one.self.instance, two.self.instance);
    assert.equal(two.isAlive(one.self), true);
    one.dispose();
    assert.equal(two.isAlive(one.self), false, 'a disposed window of this process is gone');
    two.dispose();

    const child = longLivedProcess();
    try {
      const seen = new NodeWindowPresence();
      const window = processWindow(child.pid as number, 'child');
      if (process.platform === 'linux') {
        assert.ok(window.start && window.boot, 'Linux: start time and boot id are known');
        assert.equal(
          seen.isAlive({ ...window, start: `${Number(window.start) + 1}` }),
          false,
          'same pid, later process',
        );
        assert.equal(seen.isAlive({ ...window, boot: 'another-boot' }), false, 'before a reboot');
      }
      assert.equal(seen.isAlive(window), true);
      assert.equal(
        seen.isAlive({ ...window, host: `${os.hostname()}-elsewhere` }),
        true,
        'another host counts as open',
      );
      child.kill('SIGKILL');
      await ended(child);
      assert.equal(seen.isAlive(window), false, 'its process ended');
      seen.dispose();
    } finally {
      child.kill('SIGKILL');
    }
  });
});

interface Claimable {
  readonly id: string;
  readonly repoRoot: string;
  readonly driver?: WindowId;
}

describe('RegistryStore.update: a locked read-modify-write', function () {
  this.timeout(30_000);
  let dir: string;
  const stores: RegistryStore<Claimable>[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-claim-'));
  });

  afterEach(() => {
    stores.splice(0).forEach((s) => s.dispose());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const window = () => {
    const store = openRegistryStore<Claimable>(dir, { kind: 'plans', registryOf: () => dir });
    stores.push(store);
    return store;
  };

  const claimFor = (presence: NodeWindowPresence) => (r: Claimable) =>
    r.driver === undefined || !presence.isAlive(r.driver) ? { ...r, driver: presence.self } : undefined;

  it('two windows claim the same runs at the same moment: each time exactly one wins, the other learns who', async () => {
    const a = window();
    const b = window();
    const ids = Array.from({ length: 12 }, (_, i) => `run${i}`);
    await a.save(ids.map((id) => ({ id, repoRoot: dir })));
    b.load();
    const [pa, pb] = [new NodeWindowPresence(), new NodeWindowPresence()];
    for (const id of ids) {
      const [ra, rb] = await Promise.all([a.update(id, claimFor(pa)), b.update(id, claimFor(pb))]);
      assert.ok(ra && rb);
      assert.equal(Number(ra.written) + Number(rb.written), 1, `${id}: one claim written`);
      assert.deepEqual(ra.record.driver, rb.record.driver, `${id}: both know the same driver`);
      const disk = JSON.parse(fs.readFileSync(path.join(dir, 'plans', `${id}.json`), 'utf8'));
      assert.deepEqual(disk.record.driver, ra.record.driver);
      assert.equal(disk.revision, 2, 'written once after the save');
    }
    await window().save([{ id: 'solo', repoRoot: dir }]);
    a.load();
    b.load();
    assert.equal((await a.update('solo', claimFor(pa)))?.written, true);
    assert.equal((await b.update('solo', claimFor(pb)))?.written, false, 'an open driver is kept');
    pa.dispose();
    const taken = await b.update('solo', claimFor(pb));
    assert.equal(taken?.written, true, 'a driver that is gone is replaced');
    assert.deepEqual(taken?.record.driver, pb.self);
    assert.equal(await b.update('nope', claimFor(pb)), undefined, 'no such record');
    pb.dispose();
  });
});
