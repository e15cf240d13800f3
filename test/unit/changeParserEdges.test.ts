// Edges of the `-z` parsers of src/node/git/changeParsers.ts: paths that look like records, records
// git cuts short or does not know, and the byte and chunk boundaries of the line and binary sniffers.
import * as assert from 'node:assert/strict';
import {
  countStatusEntries,
  LineCounter,
  looksBinary,
  parseDiff,
  parseNameStatus,
  parsePathList,
  parseStatusPaths,
} from '../../src/node/git/changeParsers';

const z = (...records: string[]) => `${records.join('\0')}\0`;

describe('change parsers at their edges', () => {
  it('takes the paths of a rename as paths even when they look like status records', () => {
    // A file named "M" renamed to "A", in name-status then numstat form: one rename, no other change.
    const parsed = parseDiff(z('R100', 'M', 'A', '0\t0\t', 'A', 'B'));
    assert.deepEqual(parsed.changes, [{ path: 'A', kind: 'renamed', oldPath: 'M' }]);
    assert.deepEqual([...parsed.counts], [['B', { added: 0, removed: 0 }]]);
    assert.deepEqual(parseNameStatus(z('C100', 'D', 'M')), [{ path: 'M', kind: 'added' }]);
  });

  it('skips records it does not know, and never reads them as raw records', () => {
    assert.deepEqual(parseNameStatus(z('?', 'x', 'M', 'a.txt')), [{ path: 'a.txt', kind: 'modified' }]);
    assert.deepEqual(parseNameStatus(z('junk 1\t2\t', 'D', 'gone')), [{ path: 'gone', kind: 'deleted' }]);
    assert.equal(parseDiff(z('junk 1\t2\tfile')).counts.size, 0);
    assert.deepEqual(parseNameStatus(z('M1x', 'a', 'A', 'b')), [{ path: 'b', kind: 'added' }]);
  });

  it('drops a record cut short: a status without its path, a numstat rename without its new path', () => {
    assert.deepEqual(parseNameStatus(z('M', 'a', 'D')), [{ path: 'a', kind: 'modified' }]);
    for (const cut of [z('3\t1\t', 'old'), z('-\t-\t', 'old')]) {
      const parsed = parseDiff(cut);
      assert.deepEqual([parsed.changes, [...parsed.counts], [...parsed.binary]], [[], [], []], JSON.stringify(cut));
    }
  });

  it('counts a file as binary only when both counts are dashes, and as text only when neither is', () => {
    const parsed = parseDiff(z('5\t-\thalf.txt', '-\t5\tother half.txt', '2\t3\ttext.txt'));
    assert.deepEqual([...parsed.binary], []);
    assert.deepEqual([...parsed.counts], [['text.txt', { added: 2, removed: 3 }]]);
  });

  it('path lists: no empty path, a last record without its NUL kept, a stray last newline dropped', () => {
    assert.deepEqual(parsePathList('a\0\0b\0'), ['a', 'b']);
    assert.deepEqual(parsePathList('a\0b'), ['a', 'b']);
    assert.deepEqual(parsePathList('a\0\n'), ['a']);
  });

  it('status: a short record is no entry; a copy’s source is skipped, whatever its length', () => {
    assert.equal(countStatusEntries(z('', ' M a')), 1);
    assert.equal(countStatusEntries(z('C  copy', 'source.txt', '?? u')), 2);
    assert.equal(countStatusEntries(z(' C copy', 'source.txt')), 1);
    assert.deepEqual(parseStatusPaths('R  new'), ['new'], 'a rename cut before its original path');
    assert.deepEqual(parseStatusPaths(z('D  a', '?? a')), ['a'], 'deleted from the index, still on disk: once');
  });

  it('an empty chunk after a last line without a line feed keeps that line', () => {
    const counter = new LineCounter();
    counter.push(new TextEncoder().encode('alpha'));
    counter.push(new Uint8Array(0));
    assert.equal(counter.lines, 1);
  });

  it('sniffs exactly the first 8000 bytes', () => {
    const head = new Uint8Array(8001).fill(65);
    head[8000] = 0;
    assert.equal(looksBinary(head), false, 'a NUL at byte 8001');
    head[7999] = 0;
    assert.equal(looksBinary(head), true, 'a NUL at byte 8000');
  });
});
