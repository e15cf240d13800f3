// The registry's lock file (src/node/registry/lockFile.ts) on a real file system, with real dead
// processes: who gets it, when a waiter gives up or takes it over, and that a release never removes
// a lock that is no longer its own.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { LockHolder } from '../../src/core/ports';
import { type LockTimings, LockNotAcquired, acquireLock, readHolder } from '../../src/node/registry/lockFile';

const fast: LockTimings = { refreshMs: 20, staleMs: 400, giveUpMs: 250, pollMs: 10 };

/** The pid of a process that has ended (spawned, waited for). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  assert.ok(child.pid && child.status === 0);
  return child.pid;
}

/** `promise`, or a rejection naming the limit if it takes longer than `seconds`. */
async function withinSeconds<T>(seconds: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done within ${seconds} s`)), seconds * 1000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function notAcquired(kind: 'gaveUp' | 'cancelled'): (e: unknown) => boolean {
  return (e) => e instanceof LockNotAcquired && e.why.kind === kind && e.message === kind;
}

describe('registry lock file', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-lock-'));
    file = path.join(dir, 'a.json.lock');
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is created naming its holder; release removes it and says it was ours', async () => {
    const before = Date.now();
    const held = await acquireLock(file, { timings: fast });
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.endsWith('}\n'), 'one JSON line');
    const content = JSON.parse(text) as Record<string, unknown>;
    assert.equal(content.pid, process.pid);
    assert.equal(content.host, os.hostname());
    assert.match(String(content.token), /^[0-9a-f]{24}$/);
    assert.ok(typeof content.since === 'number' && content.since >= before && content.since <= Date.now());
    assert.deepEqual(held.content, content);
    assert.deepEqual(await readHolder(file), content);
    assert.equal(held.lost, false);
    assert.equal(await held.release(), true);
    assert.ok(!fs.existsSync(file));
    assert.equal(await readHolder(file), undefined);
  });

  it('two acquisitions get two tokens; the second waits until the first is released', async () => {
    const first = await acquireLock(file, { timings: { ...fast, giveUpMs: 5_000 } });
    let waitedFor: LockHolder | undefined;
    let calls = 0;
    const second = acquireLock(file, {
      timings: { ...fast, giveUpMs: 5_000 },
      onWait: (holder) => {
        calls++;
        waitedFor = holder;
      },
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(calls, 1, 'told once that it waits');
    assert.equal(waitedFor?.pid, process.pid);
    await first.release();
    const got = await second;
    assert.notEqual(got.content.token, first.content.token);
    assert.equal(calls, 1);
    await got.release();
  });

  it('a live holder of this host: the waiter gives up after giveUpMs, naming the holder, and leaves the lock', async () => {
    const held = await acquireLock(file, { timings: { ...fast, refreshMs: 1_000 } });
    const started = Date.now();
    await assert.rejects(acquireLock(file, { timings: { ...fast, staleMs: 60_000 } }), (e: unknown) => {
      assert.ok(notAcquired('gaveUp')(e));
      const why = (e as LockNotAcquired).why as { holder?: LockHolder; waitedMs: number };
      assert.equal(why.holder?.pid, process.pid);
      assert.ok(why.waitedMs >= fast.giveUpMs && why.waitedMs < 5_000, `waited ${why.waitedMs} ms`);
      return true;
    });
    assert.ok(Date.now() - started >= fast.giveUpMs);
    assert.equal((await readHolder(file))?.token, held.content.token, 'the holder keeps it');
    assert.equal(await held.release(), true);
  });

  it('a holder of this host whose process is gone is taken over at once, long before staleMs', async () => {
    const pid = deadPid();
    fs.writeFileSync(file, `${JSON.stringify({ pid, host: os.hostname(), token: 'dead', since: 1 })}\n`);
    const started = Date.now();
    const held = await acquireLock(file, { timings: { ...fast, staleMs: 60_000, giveUpMs: 60_000 } });
    assert.ok(Date.now() - started < 5_000);
    assert.equal((await readHolder(file))?.token, held.content.token);
    assert.ok(!fs.existsSync(`${file}.takeover`), 'the takeover guard is gone');
    await held.release();
  });

  it("another host's holder is never judged by its pid: taken over only once unchanged for staleMs", async () => {
    const pid = deadPid();
    fs.writeFileSync(file, `${JSON.stringify({ pid, host: 'elsewhere.example', token: 'far', since: 1 })}\n`);
    // Gives up first: staleMs longer than giveUpMs.
    await assert.rejects(acquireLock(file, { timings: { ...fast, staleMs: 2_000 } }), notAcquired('gaveUp'));
    assert.equal((await readHolder(file))?.token, 'far');
    const started = Date.now();
    const held = await acquireLock(file, { timings: { ...fast, staleMs: 300, giveUpMs: 5_000 } });
    const waited = Date.now() - started;
    assert.ok(waited >= 300, `taken over after ${waited} ms, not before staleMs`);
    await held.release();
  });

  it('a holder that refreshes is never stale, even for a waiter of another host', async () => {
    const held = await acquireLock(file, { timings: { ...fast, refreshMs: 20 } });
    await assert.rejects(
      acquireLock(file, {
        timings: { ...fast, staleMs: 150, giveUpMs: 600 },
        identity: { pid: 1, host: 'elsewhere.example' },
      }),
      notAcquired('gaveUp'),
    );
    assert.equal(held.lost, false);
    assert.equal(await held.release(), true);
  });

  it('the bare pid of an earlier version means this host: a dead one is taken over, a live one waited for', async () => {
    fs.writeFileSync(file, `${deadPid()}\n`);
    const held = await acquireLock(file, { timings: { ...fast, staleMs: 60_000, giveUpMs: 60_000 } });
    await held.release();
    fs.writeFileSync(file, `${process.pid}\n`);
    await assert.rejects(acquireLock(file, { timings: { ...fast, staleMs: 60_000 } }), notAcquired('gaveUp'));
    assert.deepEqual(await readHolder(file), { pid: process.pid, host: os.hostname(), token: '', since: 0 });
  });

  it('readHolder: nothing for a file that is not a lock of ours; since defaults to 0', async () => {
    const notLocks = [
      '',
      'garbage',
      'null',
      '{"pid":"1","host":"h","token":"t"}',
      '{"pid":1,"token":"t"}',
      '{"pid":1,"host":"h"}',
      '12 34\n',
      '12\nmore',
      'x12\n',
    ];
    for (const text of notLocks) {
      fs.writeFileSync(file, text);
      assert.equal(await readHolder(file), undefined, JSON.stringify(text));
    }
    fs.writeFileSync(file, '{"pid":7,"host":"h","token":"t","since":"x"}');
    assert.deepEqual(await readHolder(file), { pid: 7, host: 'h', token: 't', since: 0 });
  });

  it('an unreadable lock (another host, unparsable) is still waited for, then taken over when stale', async () => {
    fs.writeFileSync(file, 'half-written');
    await assert.rejects(acquireLock(file, { timings: { ...fast, staleMs: 60_000 } }), notAcquired('gaveUp'));
    const held = await acquireLock(file, { timings: { ...fast, staleMs: 100, giveUpMs: 5_000 } });
    await held.release();
  });

  it('cancelled: the waiter stops at once with kind cancelled; wake ends a pause early', async () => {
    const held = await acquireLock(file, { timings: fast });
    let cancel = false;
    let wakeUp!: () => void;
    const wake = new Promise<void>((r) => (wakeUp = r));
    const started = Date.now();
    const waiting = acquireLock(file, {
      timings: { ...fast, pollMs: 60_000, giveUpMs: 120_000, staleMs: 120_000 },
      cancelled: () => cancel,
      wake,
    });
    await new Promise((r) => setTimeout(r, 50));
    cancel = true;
    wakeUp();
    await assert.rejects(waiting, notAcquired('cancelled'));
    assert.ok(Date.now() - started < 10_000, 'the 60 s pause was cut short');
    await held.release();
    // Cancelled before the first pause: no wait at all.
    const again = await acquireLock(file, { timings: fast });
    await assert.rejects(acquireLock(file, { timings: fast, cancelled: () => true }), notAcquired('cancelled'));
    await again.release();
  });

  it('a lock taken from its holder: the holder notices (lost) and its release leaves the new lock', async () => {
    const held = await acquireLock(file, { timings: { ...fast, refreshMs: 20 } });
    fs.writeFileSync(file, `${JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'other', since: 2 })}\n`);
    const deadline = Date.now() + 5_000;
    while (!held.lost && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(held.lost, true, 'a refresh found another token');
    assert.equal(await held.release(), false);
    assert.equal((await readHolder(file))?.token, 'other', 'not removed');
  });

  it('release finds the lock replaced before any refresh: false, lost, the other lock kept', async () => {
    const held = await acquireLock(file, { timings: { ...fast, refreshMs: 60_000 } });
    fs.writeFileSync(file, `${JSON.stringify({ pid: process.pid, host: os.hostname(), token: 'new', since: 3 })}\n`);
    assert.equal(held.lost, false);
    assert.equal(await held.release(), false);
    assert.equal(held.lost, true);
    assert.ok(fs.existsSync(file));
  });

  it('a holder keeps its lock fresh: its mtime moves while held and stops after release', async () => {
    const held = await acquireLock(file, { timings: { ...fast, refreshMs: 20 } });
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const deadline = Date.now() + 5_000;
    while (fs.statSync(file).mtimeMs < Date.now() - 30_000 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(fs.statSync(file).mtimeMs > Date.now() - 30_000, 'refreshed');
    await held.release();
    fs.writeFileSync(file, 'someone else');
    fs.utimesSync(file, old, old);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(fs.statSync(file).mtimeMs < Date.now() - 30_000, 'no refresh after release');
    assert.equal(held.lost, false, 'a released lock is not looked at again');
  });

  it('a holder named by pid 0, a negative or a fractional pid is no live process of this host: taken over', async () => {
    for (const pid of [0, -1, 1.5]) {
      fs.writeFileSync(file, `${JSON.stringify({ pid, host: os.hostname(), token: 'odd', since: 1 })}\n`);
      const held = await acquireLock(file, { timings: { ...fast, staleMs: 60_000, giveUpMs: 5_000 } });
      assert.equal((await readHolder(file))?.token, held.content.token, `pid ${pid}`);
      await held.release();
    }
  });

  it('a takeover guard left by a taker that died is removed once older than staleMs; a fresh one is respected', async () => {
    const pid = deadPid();
    const dead = `${JSON.stringify({ pid, host: os.hostname(), token: 'dead', since: 1 })}\n`;
    fs.writeFileSync(file, dead);
    fs.writeFileSync(`${file}.takeover`, '1\n');
    // A fresh guard: the waiter does not remove the lock under another taker's hands.
    await assert.rejects(acquireLock(file, { timings: { ...fast, staleMs: 60_000 } }), notAcquired('gaveUp'));
    assert.equal(fs.readFileSync(file, 'utf8'), dead);
    assert.ok(fs.existsSync(`${file}.takeover`));
    // An old one: removed, then the dead holder's lock is taken over.
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(`${file}.takeover`, old, old);
    const held = await acquireLock(file, { timings: { ...fast, staleMs: 60_000, giveUpMs: 5_000 } });
    assert.ok(!fs.existsSync(`${file}.takeover`));
    assert.equal((await readHolder(file))?.token, held.content.token);
    await held.release();
  });

  it("held up by another taker's guard: a cancel stops the waiter at once, not at its deadline", async () => {
    fs.writeFileSync(file, `${JSON.stringify({ pid: deadPid(), host: os.hostname(), token: 'dead', since: 1 })}\n`);
    fs.writeFileSync(`${file}.takeover`, '1\n');
    let cancel = false;
    setTimeout(() => (cancel = true), 100);
    const started = Date.now();
    await assert.rejects(
      acquireLock(file, { timings: { ...fast, staleMs: 60_000, giveUpMs: 60_000 }, cancelled: () => cancel }),
      notAcquired('cancelled'),
    );
    assert.ok(Date.now() - started < 5_000, `stopped after ${Date.now() - started} ms`);
    assert.ok(fs.existsSync(file), 'the dead holder is left to the guard holder');
  });

  it('a holder whose file is deleted under it: its next refresh finds it lost, and nothing throws', async () => {
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      const held = await acquireLock(file, { timings: { ...fast, refreshMs: 20 } });
      fs.rmSync(file);
      const deadline = Date.now() + 5_000;
      while (!held.lost && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(held.lost, true);
      assert.equal(await held.release(), false);
      assert.ok(!fs.existsSync(file), 'release made no file');
      await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(rejections, []);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a lock path that is a folder is an error (EISDIR), not a wait', async () => {
    fs.mkdirSync(file);
    await assert.rejects(acquireLock(file, { timings: { ...fast, giveUpMs: 60_000 } }), /EISDIR/);
  });

  it('a takeover guard that cannot be made (its name too long) is an error, not a wait', async () => {
    // The lock's own name fits the 255-byte limit of a file name; `<name>.takeover` does not.
    const long = path.join(dir, `${'x'.repeat(250)}.lock`);
    fs.writeFileSync(long, `${JSON.stringify({ pid: deadPid(), host: os.hostname(), token: 'dead', since: 1 })}\n`);
    await assert.rejects(acquireLock(long, { timings: { ...fast, giveUpMs: 60_000 } }), /ENAMETOOLONG/);
  });

  it('a dead holder is taken over without a pause between looks, however long pollMs is', async () => {
    fs.writeFileSync(file, `${JSON.stringify({ pid: deadPid(), host: os.hostname(), token: 'dead', since: 1 })}\n`);
    const held = await withinSeconds(
      10,
      acquireLock(file, { timings: { ...fast, pollMs: 60_000, staleMs: 60_000, giveUpMs: 120_000 } }),
    );
    assert.equal((await readHolder(file))?.token, held.content.token);
    await held.release();
  });

  it('cancelled from the start: no pause at all, however long pollMs is', async () => {
    const held = await acquireLock(file, { timings: fast });
    await withinSeconds(
      10,
      assert.rejects(
        acquireLock(file, { timings: { ...fast, pollMs: 60_000, giveUpMs: 120_000 }, cancelled: () => true }),
        notAcquired('cancelled'),
      ),
    );
    await held.release();
  });

  it('a waiter cancelled during its pause does not take the lock, even when it was released meanwhile', async () => {
    const held = await acquireLock(file, { timings: fast });
    let cancel = false;
    let wakeUp!: () => void;
    const wake = new Promise<void>((r) => (wakeUp = r));
    const waiting = acquireLock(file, {
      timings: { ...fast, pollMs: 60_000, giveUpMs: 120_000, staleMs: 120_000 },
      cancelled: () => cancel,
      wake,
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(await held.release(), true);
    cancel = true;
    wakeUp();
    await assert.rejects(waiting, notAcquired('cancelled'));
    assert.ok(!fs.existsSync(file), 'no lock taken');
  });

  it('a waiter pauses pollMs between looks: a few looks per second, not a busy loop', async () => {
    const held = await acquireLock(file, { timings: fast });
    let looks = 0;
    await assert.rejects(
      acquireLock(file, {
        timings: { ...fast, pollMs: 100, giveUpMs: 500, staleMs: 60_000 },
        cancelled: () => (looks++, false),
      }),
      notAcquired('gaveUp'),
    );
    // Two cancel checks per round, about 5 rounds in 500 ms.
    assert.ok(looks > 0 && looks < 40, `${looks} cancel checks`);
    await held.release();
  });

  it('acquire and release close every file they open', async () => {
    const openFiles = () => fs.readdirSync('/proc/self/fd').length;
    const before = openFiles();
    for (let i = 0; i < 20; i++) {
      const held = await acquireLock(file, { timings: fast });
      assert.equal(await held.release(), true);
    }
    assert.ok(openFiles() < before + 5, `${openFiles() - before} more open files after 20 locks`);
  });

  it('a lock removed between a failed create and the look is simply tried again', async () => {
    // Another process creates and removes the file as fast as it can, so some of the waiter's looks
    // find nothing after its exclusive create found the file.
    const churn = spawn(process.execPath, [
      '-e',
      'const fs=require("fs");const f=process.argv[1];const end=Date.now()+3000;' +
        'while(Date.now()<end){try{fs.writeFileSync(f,"{}\\n");fs.rmSync(f,{force:true})}catch{}}',
      file,
    ]);
    try {
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < 200; i++) {
        const held = await acquireLock(file, { timings: { ...fast, giveUpMs: 5_000, staleMs: 60_000 } });
        await held.release();
      }
    } finally {
      churn.kill();
    }
  });

  it('a dangling link at the lock path (created exclusively: exists; read: missing) is given up at the deadline', async () => {
    fs.symlinkSync(path.join(dir, 'nowhere'), file);
    await withinSeconds(
      10,
      assert.rejects(acquireLock(file, { timings: { ...fast, giveUpMs: 300 } }), (e) => {
        const why = (e as LockNotAcquired).why;
        return notAcquired('gaveUp')(e) && why.kind === 'gaveUp' && why.waitedMs >= 300 && why.waitedMs < 10_000;
      }),
    );
    assert.ok(fs.lstatSync(file).isSymbolicLink(), 'left as it was');
  });

  it('a folder that does not exist is an error, not a wait', async () => {
    await assert.rejects(acquireLock(path.join(dir, 'missing', 'x.lock'), { timings: fast }), /ENOENT/);
  });
});
