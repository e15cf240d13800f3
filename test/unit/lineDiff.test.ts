import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { bytesOf, diffLines, type LineChange, splitLines, textOf } from '../../src/core/review';

/** A small deterministic random source, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 0x1_0000_0000;
  };
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

/** `base` with every change applied: must give `agent`. */
function applyAll(base: readonly string[], agent: readonly string[], changes: readonly LineChange[]): string[] {
  const out: string[] = [];
  let next = 0;
  for (const c of changes) {
    out.push(...base.slice(next, c.baseStart), ...agent.slice(c.agentStart, c.agentEnd));
    next = c.baseEnd;
  }
  return [...out, ...base.slice(next)];
}

describe('lines of a text, byte for byte', () => {
  it('keeps each line its own ending: CRLF, LF, a lone CR, none at the end', () => {
    assert.deepEqual(splitLines('a\r\nb\nc\rd'), ['a\r\n', 'b\n', 'c\r', 'd']);
    assert.deepEqual(splitLines(''), []);
    assert.deepEqual(splitLines('x\n'), ['x\n']);
    assert.deepEqual(splitLines('\n\n'), ['\n', '\n']);
    assert.deepEqual(splitLines('\r\n\r'), ['\r\n', '\r']);
    for (const text of ['a\r\nb\nc\rd', '\tx\r\n', 'no ending', '\r\r\n\n']) {
      assert.equal(splitLines(text).join(''), text);
    }
  });

  it('decodes UTF-8 text and encodes it back to the very same bytes (BOM, tabs, non-ASCII)', () => {
    const samples = [
      '\uFEFFwith a byte order mark\r\n',
      '\tindent\t\ttabs\n',
      'ñandú, 漢字, Ελληνικά, עברית, 🎉👩‍👩‍👧 e\u0301\n',
      'no final newline ✓',
    ];
    for (const text of samples) {
      const bytes = Buffer.from(text, 'utf8');
      const decoded = textOf(bytes, 'f.txt');
      assert.equal(decoded, text);
      assert.ok(Buffer.from(bytesOf(decoded)).equals(bytes), JSON.stringify(text));
    }
  });

  it('refuses a NUL byte and bytes that are not UTF-8 as binary, naming the file', () => {
    const bad = [
      [0x61, 0x00, 0x62],
      [0xff, 0xfe, 0x61],
      [0xc3], // cut in the middle of a character
      [0xc0, 0x80], // an overlong NUL
      [0xed, 0xa0, 0x80], // a UTF-16 surrogate
      [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    ];
    for (const bytes of bad) {
      assert.throws(
        () => textOf(Uint8Array.from(bytes), 'img/logo.png'),
        (e: unknown) => AgentError.isCode(e, 'binaryHunks') && e.data.path === 'img/logo.png',
        JSON.stringify(bytes),
      );
    }
  });
});

describe('line diff (Myers)', () => {
  it('finds no change between equal texts, and the changed lines otherwise', () => {
    assert.deepEqual(diffLines(['a\n', 'b\n'], ['a\n', 'b\n']), []);
    assert.deepEqual(diffLines([], ['a\n']), [{ baseStart: 0, baseEnd: 0, agentStart: 0, agentEnd: 1 }]);
    assert.deepEqual(diffLines(['a\n'], []), [{ baseStart: 0, baseEnd: 1, agentStart: 0, agentEnd: 0 }]);
    assert.deepEqual(diffLines(['a\n', 'b\n', 'c\n'], ['a\n', 'B\n', 'c\n']), [
      { baseStart: 1, baseEnd: 2, agentStart: 1, agentEnd: 2 },
    ]);
  });

  it('counts a line whose ending alone changed (CRLF, final newline) as a change', () => {
    assert.deepEqual(diffLines(['a\r\n', 'b\r\n'], ['a\r\n', 'b\n']), [
      { baseStart: 1, baseEnd: 2, agentStart: 1, agentEnd: 2 },
    ]);
    assert.deepEqual(diffLines(['a\n', 'b'], ['a\n', 'b\n']), [
      { baseStart: 1, baseEnd: 2, agentStart: 1, agentEnd: 2 },
    ]);
  });

  it('gives, for 3,000 random pairs, changes that rebuild the agent text with the fewest changed lines', () => {
    const next = random(18);
    for (let round = 0; round < 3000; round++) {
      const alphabet = 1 + Math.floor(next() * 6);
      const make = (n: number) => Array.from({ length: n }, () => `${Math.floor(next() * alphabet)}\n`);
      const base = make(Math.floor(next() * 25));
      // Half the rounds edit the base (the usual diff), half compare unrelated texts.
      const agent =
        round % 2 === 0
          ? base.flatMap((line) => (next() < 0.2 ? [] : next() < 0.2 ? [line, `${alphabet}\n`] : [line]))
          : make(Math.floor(next() * 25));
      const changes = diffLines(base, agent);
      const where = `round ${round}: ${JSON.stringify(base)} → ${JSON.stringify(agent)}`;
      assert.deepEqual(applyAll(base, agent, changes), agent, where);
      const edited = changes.reduce((n, c) => n + (c.baseEnd - c.baseStart) + (c.agentEnd - c.agentStart), 0);
      assert.equal(edited, base.length + agent.length - 2 * lcsLength(base, agent), `${where}: not minimal`);
      for (let i = 1; i < changes.length; i++) {
        assert.ok(changes[i].baseStart > changes[i - 1].baseEnd, `${where}: changes ${i - 1} and ${i} touch`);
        assert.ok(changes[i].agentStart > changes[i - 1].agentEnd, `${where}: changes ${i - 1} and ${i} touch`);
      }
    }
  });

  it('finds the fewest changed lines where the two searches meet at the edge of their ranges', () => {
    // Pairs where a search that stepped outside the texts, or checked too few diagonals, found a longer diff.
    const pairs = [
      ['22022', '000'],
      ['320400244', '20'],
      ['430202223', '140011'],
      ['11323', '11003300'],
    ];
    for (const [b, a] of pairs) {
      const [base, agent] = [[...b].map((c) => `${c}\n`), [...a].map((c) => `${c}\n`)];
      const changes = diffLines(base, agent);
      assert.deepEqual(applyAll(base, agent, changes), agent, `${b} → ${a}`);
      const edited = changes.reduce((n, c) => n + (c.baseEnd - c.baseStart) + (c.agentEnd - c.agentStart), 0);
      assert.equal(edited, base.length + agent.length - 2 * lcsLength(base, agent), `${b} → ${a}: not minimal`);
    }
  });

  it('shows the same one of several equally short diffs each time (trimmed ends, then the middle snake)', () => {
    // Which lines show as changed, where several choices are as short: pinned, so a review does not shift.
    // Each change as baseStart-baseEnd>agentStart-agentEnd.
    const cases = [
      ['01', '0001110', '1-1>1-4 2-2>5-7'],
      ['000', '0101', '1-1>1-2 2-3>3-4'],
      ['011', '122', '0-2>0-0 3-3>1-3'],
      ['00000', '01001', '1-3>1-2 5-5>4-5'],
    ];
    for (const [b, a, expected] of cases) {
      const changes = diffLines([...b], [...a]).map((c) => `${c.baseStart}-${c.baseEnd}>${c.agentStart}-${c.agentEnd}`);
      assert.equal(changes.join(' '), expected, `${b} → ${a}`);
    }
  });

  it('diffs two 2,000-line files that differ everywhere without running out of room', () => {
    const base = Array.from({ length: 2000 }, (_, i) => `base ${i}\n`);
    const agent = Array.from({ length: 2000 }, (_, i) => `agent ${i}\n`);
    assert.deepEqual(diffLines(base, agent), [{ baseStart: 0, baseEnd: 2000, agentStart: 0, agentEnd: 2000 }]);
  });
});
