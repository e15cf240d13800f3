// The small parts that let output nobody looks at cost nothing: events that start their work with the
// first listener, a tail kept without rebuilding strings, the last characters of a log read from its
// end, and the running clock whose text (and so the row) changes once a second, then once a minute.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readLastText } from '../../src/node/logReader';
import { cutMarker } from '../../src/supervisor/protocol';
import { runningClock, untilClockChanges } from '../../src/ui/agentsView/clock';
import { Emitter, EventFanIn, mapEvent } from '../../src/util/event';
import { TailText } from '../../src/util/tailText';

describe('quiet output: the parts', () => {
  describe('Emitter hooks', () => {
    it('starts with the first listener and stops with the last; counts the same listener twice', () => {
      const calls: string[] = [];
      const emitter = new Emitter<number>({
        onFirstListener: () => calls.push('first'),
        onLastListener: () => calls.push('last'),
      });
      assert.equal(emitter.hasListeners, false);
      const seen: number[] = [];
      const listener = (n: number) => seen.push(n);
      const a = emitter.event(listener);
      const b = emitter.event(listener);
      assert.deepEqual(calls, ['first']);
      emitter.fire(1);
      assert.deepEqual(seen, [1, 1], 'two subscriptions of one function are two listeners');
      a.dispose();
      a.dispose();
      assert.deepEqual(calls, ['first'], 'one listener is left; disposing twice counts once');
      assert.equal(emitter.hasListeners, true);
      b.dispose();
      assert.deepEqual(calls, ['first', 'last']);
      assert.equal(emitter.hasListeners, false);
      emitter.event(listener);
      assert.deepEqual(calls, ['first', 'last', 'first']);
    });
  });

  describe('EventFanIn', () => {
    it('subscribes to its sources only while it has listeners, and to sources added meanwhile', () => {
      const subscribed = new Set<string>();
      const source = (key: string) => {
        const emitter = new Emitter<string>({
          onFirstListener: () => subscribed.add(key),
          onLastListener: () => subscribed.delete(key),
        });
        return emitter;
      };
      const a = source('a');
      const b = source('b');
      const fanIn = new EventFanIn<{ key: string; text: string }>();
      const aEvent = mapEvent(a.event, (text) => ({ key: 'a', text }));
      fanIn.add('a', aEvent);
      assert.deepEqual([...subscribed], [], 'nobody listens: no source is subscribed to');
      const seen: string[] = [];
      const sub = fanIn.event((e) => seen.push(`${e.key}:${e.text}`));
      assert.deepEqual([...subscribed], ['a']);
      fanIn.add(
        'b',
        mapEvent(b.event, (text) => ({ key: 'b', text })),
      );
      assert.deepEqual([...subscribed].sort(), ['a', 'b'], 'a source added while listened to is subscribed at once');
      a.fire('1');
      b.fire('2');
      fanIn.fire({ key: 'own', text: '3' });
      assert.deepEqual(seen, ['a:1', 'b:2', 'own:3']);
      fanIn.remove(
        'a',
        mapEvent(a.event, (text) => ({ key: 'a', text })),
      );
      assert.ok(subscribed.has('a'), 'remove() with another source under the key leaves it');
      fanIn.remove('a', aEvent);
      assert.deepEqual([...subscribed], ['b']);
      sub.dispose();
      assert.deepEqual([...subscribed], [], 'the last listener gone, no source is subscribed to');
      b.fire('lost');
      assert.deepEqual(seen, ['a:1', 'b:2', 'own:3']);
    });
  });

  describe('TailText', () => {
    it('keeps exactly the last characters of any sequence of chunks', () => {
      for (const max of [1, 7, 100]) {
        const tail = new TailText(max);
        let all = '';
        for (let i = 0; i < 300; i++) {
          const chunk = `${i}:${'x'.repeat(i % 13)}\n`;
          tail.push(chunk);
          tail.push('');
          all += chunk;
          if (i % 17 === 0) {
            assert.equal(tail.text, all.slice(-max));
          }
        }
        assert.equal(tail.text, all.slice(-max));
      }
      assert.equal(new TailText(10).text, '');
    });

    it('a chunk larger than the tail is kept whole only until a later chunk covers the tail', () => {
      const tail = new TailText(4);
      tail.push('a'.repeat(1000));
      tail.push('bcde');
      assert.equal(tail.text, 'bcde');
    });
  });

  describe('readLastText', () => {
    let dir = '';
    beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-lasttext-'))));
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('reads the last characters after a position, whole characters, across a cut marker', async () => {
      const log = path.join(dir, 'a.log');
      assert.equal(await readLastText(log, 0, 10), '', 'no log: empty');
      const text = 'first run\n' + 'é🚀 line of output\n'.repeat(500) + 'the last line\n';
      fs.writeFileSync(log, text);
      assert.equal(await readLastText(log, 0, 14), 'the last line\n');
      const chars = 3001;
      assert.equal(await readLastText(log, 0, chars), text.slice(-chars));
      assert.equal(await readLastText(log, 10, 100_000), text.slice(10), 'nothing before the position');
      assert.equal(await readLastText(log, Buffer.byteLength(text), 100), '', 'nothing after the end');
      // The same output after a cut of its first 1000 bytes: positions still count every byte.
      const bytes = Buffer.from(text);
      fs.writeFileSync(log, Buffer.concat([Buffer.from(cutMarker(1000)), bytes.subarray(1000)]));
      assert.equal(await readLastText(log, 0, chars), text.slice(-chars));
      assert.equal(await readLastText(log, 0, 1_000_000), bytes.subarray(1000).toString('utf8'));
    });
  });

  describe('running clock', () => {
    it('shows seconds in the first minute, then minutes, then hours and minutes', () => {
      assert.equal(runningClock(-5), '0s');
      assert.equal(runningClock(999), '0s');
      assert.equal(runningClock(59_999), '59s');
      assert.equal(runningClock(60_000), '1m');
      assert.equal(runningClock(61_000), '1m', 'no seconds after the first minute');
      assert.equal(runningClock(59 * 60_000 + 59_000), '59m');
      assert.equal(runningClock(3_600_000), '1h 00m');
      assert.equal(runningClock(3_600_000 + 5 * 60_000 + 30_000), '1h 05m');
    });

    it('the next change is exactly when the text changes: every second, then every minute', () => {
      for (let at = 0; at < 3 * 3_600_000; at += untilClockChanges(at)) {
        const wait = untilClockChanges(at);
        assert.ok(wait > 0);
        assert.equal(runningClock(at + wait - 1), runningClock(at), `no change before ${at + wait}`);
        assert.notEqual(runningClock(at + wait), runningClock(at), `a change at ${at + wait}`);
      }
      assert.equal(untilClockChanges(500), 500);
      assert.equal(untilClockChanges(59_500), 500);
      assert.equal(untilClockChanges(60_000), 60_000);
      assert.equal(untilClockChanges(90_000), 30_000);
    });
  });
});
