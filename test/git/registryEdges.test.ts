// The registry's store at its edges, with real files and two stores standing for two windows: what
// one window hears of another's writes and removals (and what it must not hear), loading twice,
// a locked update, a save that fails for one record, a record with no registry, and disposal.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openRegistryStore, StoreWindows, type TestRecord, testRecord } from './registryFixture';

const settle = (ms = 250) => new Promise((r) => setTimeout(r, ms));

describe('registry store: what other windows change, and writes at the edges', function () {
  this.timeout(30_000);
  const w = new StoreWindows('pa-registry-edges-');
  const rec = testRecord;
  const onDisk = (id: string) => JSON.parse(fs.readFileSync(w.fileOf(id), 'utf8'));
  /** Waits until `events` has `count` events (file watching is asynchronous). */
  const until = async (events: unknown[], count: number) => {
    const deadline = Date.now() + 5_000;
    while (events.length < count && Date.now() < deadline) {
      await settle(20);
    }
  };

  it("hears another window's new record, its change (with the base it knew) and its removal; never its own writes", async () => {
    const a = w.store();
    const b = w.store();
    a.load();
    b.load();
    const toA = w.heard(a);
    const toB = w.heard(b);
    await a.save([rec('x')]);
    await until(toB, 1);
    assert.deepEqual(toB, [{ changed: [{ record: rec('x'), base: undefined }], removed: [] }]);
    assert.ok(b.isStored('x'));
    await a.save([rec('x', { status: 'stopped' })]);
    await until(toB, 2);
    assert.deepEqual(toB[1], { changed: [{ record: rec('x', { status: 'stopped' }), base: rec('x') }], removed: [] });
    await a.save([]);
    await until(toB, 3);
    assert.deepEqual(toB[2], { changed: [], removed: ['x'] });
    assert.equal(b.isStored('x'), false);
    await settle();
    assert.deepEqual(toA, [], 'a window is not told of its own writes');
  });

  it('ignores a file whose record has another id, an older revision, a corrupt file, and files that are not records', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x', { note: 'v1' })]);
    await a.save([rec('x', { note: 'v2' })]);
    const b = w.store();
    b.load();
    const toB = w.heard(b);
    const dir = path.join(w.registry, 'agents');
    const file = (record: TestRecord, revision: number) =>
      `${JSON.stringify({ schemaVersion: 1, revision, writtenAt: 1, writer: 'h:1', record })}\n`;
    // Another id in x's file, an older revision of x, a corrupt file, a lock and a temporary file.
    fs.writeFileSync(path.join(dir, 'y.json'), file(rec('not-y'), 9));
    fs.writeFileSync(w.fileOf('x'), file(rec('x', { note: 'old' }), 1));
    fs.writeFileSync(path.join(dir, 'z.json'), '{ half');
    fs.writeFileSync(path.join(dir, 'x.json.lock'), '1\n');
    fs.writeFileSync(path.join(dir, 'x.json.1.ab.tmp'), 'partial');
    await settle(400);
    assert.deepEqual(toB, [], 'nothing is announced');
    assert.ok(
      w.warnings.some((m) => m.includes(`${path.join(dir, 'z.json')} skipped (corrupt)`)),
      w.warnings.join('\n'),
    );
    // A newer revision of x is heard.
    fs.writeFileSync(w.fileOf('x'), file(rec('x', { note: 'v3' }), 3));
    await until(toB, 1);
    assert.deepEqual(toB, [
      { changed: [{ record: rec('x', { note: 'v3' }), base: rec('x', { note: 'v2' }) }], removed: [] },
    ]);
  });

  it('the same revision again is not news; a removed file another window never had is not a removal', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    const b = w.store();
    b.load();
    const toB = w.heard(b);
    // Rewritten byte for byte (same revision): a touch, not a change.
    fs.writeFileSync(w.fileOf('x'), fs.readFileSync(w.fileOf('x')));
    // A record file B never knew, added and removed behind its back.
    fs.writeFileSync(path.join(w.registry, 'agents', 'q.json'), '{');
    await settle(100);
    fs.rmSync(path.join(w.registry, 'agents', 'q.json'));
    await settle(400);
    assert.deepEqual(toB, []);
    assert.ok(b.isStored('x'));
  });

  it('after dispose, nothing more is announced', async () => {
    const a = w.store();
    const b = w.store();
    a.load();
    b.load();
    const toB = w.heard(b);
    b.dispose();
    await a.save([rec('x')]);
    await settle(400);
    assert.deepEqual(toB, []);
  });

  it('load: each registry once, a record met twice read once, problems listed then cleared by the next load', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    fs.writeFileSync(path.join(w.registry, 'agents', 'bad.json'), 'not json');
    const b = w.store(() => [w.registry, w.registry]);
    assert.deepEqual(b.load(), [rec('x')]);
    assert.deepEqual(
      b.problems().map((p) => [path.basename(p.file), p.reason]),
      [['bad.json', 'corrupt']],
    );
    assert.ok(w.warnings.some((m) => m.includes('bad.json skipped (corrupt)')));
    // Loaded again: what it knows is not listed twice, and the problem is gone with the file.
    fs.rmSync(path.join(w.registry, 'agents', 'bad.json'));
    assert.deepEqual(b.load(), []);
    assert.deepEqual(b.problems(), []);
  });

  it('records each write with its writer (host:pid) and a growing revision', async () => {
    const a = w.store();
    a.load();
    const before = Date.now();
    await a.save([rec('x')]);
    const first = onDisk('x');
    assert.equal(first.writer, `${os.hostname()}:${process.pid}`);
    assert.equal(first.revision, 1);
    assert.ok(first.writtenAt >= before && first.writtenAt <= Date.now());
    await a.save([rec('x', { status: 'done' })]);
    assert.equal(onDisk('x').revision, 2);
  });

  it('update: the file as it is now; undefined changes nothing; unknown or vanished records give undefined', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x')]);
    assert.equal(await a.update('nope', (r) => r), undefined);
    const kept = await a.update('x', () => undefined);
    assert.deepEqual(kept, { record: rec('x'), written: false });
    assert.equal(onDisk('x').revision, 1);
    // Another window wrote meanwhile: update sees its record and writes on top of its revision.
    const b = w.store();
    b.load();
    await b.save([rec('x', { note: 'from b' })]);
    const changed = await a.update('x', (r) => ({ ...r, status: 'paused' }));
    assert.deepEqual(changed, { record: rec('x', { note: 'from b', status: 'paused' }), written: true });
    assert.equal(onDisk('x').revision, 3);
    assert.deepEqual(onDisk('x').record, rec('x', { note: 'from b', status: 'paused' }));
    // A save of what update wrote is no write at all.
    await a.save([rec('x', { note: 'from b', status: 'paused' })]);
    assert.equal(onDisk('x').revision, 3);
    fs.rmSync(w.fileOf('x'));
    assert.equal(await a.update('x', (r) => ({ ...r, status: 'gone' })), undefined);
    assert.ok(!fs.existsSync(w.fileOf('x')), 'not written back');
  });

  it('a save writes every record it can, then fails with the first error; a record with no registry is skipped', async () => {
    const a = openRegistryStore<TestRecord>(w.registry, {
      registries: () => [w.registry],
      registryOf: (root) =>
        root === '/none' ? undefined : root === '/blocked' ? path.join(w.tmp, 'file') : w.registry,
      logger: w.logger,
    });
    w.stores.push(a);
    fs.writeFileSync(path.join(w.tmp, 'file'), 'a file where a folder should be');
    a.load();
    await assert.rejects(
      a.save([rec('first', { repoRoot: '/blocked' }), rec('second'), rec('third', { repoRoot: '/none' })]),
      /EEXIST|ENOTDIR/,
    );
    assert.equal(onDisk('second').record.id, 'second', 'written despite the failure before it');
    assert.ok(!fs.existsSync(w.fileOf('first')) && !fs.existsSync(w.fileOf('third')));
    assert.ok(
      w.warnings.some((m) => m === '[Registry] third: /none has no registry; not saved'),
      w.warnings.join('\n'),
    );
    assert.equal(a.isStored('third'), false);
  });

  it('a record file that became unreadable is neither overwritten by a save nor removed by a removal', async () => {
    const a = w.store();
    a.load();
    await a.save([rec('x'), rec('y')]);
    fs.writeFileSync(w.fileOf('x'), '{ broken');
    await a.save([rec('x', { status: 'done' }), rec('y')]);
    assert.equal(fs.readFileSync(w.fileOf('x'), 'utf8'), '{ broken');
    assert.ok(
      w.warnings.some((m) => m.includes(`${w.fileOf('x')} not overwritten (corrupt)`)),
      w.warnings.join('\n'),
    );
    await a.save([]);
    assert.equal(fs.readFileSync(w.fileOf('x'), 'utf8'), '{ broken', 'not removed');
    assert.ok(!fs.existsSync(w.fileOf('y')), 'the readable one is removed');
    // A removal whose file is already gone is no error.
    const b = w.store();
    b.load();
    await b.save([rec('z')]);
    fs.rmSync(w.fileOf('z'));
    await b.save([]);
    assert.equal(b.isStored('z'), false);
  });
});
