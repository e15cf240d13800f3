// The registry store's watch and removals at their edges, with real files and two stores standing for
// two windows: what a store must not take in or say (files that are not records, a record gone before
// it was read, anything after dispose), and removals that cannot be done.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StoreWindows, testRecord } from './registryFixture';

const settle = (ms = 250) => new Promise((r) => setTimeout(r, ms));

describe('registry store: watching and removing at the edges', function () {
  this.timeout(30_000);
  const w = new StoreWindows('pa-registry-watch-');
  const rec = testRecord;
  const dirOf = () => path.join(w.registry, 'agents');
  const until = async (done: () => boolean) => {
    const deadline = Date.now() + 5_000;
    while (!done() && Date.now() < deadline) {
      await settle(20);
    }
  };

  it('lists no problem before its first load', () => {
    assert.deepEqual(w.store().problems(), []);
  });

  it('a record file that is a dangling link is skipped by a load, the others loaded', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    fs.symlinkSync(path.join(w.tmp, 'nowhere.json'), w.fileOf('ghost'));
    const b = w.store();
    assert.deepEqual(
      b.load().map((r) => r.id),
      ['x'],
    );
    assert.equal(b.isStored('ghost'), false);
  });

  it('two saves that both remove a record: both succeed, the file is gone', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x'), rec('y')]);
    await Promise.all([a.save([rec('y')]), a.save([rec('y')])]);
    assert.ok(!fs.existsSync(w.fileOf('x')));
    assert.ok(fs.existsSync(w.fileOf('y')));
    assert.equal(a.isStored('x'), false);
  });

  it('after dispose it stops watching: another window’s new record is not taken in', async () => {
    const a = w.store();
    const b = w.store();
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
    const a = w.store();
    const b = w.store();
    a.load();
    b.load();
    const toB = w.heard(b);
    fs.writeFileSync(path.join(dirOf(), 'notes.txt'), 'not a record');
    fs.writeFileSync(path.join(dirOf(), 'old.json.tmp'), '{"pid":1}');
    await a.save([rec('x')]);
    await until(() => toB.length > 0);
    await settle(200);
    assert.deepEqual(toB, [{ changed: [{ record: rec('x'), base: undefined }], removed: [] }]);
    assert.deepEqual(w.warnings, []);
  });

  it('a registry whose folder cannot be made: nothing loaded, a warning that other windows show after a reload', () => {
    fs.writeFileSync(path.join(w.tmp, 'file'), 'in the way');
    w.registry = path.join(w.tmp, 'file');
    assert.deepEqual(w.store().load(), []);
    assert.ok(
      w.warnings.some(
        (m) => m.includes(`cannot watch ${dirOf()}`) && m.includes("other windows' changes show after a reload"),
      ),
      w.warnings.join('\n'),
    );
  });

  it('a record another window wrote and removed before it was read: not announced, and the rest of its batch is', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const b = w.store();
      b.load();
      const toB = w.heard(b);
      const file = w.fileOf('brief');
      fs.writeFileSync(file, JSON.stringify({ schemaVersion: 1, revision: 1, record: rec('brief') }));
      fs.rmSync(file);
      // Read in the same batch, after the one that is gone: still taken in.
      fs.writeFileSync(w.fileOf('keep'), JSON.stringify({ schemaVersion: 1, revision: 1, record: rec('keep') }));
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
    const a = w.store();
    const b = w.store();
    a.load();
    b.load();
    await a.save([rec('x')]);
    await until(() => b.isStored('x'));
    await b.save([rec('x', { note: 'from b' })]);
    const toA = w.heard(a);
    await a.save([rec('x', { status: 'done' })]);
    const merged = rec('x', { status: 'done', note: 'from b' });
    assert.deepEqual(JSON.parse(fs.readFileSync(w.fileOf('x'), 'utf8')).record, merged);
    await until(() => toA.some((e) => e.changed.some((c) => c.record.note === 'from b' && c.record.status === 'done')));
    const told = toA.find((e) => e.changed.some((c) => c.record.status === 'done'));
    assert.deepEqual(told, { changed: [{ record: merged, base: rec('x', { status: 'done' }) }], removed: [] });
  });

  it('a window’s own save is never announced back to it, whatever the order of its record’s fields', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    const toA = w.heard(a);
    await a.save([{ status: 'done', repoRoot: '/repo', id: 'x' }]);
    await settle();
    assert.deepEqual(toA, []);
    assert.deepEqual(JSON.parse(fs.readFileSync(w.fileOf('x'), 'utf8')).record, {
      status: 'done',
      repoRoot: '/repo',
      id: 'x',
    });
  });

  it('a removal whose lock cannot be taken keeps the file, warns, and the save still succeeds', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    fs.mkdirSync(`${w.fileOf('x')}.lock`);
    await a.save([]);
    assert.ok(fs.existsSync(w.fileOf('x')), 'kept');
    assert.ok(
      w.warnings.some((m) => m.startsWith(`[Registry] removing ${w.fileOf('x')}: `)),
      w.warnings.join('\n'),
    );
    assert.equal(a.isStored('x'), false);
  });

  it('a removal of an unreadable record file warns only that it is kept unread, never that removing failed', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    fs.writeFileSync(w.fileOf('x'), '{ broken');
    await a.save([]);
    assert.equal(fs.readFileSync(w.fileOf('x'), 'utf8'), '{ broken');
    assert.deepEqual(
      w.warnings.filter((m) => m.includes('removing')),
      [],
    );
  });
});
