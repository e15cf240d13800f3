// The registry's record files (src/node/registry/recordFiles.ts) on a real file system: what is read
// as a record and what as a problem (never overwritten), atomic writes, the record lock, and ids.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import { acquireLock } from '../../src/node/registry/lockFile';
import {
  parseRecordFile,
  readRecordFile,
  readRecordFileSync,
  recordFileNames,
  recordFilePath,
  registrySchemaVersion,
  withFileLock,
  writeAtomically,
} from '../../src/node/registry/recordFiles';

type Rec = { readonly id: string };

const good = { schemaVersion: 1, revision: 3, writtenAt: 5, writer: 'h:1', record: { id: 'a1' } };

describe('registry record files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-records-'));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('parses a record file; each broken shape is a problem naming the file and why', () => {
    assert.equal(registrySchemaVersion, 1);
    assert.deepEqual(parseRecordFile<Rec>('f.json', JSON.stringify(good)), { kind: 'file', file: good });
    const problem = (text: string) => {
      const result = parseRecordFile<Rec>('f.json', text);
      assert.equal(result.kind, 'problem', text);
      return result.kind === 'problem' ? result.problem : undefined;
    };
    const notJson = problem('{"schemaVersion":');
    assert.equal(notJson?.reason, 'corrupt');
    assert.equal(notJson?.file, 'f.json');
    assert.match(notJson?.detail ?? '', /JSON/);
    for (const text of ['null', '42', '"x"', '{}', '{"schemaVersion":"1","revision":1,"record":{"id":"a"}}']) {
      assert.deepEqual(problem(text), { file: 'f.json', reason: 'corrupt', detail: 'no schemaVersion' }, text);
    }
    assert.deepEqual(problem(JSON.stringify({ ...good, schemaVersion: 2 })), {
      file: 'f.json',
      reason: 'newerSchema',
      detail: 'schemaVersion 2; this version reads 1',
    });
    const noId = { file: 'f.json', reason: 'corrupt', detail: 'no revision or record id' };
    for (const broken of [
      { ...good, revision: '3' },
      { ...good, revision: undefined },
      { ...good, record: undefined },
      { ...good, record: null },
      { ...good, record: 'a1' },
      { ...good, record: {} },
      { ...good, record: { id: 7 } },
    ]) {
      assert.deepEqual(problem(JSON.stringify(broken)), noId, JSON.stringify(broken));
    }
    // An older schema is read as it is.
    assert.equal(parseRecordFile<Rec>('f.json', JSON.stringify({ ...good, schemaVersion: 0 })).kind, 'file');
  });

  it('reads a file, a missing one, and one that cannot be read, sync and async alike', async () => {
    const file = path.join(dir, 'a1.json');
    fs.writeFileSync(file, JSON.stringify(good));
    assert.deepEqual(readRecordFileSync<Rec>(file), { kind: 'file', file: good });
    assert.deepEqual(await readRecordFile<Rec>(file), { kind: 'file', file: good });
    const missing = path.join(dir, 'none.json');
    assert.deepEqual(readRecordFileSync<Rec>(missing), { kind: 'missing' });
    assert.deepEqual(await readRecordFile<Rec>(missing), { kind: 'missing' });
    const folder = path.join(dir, 'folder.json');
    fs.mkdirSync(folder);
    for (const result of [readRecordFileSync<Rec>(folder), await readRecordFile<Rec>(folder)]) {
      assert.equal(result.kind, 'problem');
      if (result.kind === 'problem') {
        assert.equal(result.problem.reason, 'unreadable');
        assert.equal(result.problem.file, folder);
        assert.match(result.problem.detail, /EISDIR/);
      }
    }
    fs.writeFileSync(file, '{');
    const corrupt = await readRecordFile<Rec>(file);
    assert.equal(corrupt.kind === 'problem' && corrupt.problem.reason, 'corrupt');
  });

  it('writes atomically: the whole text, private to the user, no temporary file left; a failed write leaves none', async () => {
    const file = path.join(dir, 'a1.json');
    fs.writeFileSync(file, 'old');
    await writeAtomically(file, 'new text\n');
    assert.equal(fs.readFileSync(file, 'utf8'), 'new text\n');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    }
    assert.deepEqual(fs.readdirSync(dir), ['a1.json']);
    // The rename fails (the target is a non-empty folder): the temporary file is removed, the error thrown.
    const blocked = path.join(dir, 'blocked.json');
    fs.mkdirSync(blocked);
    fs.writeFileSync(path.join(blocked, 'inside'), 'x');
    await assert.rejects(writeAtomically(blocked, 'text'));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['a1.json', 'blocked.json']);
    await assert.rejects(writeAtomically(path.join(dir, 'no', 'such.json'), 'text'), /ENOENT/);
  });

  it('runs the body holding <file>.lock and removes it after, also when the body throws', async () => {
    const file = path.join(dir, 'a1.json');
    const seen = await withFileLock(file, async () => JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')) as object);
    assert.equal((seen as { pid: number }).pid, process.pid);
    assert.ok(!fs.existsSync(`${file}.lock`));
    await assert.rejects(
      withFileLock(file, async () => {
        throw new Error('body failed');
      }),
      /body failed/,
    );
    assert.ok(!fs.existsSync(`${file}.lock`));
  });

  it('takes over the lock of a window whose process is gone; bodies never overlap', async () => {
    const file = path.join(dir, 'a1.json');
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    fs.writeFileSync(`${file}.lock`, `${JSON.stringify({ pid: dead, host: os.hostname(), token: 't', since: 1 })}\n`);
    let inside = 0;
    let most = 0;
    const body = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 20));
      inside--;
    };
    await Promise.all([withFileLock(file, body), withFileLock(file, body), withFileLock(file, body)]);
    assert.equal(most, 1);
    assert.ok(!fs.existsSync(`${file}.lock`));
  });

  it('a record lock held by a live window: the writer gives up after 15 s with registryLocked, naming the file', async function () {
    this.timeout(40_000);
    const file = path.join(dir, 'a1.json');
    const holder = await acquireLock(`${file}.lock`, {
      timings: { refreshMs: 1_000, staleMs: 60_000, giveUpMs: 1, pollMs: 10 },
    });
    let ran = false;
    const started = Date.now();
    await assert.rejects(
      withFileLock(file, async () => {
        ran = true;
      }),
      (e: unknown) => AgentError.isCode(e, 'registryLocked') && e.data.file === file && e.data.seconds === 15,
    );
    assert.ok(Date.now() - started >= 15_000);
    assert.equal(ran, false);
    assert.equal(await holder.release(), true, 'the holder keeps its lock');
  });

  it('lists record files only, and none of a folder that is missing', () => {
    for (const name of ['a.json', 'b.json', 'a.json.lock', 'a.json.123.abcd.tmp', 'notes.txt']) {
      fs.writeFileSync(path.join(dir, name), '');
    }
    assert.deepEqual(recordFileNames(dir).sort(), ['a.json', 'b.json']);
    assert.deepEqual(recordFileNames(path.join(dir, 'missing')), []);
  });

  it('a record path is the id plus .json; an id that could leave the folder or hide is refused', () => {
    assert.equal(recordFilePath(dir, 'a1_b-2.c'), path.join(dir, 'a1_b-2.c.json'));
    for (const id of ['', '.hidden', '..', '../x', 'a/b', 'a\\b', 'a b', 'é']) {
      assert.throws(
        () => recordFilePath(dir, id),
        (e: unknown) => AgentError.isCode(e, 'invalidRecordId') && e.data.id === JSON.stringify(id),
        id,
      );
    }
  });
});
