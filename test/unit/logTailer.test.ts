// The log tailer behind every followed agent's output (src/node/logTailer.ts), on real files: what it
// emits is the log decoded, character for character, however its 64 KB reads fall.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LogTailer } from '../../src/node/logTailer';

describe('log tailer (real files)', () => {
  let dir: string;
  let log: string;
  const tailers: LogTailer[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-tailer-'));
    log = path.join(dir, 'agent.log');
  });
  afterEach(() => {
    tailers.splice(0).forEach((t) => t.close());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function tail(from = 0): { tailer: LogTailer; seen: () => string } {
    let seen = '';
    const tailer = new LogTailer(
      log,
      from,
      (text) => (seen += text),
      () => undefined,
    );
    tailers.push(tailer);
    return { tailer, seen: () => seen };
  }

  // One character of 1 to 4 bytes per step, so that characters straddle every 64 KB read boundary.
  const text = Array.from(
    { length: 120_000 },
    (_, i) => ['a', 'é', '✓', '🚀'][i % 4] + (i % 50 === 49 ? '\n' : ''),
  ).join('');

  it('a final read of far more than one read: every character decoded whole, none split at a read boundary', async () => {
    fs.writeFileSync(log, text);
    const { tailer, seen } = tail();
    await tailer.pump(true);
    assert.equal(seen().length, text.length, 'as many characters as written');
    assert.ok(seen() === text, 'the same characters, in order');
    assert.equal(tailer.position, Buffer.byteLength(text));
  });

  it('a read that is not final stops before an incomplete last character; the final one gives its bytes', async () => {
    const ending = `${text}🚀`;
    const whole = Buffer.from(ending);
    const cut = whole.length - 2; // inside the last character (🚀: 4 bytes)
    fs.writeFileSync(log, whole.subarray(0, cut));
    const { tailer, seen } = tail();
    await tailer.pump();
    assert.equal(tailer.position, whole.length - 4, 'stops at the start of the incomplete character');
    assert.ok(seen() === text, 'everything before it');
    fs.appendFileSync(log, whole.subarray(cut));
    await tailer.pump(true);
    assert.ok(seen() === ending, 'the rest once complete');
    // Bytes that never complete a character are given at the end, as the decoder shows them.
    fs.appendFileSync(log, Buffer.from([0xe2, 0x9c]));
    await tailer.pump(true);
    assert.ok(seen() === `${ending}\ufffd`);
  });
});
