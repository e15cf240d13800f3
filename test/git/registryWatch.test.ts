// The registry store's watch and removals at their edges, with real files and two stores standing for
// two windows: what a store must not take in or say (files that are not records, a record gone before
// it was read, anything after dispose), and removals that cannot be done.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangedElsewhere } from '../../src/core/ports';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { openRegistryStore } from './registryFixture';

interface Rec {
  readonly id: string;
  readonly repoRoot: string;
  readonly status: string;
  readonly note?: string;
}

const settle = (ms = 250) => new Promise((r) => setTimeout(r, ms));

describe('registry store: watching and removing at the edges', function () {
  this.timeout(30_000);
  let tmp = '';
  let registry = '';
  let warnings: string[] = [];
  const stores: RegistryStore<Rec>[] = [];
  const logger = { info() {}, warn: (m: string) => warnings.push(m), error() {} };
  const store = (registries = () => [registry]) => {
    const made = openRegistryStore<Rec>(registry, { registries, registryOf: () => registry, logger });
    stores.push(made);
    return made;
  };
  const rec = (id: string, patch: Partial<Rec> = {}): Rec => ({ id, repoRoot: '/repo', status: 'running', ...patch });
  const dirOf = () => path.join(registry, 'agents');
  const fileOf = (id: string) => path.join(dirOf(), `${id}.json`);
  const heard = (s: RegistryStore<Rec>) => {
    const events: ChangedElsewhere<Rec>[] = [];
    s.onDidChangeElsewhere((e) => events.push(e));
    return events;
  };
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 5_000;
    while (!done() && Date.now() < deadline) {
      await settle(20);
    }
  };

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-registry-watch-')));
    registry = path.join(tmp, 'registry');
    warnings = [];
  });
  afterEach(() => {
    stores.splice(0).forEach((s) => s.dispose());
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('lists no problem before its first load', () => {
    assert.deepEqual(store().problems(), []);
  });

  it('a record file that is a dangling link is skipped by a load, the others loaded', async () => {
    const a = store();
    a.load();
    await a.save([rec('x')]);
    fs.symlinkSync(path.join(tmp, 'nowhere.json'), fileOf('ghost'));
    const b = store();
    assert.deepEqual(
      b.load().map((r) => r.id),
      ['x'],
    );
    assert.equal(b.isStored('ghost'), false);
  });

  it('two saves that both remove a record: both succeed, the file is gone', async () => {
    const a = store();
    a.load();
    await a.save([rec('x'), rec('y')]);
    await Promise.all([a.save([rec('y')]), a.save([rec('y')])]);
    assert.ok(!fs.existsSync(fileOf('x')));
    assert.ok(fs.existsSync(fileOf('y')));
    assert.equal(a.isStored('x'), false);
  });

  it('after dispose it stops watching: another window’s new record is not taken in', async () => {
    const a = store();
    const b = store();
    a.load();
    b.load();
    await a.save([rec('x')]);
    await until(() => b.isStored('x'));
    assert.ok(b.isStored('x'));
    b.dispose();
    await a.save([rec('x'), rec('y')]);
    await settle(400);
    assert.equal(b.isStored('y'), false);
  });

  it('files that are not records (and the lock and temporary files of writes) draw no warning', async () => {
    const a = store();
    const b = store();
    a.load();
    b.load();
    const toB = heard(b);
    fs.writeFileSync(path.join(dirOf(), 'notes.txt'), 'not a record');
    fs.writeFileSync(path.join(dirOf(), 'old.json.tmp'), '{"pid":1}');
    await a.save([rec('x')]);
    await until(() => toB.length > 0);
    await settle(200);
    assert.deepEqual(toB, [{ changed: [{ record: rec('x'), base: undefined }], removed: [] }]);
    assert.deepEqual(warnings, []);
  });

  it('a registry whose folder cannot be made: nothing loaded, a warning that other windows show after a reload', () => {
    fs.writeFileSync(path.join(tmp, 'file'), 'in the way');
    registry = path.join(tmp, 'file');
    assert.deepEqual(store().load(), []);
    assert.ok(
      warnings.some(
        (w) => w.includes(`cannot watch ${dirOf()}`) && w.includes("other windows' changes show after a reload"),
      ),
      warnings.join('\n'),
    );
  });

  it('a record another window wrote and removed before it was read: not announced, and the rest of its batch is', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const b = store();
      b.load();
      const toB = heard(b);
      const file = fileOf('brief');
      fs.writeFileSync(file, JSON.stringify({ schemaVersion: 1, revision: 1, record: rec('brief') }));
      fs.rmSync(file);
      // Read in the same batch, after the one that is gone: still taken in.
      fs.writeFileSync(fileOf('keep'), JSON.stringify({ schemaVersion: 1, revision: 1, record: rec('keep') }));
      await until(() => toB.length > 0);
      await settle(200);
      assert.deepEqual(toB, [{ changed: [{ record: rec('keep'), base: undefined }], removed: [] }]);
      assert.deepEqual(rejections, []);
      assert.equal(b.isStored('brief'), false);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a save merged with another window’s change is announced as a change only, no removal', async () => {
    const a = store();
    const b = store();
    a.load();
    b.load();
    await a.save([rec('x')]);
    await until(() => b.isStored('x'));
    await b.save([rec('x', { note: 'from b' })]);
    const toA = heard(a);
    await a.save([rec('x', { status: 'done' })]);
    const merged = rec('x', { status: 'done', note: 'from b' });
    assert.deepEqual(JSON.parse(fs.readFileSync(fileOf('x'), 'utf8')).record, merged);
    await until(() => toA.some((e) => e.changed.some((c) => c.record.note === 'from b' && c.record.status === 'done')));
    const told = toA.find((e) => e.changed.some((c) => c.record.status === 'done'));
    assert.deepEqual(told, { changed: [{ record: merged, base: rec('x', { status: 'done' }) }], removed: [] });
  });

  it('a window’s own save is never announced back to it, whatever the order of its record’s fields', async () => {
    const a = store();
    a.load();
    await a.save([rec('x')]);
    const toA = heard(a);
    await a.save([{ status: 'done', repoRoot: '/repo', id: 'x' }]);
    await settle();
    assert.deepEqual(toA, []);
    assert.deepEqual(JSON.parse(fs.readFileSync(fileOf('x'), 'utf8')).record, {
      status: 'done',
      repoRoot: '/repo',
      id: 'x',
    });
  });

  it('a removal whose lock cannot be taken keeps the file, warns, and the save still succeeds', async () => {
    const a = store();
    a.load();
    await a.save([rec('x')]);
    fs.mkdirSync(`${fileOf('x')}.lock`);
    await a.save([]);
    assert.ok(fs.existsSync(fileOf('x')), 'kept');
    assert.ok(
      warnings.some((w) => w.startsWith(`[Registry] removing ${fileOf('x')}: `)),
      warnings.join('\n'),
    );
    assert.equal(a.isStored('x'), false);
  });

  it('a removal of an unreadable record file warns only that it is kept unread, never that removing failed', async () => {
    const a = store();
    a.load();
    await a.save([rec('x')]);
    fs.writeFileSync(fileOf('x'), '{ broken');
    await a.save([]);
    assert.equal(fs.readFileSync(fileOf('x'), 'utf8'), '{ broken');
    assert.deepEqual(
      warnings.filter((w) => w.includes('removing')),
      [],
    );
  });
});
