import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogFollower, readLogTail } from '../../src/node/logTail';
import { CappedLog } from '../../src/supervisor/cappedLog';
import { cutMarker } from '../../src/supervisor/protocol';
import { byteSize } from '../../src/ui/byteSize';
import { waitUntil } from './processTestUtils';

const lines = (count: number, make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join('');

describe('the output view reads a log from its tail (real files)', () => {
  let dir: string;
  let log: string;
  const followers: LogFollower[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-logtail-'));
    log = path.join(dir, 'agent.log');
  });
  afterEach(() => {
    followers.splice(0).forEach((f) => f.dispose());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A follower from `position` and everything it emitted so far. */
  function follow(position: number): { follower: LogFollower; seen: () => string } {
    let seen = '';
    const follower = new LogFollower(log, position, (text) => (seen += text));
    followers.push(follower);
    return { follower, seen: () => seen };
  }

  it('no log file: undefined; an empty file: nothing, nothing hidden, end 0', async () => {
    assert.equal(await readLogTail(log, 100), undefined);
    fs.writeFileSync(log, '');
    assert.deepEqual(await readLogTail(log, 100), { text: '', hiddenBytes: 0, end: 0 });
  });

  it('a file no larger than the tail size is shown whole', async () => {
    const content = lines(10, (i) => `line ${i}\n`) + 'no newline at the end';
    fs.writeFileSync(log, content);
    const size = Buffer.byteLength(content);
    assert.deepEqual(await readLogTail(log, size), { text: content, hiddenBytes: 0, end: size });
    assert.deepEqual(await readLogTail(log, 64 * 1024), { text: content, hiddenBytes: 0, end: size });
  });

  it('cuts at the first line start inside the last N bytes; the hidden figure is the bytes before it', async () => {
    // 1000 lines of exactly 10 bytes: line k starts at byte 10k.
    const content = lines(1000, (i) => `line ${String(i).padStart(4, '0')}\n`);
    fs.writeFileSync(log, content);
    const inside = await readLogTail(log, 95);
    assert.equal(inside?.text, content.slice(9910));
    assert.equal(inside?.hiddenBytes, 9910);
    assert.equal(inside?.end, 10000);
    // A window that begins exactly at a line start keeps that line.
    const exact = await readLogTail(log, 100);
    assert.equal(exact?.text, content.slice(9900));
    assert.equal(exact?.hiddenBytes, 9900);
  });

  it('CRLF lines: the tail starts at a line, never with a lone \\n, and keeps every \\r\\n', async () => {
    // 12 bytes a line: line k is bytes 12k..12k+11, its \r\n at 12k+10 and 12k+11.
    const content = lines(100, (i) => `row   ${String(i).padStart(4, '0')}\r\n`);
    fs.writeFileSync(log, content);
    // The window begins on the \n of line 11's \r\n.
    const tail = await readLogTail(log, content.length - (12 * 11 + 11));
    assert.ok(tail);
    assert.equal(tail.text, content.slice(12 * 12));
    assert.match(tail.text, /^row {3}0012\r\n/);
    assert.equal(tail.text.split('\r\n').length, 100 - 12 + 1);
    assert.equal(tail.hiddenBytes, 12 * 12);
  });

  it('decodes across UTF-8 boundaries: a cut inside a character starts at the next one; an incomplete last one waits', async () => {
    // No line ends: 1000 three-byte characters, the window starts inside one.
    fs.writeFileSync(log, '€'.repeat(1000));
    const tail = await readLogTail(log, 100);
    assert.equal(tail?.text, '€'.repeat(33));
    assert.equal(tail?.hiddenBytes, 3000 - 99);
    assert.equal(tail?.end, 3000);
    // Four-byte characters, the window starting inside one.
    fs.writeFileSync(log, '😀'.repeat(100));
    const emoji = await readLogTail(log, 50);
    assert.equal(emoji?.text, '😀'.repeat(12));
    assert.ok(!emoji?.text.includes('\ufffd'));
    // The log ends in the middle of a character: that character is not shown, and end is before it.
    const euro = Buffer.from('€');
    fs.writeFileSync(log, Buffer.concat([Buffer.from('ready\n'), euro.subarray(0, 2)]));
    const partial = await readLogTail(log, 100);
    assert.deepEqual(partial, { text: 'ready\n', hiddenBytes: 0, end: 6 });
    const { follower, seen } = follow(partial.end);
    fs.appendFileSync(log, Buffer.concat([euro.subarray(2), Buffer.from(' done\n')]));
    await follower.pump();
    assert.equal(seen(), '€ done\n');
  });

  it('a line longer than half the window: starts at a character instead of showing almost nothing', async () => {
    fs.writeFileSync(log, `head\n${'x'.repeat(1000)}\nshort\n`);
    const tail = await readLogTail(log, 200);
    assert.equal(tail?.text, `${'x'.repeat(193)}\nshort\n`);
    assert.equal(tail?.hiddenBytes, 5 + 1000 - 193);
  });

  it('a cut log: positions count the bytes cut away, the hidden figure does not count the marker', async () => {
    const marker = cutMarker(5000);
    const body = lines(100, (i) => `line ${String(i).padStart(4, '0')}\n`);
    fs.writeFileSync(log, marker + body);
    const whole = await readLogTail(log, 64 * 1024);
    assert.deepEqual(whole, { text: marker + body, hiddenBytes: 0, end: 5000 + 1000 });
    const tail = await readLogTail(log, 100);
    assert.deepEqual(tail, { text: body.slice(900), hiddenBytes: 900, end: 6000 });
  });

  it('20 MB: shows its last 64 KB and says how much is hidden', async () => {
    const line = `${'y'.repeat(99)}\n`;
    fs.writeFileSync(log, line.repeat((20 * 1024 * 1024) / 100 + 1));
    const size = fs.statSync(log).size;
    const tail = await readLogTail(log);
    assert.ok(tail);
    assert.ok(tail.text.length <= 64 * 1024 && tail.text.length > 64 * 1024 - 100, `${tail.text.length}`);
    assert.equal(tail.hiddenBytes + tail.text.length, size);
    assert.equal(tail.hiddenBytes % 100, 0, 'at a line start');
    assert.equal(byteSize(tail.hiddenBytes), '19.9 MB');
  });

  it('follows from where the tail ended: output written meanwhile arrives once, in order, under many wakes', async () => {
    fs.writeFileSync(log, 'before\n');
    const tail = await readLogTail(log);
    fs.appendFileSync(log, 'between the read and the follow\n');
    const { follower, seen } = follow(tail!.end);
    let expected = 'between the read and the follow\n';
    for (let i = 0; i < 200; i++) {
      const chunk = `chunk ${i} ${'é'.repeat(i % 7)}\n`;
      fs.appendFileSync(log, chunk);
      expected += chunk;
      follower.wake();
      if (i % 3 === 0) {
        void follower.pump();
      }
    }
    await follower.pump();
    await waitUntil(() => seen().length >= expected.length, 5000);
    assert.equal(seen(), expected);
  });

  it('follows through the capped log cutting the file: every byte once', async () => {
    fs.writeFileSync(log, '');
    const { follower, seen } = follow(0);
    const capped = new CappedLog(log, 16 * 1024);
    let expected = '';
    try {
      for (let i = 0; i < 600; i++) {
        const chunk = `line ${i} ${'z'.repeat(90)}\n`;
        capped.write(Buffer.from(chunk));
        expected += chunk;
        if (i % 20 === 0) {
          await follower.pump();
        }
      }
    } finally {
      capped.close();
    }
    await follower.pump();
    assert.ok(fs.readFileSync(log, 'utf8').startsWith('[parallel-agents] '), 'the log was cut');
    assert.equal(seen(), expected);
  });

  it('no log yet: the view follows from 0 and shows the file once it appears; a replaced log shows the new one', async () => {
    const { follower, seen } = follow(0);
    await follower.pump();
    assert.equal(seen(), '');
    fs.writeFileSync(log, 'first run\n');
    follower.wake();
    await waitUntil(() => seen() === 'first run\n', 5000);
    assert.equal(seen(), 'first run\n');
    // Deleted meanwhile: nothing more, no exception; a new, shorter file in its place is shown from its start.
    fs.rmSync(log);
    await follower.pump();
    fs.writeFileSync(log, 'new\n');
    await follower.pump();
    assert.equal(seen(), 'first run\n\n[parallel-agents] the log file was replaced: its new content follows\nnew\n');
  });

  it('byteSize: bytes, KB, MB as VS Code shows sizes', () => {
    assert.equal(byteSize(0), '0 bytes');
    assert.equal(byteSize(1023), '1023 bytes');
    assert.equal(byteSize(1024), '1.0 KB');
    assert.equal(byteSize(20 * 1024), '20.0 KB');
    assert.equal(byteSize(1024 * 1024 - 1), '1.0 MB');
    assert.equal(byteSize(20 * 1024 * 1024 - 64 * 1024), '19.9 MB');
    assert.equal(byteSize(3 * 1024 ** 3), '3.0 GB');
  });
});
