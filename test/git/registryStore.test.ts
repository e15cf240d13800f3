// The registry on disk: real repositories (a main worktree and a linked one), real files, and two
// or three stores standing for windows on the same repository.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gitCommonDirSync, registryDirSync } from '../../src/node/registry/location';
import { registrySchemaVersion, withFileLock } from '../../src/node/registry/recordFiles';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { openRegistryStore } from './registryFixture';
import { mergeRecords } from '../../src/util/merge';
import { git } from './managerFixture';

interface Rec {
  readonly id: string;
  readonly repoRoot: string;
  readonly title: string;
  readonly status: string;
  readonly note?: string;
}

describe('registry: one file per record in the git common dir, shared by windows', function () {
  this.timeout(30_000);
  let tmp = '';
  let repo = '';
  let registry = '';

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-registry-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(repo, 'README.md'), '# r\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'init');
    registry = registryDirSync(repo) as string;
  });

  afterEach(() => {
    stores.splice(0).forEach((s) => s.dispose());
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const stores: RegistryStore<Rec>[] = [];
  const store = () => {
    const made = openRegistryStore<Rec>(registry);
    stores.push(made);
    return made;
  };
  const rec = (id: string, patch: Partial<Rec> = {}): Rec => ({
    id,
    repoRoot: repo,
    title: id,
    status: 'running',
    ...patch,
  });
  const fileOf = (id: string) => path.join(registry, 'agents', `${id}.json`);
  const onDisk = (id: string) => JSON.parse(fs.readFileSync(fileOf(id), 'utf8'));

  it('the main worktree, a subfolder and a linked worktree share one registry in the git common dir', () => {
    assert.equal(registry, path.join(repo, '.git', 'parallel-agents'));
    assert.equal(registryDirSync(path.join(repo, 'src')), registry);
    const linked = path.join(tmp, 'linked');
    git(repo, 'worktree', 'add', '-q', '-b', 'side', linked);
    assert.equal(gitCommonDirSync(linked), path.join(repo, '.git'));
    assert.equal(registryDirSync(linked), registry);
    assert.equal(registryDirSync(tmp), undefined, 'a folder outside any repository has none');
  });

  it('saves each record as its own file with a schema version and revision; another window loads them', async () => {
    const a = store();
    a.load();
    await a.save([rec('a1'), rec('a2', { note: 'ü ✓' })]);
    const file = onDisk('a2');
    assert.equal(file.schemaVersion, registrySchemaVersion);
    assert.equal(file.revision, 1);
    assert.deepEqual(file.record, rec('a2', { note: 'ü ✓' }));
    assert.deepEqual(
      fs.readdirSync(path.join(registry, 'agents')).sort(),
      ['a1.json', 'a2.json'],
      'no temporary files or locks are left',
    );
    const b = store();
    assert.deepEqual(
      [...b.load()].sort((x, y) => x.id.localeCompare(y.id)),
      [rec('a1'), rec('a2', { note: 'ü ✓' })],
    );
  });

  it('writes only what changed: an unchanged record keeps its revision', async () => {
    const a = store();
    a.load();
    await a.save([rec('a1'), rec('a2')]);
    await a.save([rec('a1', { status: 'succeeded' }), rec('a2')]);
    assert.equal(onDisk('a1').revision, 2);
    assert.equal(onDisk('a1').record.status, 'succeeded');
    assert.equal(onDisk('a2').revision, 1);
  });

  it('two windows change different fields of one record: both changes are kept', async () => {
    const a = store();
    a.load();
    await a.save([rec('x')]);
    const merges: unknown[] = [];
    const b = store();
    b.load();
    b.onDidChangeElsewhere((e) => merges.push(...e.changed.map((c) => c.record)));
    await a.save([rec('x', { status: 'stopped' })]);
    await b.save([rec('x', { title: 'renamed in B' })]);
    assert.deepEqual(onDisk('x').record, rec('x', { status: 'stopped', title: 'renamed in B' }));
    assert.equal(onDisk('x').revision, 3);
    assert.deepEqual(merges, [rec('x', { status: 'stopped', title: 'renamed in B' })], 'B is told what it now holds');
  });

  it('a record removed in one window goes; one another window changed meanwhile stays', async () => {
    // A must not have heard of B's change before its save (then it would delete what it knows, as
    // asked): on a busy machine its watcher can be quicker, so the scene is played again.
    for (let round = 0; ; round++) {
      const a = store();
      a.load();
      let heard = false;
      a.onDidChangeElsewhere(() => (heard = true));
      await a.save([rec('gone'), rec('kept')]);
      const b = store();
      b.load();
      await b.save([rec('gone'), rec('kept', { status: 'succeeded' })]);
      await a.save([]);
      if (heard && round < 5) {
        a.dispose();
        b.dispose();
        fs.rmSync(fileOf('gone'), { force: true });
        fs.rmSync(fileOf('kept'), { force: true });
        continue;
      }
      assert.equal(heard, false, 'A saved before it heard of B');
      assert.equal(fs.existsSync(fileOf('gone')), false);
      assert.equal(onDisk('kept').record.status, 'succeeded', "B's change is not deleted by A");
      break;
    }
  });

  it('a corrupt file and one from a newer version are reported, skipped, and never overwritten', async () => {
    const a = store();
    a.load();
    await a.save([rec('good')]);
    fs.writeFileSync(fileOf('broken'), '{"schemaVersion": 1, "revision": 2, "rec');
    const newer = JSON.stringify({ schemaVersion: registrySchemaVersion + 1, revision: 1, record: rec('newer') });
    fs.writeFileSync(fileOf('newer'), newer);
    const b = store();
    assert.deepEqual(b.load(), [rec('good')]);
    assert.deepEqual(
      b
        .problems()
        .map((p) => [path.basename(p.file), p.reason])
        .sort(),
      [
        ['broken.json', 'corrupt'],
        ['newer.json', 'newerSchema'],
      ],
    );
    await b.save([rec('good', { status: 'merged' }), rec('newer', { title: 'overwrite?' })]);
    assert.equal(fs.readFileSync(fileOf('newer'), 'utf8'), newer);
    assert.equal(fs.readFileSync(fileOf('broken'), 'utf8'), '{"schemaVersion": 1, "revision": 2, "rec');
    assert.equal(onDisk('good').record.status, 'merged');
  });

  it('2 windows × 8 records saved at the same moment: 16 records, none lost, none duplicated', async () => {
    const a = store();
    const b = store();
    a.load();
    b.load();
    const mine = (w: string) => Array.from({ length: 8 }, (_, i) => rec(`${w}${i}`));
    // Each window saves its list as it grows, as a burst of dispatches does.
    await Promise.all([
      ...mine('a').map((_, i) => a.save(mine('a').slice(0, i + 1))),
      ...mine('b').map((_, i) => b.save(mine('b').slice(0, i + 1))),
    ]);
    const c = store();
    const ids = c.load().map((r) => r.id);
    assert.equal(ids.length, 16);
    assert.deepEqual([...new Set(ids)].sort(), [...mine('a'), ...mine('b')].map((r) => r.id).sort());
  });

  it('a lock left by a process that is gone is taken over; a live one is waited for', async () => {
    const target = path.join(tmp, 'r.json');
    fs.writeFileSync(`${target}.lock`, '999999999\n');
    let ran = false;
    await withFileLock(target, async () => {
      ran = true;
    });
    assert.ok(ran);
    assert.equal(fs.existsSync(`${target}.lock`), false);
    const order: string[] = [];
    let release!: () => void;
    const held = withFileLock(target, () => new Promise<void>((r) => (release = r)).then(() => order.push('first')));
    await new Promise((r) => setTimeout(r, 50));
    const second = withFileLock(target, async () => order.push('second'));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(order, [], 'the second waits while the first holds the lock');
    release();
    await Promise.all([held, second]);
    assert.deepEqual(order, ['first', 'second']);
  });

  it('mergeRecords: fields ours changed win, removed fields go, the rest are theirs', () => {
    const base = { id: 'm', a: 1, b: 1, c: 1 } as Record<string, unknown>;
    const ours = { id: 'm', a: 2, b: 1 } as Record<string, unknown>;
    const theirs = { id: 'm', a: 1, b: 3, c: 1, d: 4 } as Record<string, unknown>;
    assert.deepEqual(mergeRecords(base, ours, theirs), { id: 'm', a: 2, b: 3, d: 4 });
    assert.deepEqual(mergeRecords(undefined, ours, theirs), ours);
  });
});
