import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import {
  applyToTarget,
  diffLines,
  type LineSelection,
  revertInAgent,
  selectChanges,
  splitLines,
} from '../../src/core/review';

const at = (start: number, end = start): LineSelection => ({ start, end });
const cursor = (line: number): LineSelection => ({ start: line, end: line, whole: true });

/** The workspace text after accepting the selected lines of the agent's diff (base → agent) into `target`. */
function accept(base: string, agent: string, selections: LineSelection[], target = base): string {
  const [b, a, t] = [splitLines(base), splitLines(agent), splitLines(target)];
  return applyToTarget(selectChanges(diffLines(b, a), selections, b, a), b, a, t, 'f.txt').join('');
}

/** The agent's text after reverting the selected lines of its diff. */
function revert(base: string, agent: string, selections: LineSelection[]): string {
  const [b, a] = [splitLines(base), splitLines(agent)];
  return revertInAgent(selectChanges(diffLines(b, a), selections, b, a), b, a, 'f.txt').join('');
}

function refusal(body: () => unknown): { path: string; lines: string } {
  try {
    body();
  } catch (e) {
    if (AgentError.isCode(e, 'hunkNoLongerApplies')) {
      return e.data;
    }
    throw e;
  }
  return assert.fail('expected hunkNoLongerApplies');
}

const base = 'one\ntwo\nthree\nfour\nfive\n';

describe('picking lines of an agent change', () => {
  it('takes only the selected lines of an insertion', () => {
    const agent = 'one\ntwo\nA\nB\nC\nthree\nfour\nfive\n';
    assert.equal(accept(base, agent, [at(3, 4)]), 'one\ntwo\nB\nC\nthree\nfour\nfive\n');
    assert.equal(accept(base, agent, [at(2), at(4)]), 'one\ntwo\nA\nC\nthree\nfour\nfive\n');
    assert.equal(accept(base, agent, [at(2), at(3, 4), at(2, 3)]), agent, 'overlapping selections take each line once');
    assert.equal(revert(base, agent, [at(3, 4)]), 'one\ntwo\nA\nthree\nfour\nfive\n');
  });

  it('takes the whole change under a cursor', () => {
    const agent = 'one\ntwo\nA\nB\nC\nthree\nfour\nFIVE\n';
    assert.equal(accept(base, agent, [cursor(3)]), 'one\ntwo\nA\nB\nC\nthree\nfour\nfive\n');
    assert.equal(revert(base, agent, [cursor(7)]), 'one\ntwo\nA\nB\nC\nthree\nfour\nfive\n');
  });

  it('pairs lines one for one when a change replaces as many lines as it adds', () => {
    const agent = 'one\nTWO\nTHREE\nFOUR\nfive\n';
    assert.equal(accept(base, agent, [at(2)]), 'one\ntwo\nTHREE\nfour\nfive\n');
    assert.equal(revert(base, agent, [at(1), at(3)]), 'one\ntwo\nTHREE\nfour\nfive\n');
  });

  it('puts the selected lines in place of all the base lines when the counts differ', () => {
    const agent = 'one\nX\nY\nZ\nfour\nfive\n';
    assert.equal(accept(base, agent, [at(2)]), 'one\nY\nfour\nfive\n');
    assert.equal(revert(base, agent, [at(2)]), 'one\nX\ntwo\nthree\nZ\nfour\nfive\n');
  });

  it('takes a deletion when the selection reaches the line before or after it', () => {
    const agent = 'one\ntwo\nfive\n';
    assert.equal(accept(base, agent, [at(2)]), agent);
    assert.equal(accept(base, agent, [at(1)]), agent);
    const [b, a] = [splitLines(base), splitLines(agent)];
    assert.deepEqual(selectChanges(diffLines(b, a), [at(0)], b, a), [], 'one line away picks nothing');
  });

  it('picks nothing when no selected line is changed', () => {
    const [b, a] = [splitLines(base), splitLines('one\ntwo\nthree\nfour\nFIVE\n')];
    assert.deepEqual(selectChanges(diffLines(b, a), [at(0, 2), cursor(1)], b, a), []);
  });

  it('takes whole the changes a selection on the base side touches', () => {
    const agent = 'one\nTWO\nTHREE\nfour\nfive\n';
    assert.equal(accept(base, agent, [{ start: 2, end: 2, side: 'base' }]), agent);
  });

  it('keeps CRLF, mixed endings, tabs and non-ASCII text byte for byte', () => {
    const crlf = 'α\r\n\tβ\r\nγ\r\n';
    assert.equal(accept(crlf, 'α\r\n\tβ\r\n\t\tnuevo ñ\r\n🎉\r\nγ\r\n', [at(2)]), 'α\r\n\tβ\r\n\t\tnuevo ñ\r\nγ\r\n');
    const mixed = 'a\r\nb\nc\r\nd\r';
    assert.equal(accept(mixed, 'a\r\nb\r\nc\r\nd\r', [at(1)]), 'a\r\nb\r\nc\r\nd\r');
    assert.equal(revert(mixed, 'a\r\nb\r\nc\nd\r', [at(2)]), 'a\r\nb\r\nc\r\nd\r');
  });

  it('takes a change at an end without a final line break whole, so no two lines are glued together', () => {
    const noEol = 'one\ntwo';
    assert.equal(accept(noEol, 'one\ntwo\nthree\nfour', [at(3)]), 'one\ntwo\nthree\nfour');
    assert.equal(accept(noEol, 'one\ntwo\nthree\n', [at(2)]), 'one\ntwo\nthree\n');
    assert.equal(accept('one\ntwo\n', 'one\ntwo\nthree', [at(2)]), 'one\ntwo\nthree');
    assert.equal(revert(noEol, 'one\ntwo\nthree\nfour', [at(2)]), noEol);
    // The agent dropped the final newline of a line it kept: selecting the line it added must not replace that line.
    assert.equal(accept('a\nb\n', 'a\nc\nb', [at(1)]), 'a\nc\nb');
    assert.equal(revert('a\nb\n', 'a\nc\nb', [at(1)]), 'a\nb\n');
  });

  it('fills an empty new file with just the selected lines', () => {
    assert.equal(accept('', 'a\nb\nc\n', [at(1)], ''), 'b\n');
  });
});

describe('accepting into a workspace that moved on', () => {
  const agent = 'one\ntwo\nthree\nNEW\nfour\nfive\n';

  it('applies where the base lines stand now, after lines the user added above', () => {
    const target = 'zero\none\ntwo\nthree\nfour\nfive\n';
    assert.equal(accept(base, agent, [at(3)], target), 'zero\none\ntwo\nthree\nNEW\nfour\nfive\n');
  });

  it('refuses, naming the workspace lines, when the user changed the lines the change needs', () => {
    const replacing = 'one\ntwo\nTHREE\nfour\nfive\n';
    assert.deepEqual(
      refusal(() => accept(base, replacing, [at(2)], 'zero\none\ntwo\nthree (edited)\nfour\nfive\n')),
      { path: 'f.txt', lines: '4' },
    );
    assert.deepEqual(
      refusal(() => accept(base, agent, [at(3)], 'one\ntwo\nthree!\nfour\nfive\n')),
      { path: 'f.txt', lines: '3–4' },
      'the line above the insertion was edited',
    );
    assert.deepEqual(
      refusal(() => accept(base, agent, [at(3)], 'one\ntwo\nthree\nmine\nfour\nfive\n')),
      { path: 'f.txt', lines: '3–5' },
      'the user inserted at the same place',
    );
  });

  it('refuses a change when the user edited any of the base lines it replaces', () => {
    const agent = 'one\nTWO\nTHREE\nFOUR\nfive\n';
    assert.deepEqual(
      refusal(() => accept(base, agent, [cursor(2)], 'one\ntwo\nmine\nfour\nfive\n')),
      {
        path: 'f.txt',
        lines: '2–4',
      },
    );
    assert.deepEqual(
      refusal(() => accept(base, agent, [cursor(2)], 'one\ntwo\nthree\nmine\nfour\nfive\n')),
      {
        path: 'f.txt',
        lines: '2–5',
      },
    );
  });

  it('refuses a change at the end of the file when the user added lines after it', () => {
    assert.deepEqual(
      refusal(() => accept(base, `${base}six\n`, [at(5)], `${base}mine\n`)),
      {
        path: 'f.txt',
        lines: '5–6',
      },
    );
    assert.deepEqual(
      refusal(() => accept('', 'a\n', [at(0)], 'already here\n')),
      { path: 'f.txt', lines: '1' },
    );
  });

  it('no longer shows an accepted change in the agent diff against the workspace', () => {
    const changed = 'ONE\ntwo\nthree\nNEW 1\nNEW 2\nfour\nfive\nsix\n';
    const result = accept(base, changed, [at(3, 4)]);
    const [w, a] = [splitLines(result), splitLines(changed)];
    const left = diffLines(w, a);
    assert.ok(left.length > 0);
    for (const c of left) {
      assert.ok(c.agentEnd <= 3 || c.agentStart >= 5, `still shown: ${JSON.stringify(c)}`);
    }
  });
});

describe('whole changes, both ways, on random texts', () => {
  it('accepting every change gives the agent text; reverting every change gives the base', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const endings = ['\n', '\r\n', '\r', ''];
    for (let round = 0; round < 500; round++) {
      const make = () => {
        const n = Math.floor(next() * 12);
        const lines = Array.from(
          { length: n },
          () => `${'ab\tñ'[Math.floor(next() * 4)]}${endings[Math.floor(next() * 3)]}`,
        );
        return lines.join('') + (next() < 0.3 ? 'z' : '') + endings[Math.floor(next() * 4)];
      };
      const [b, a] = [make(), make()];
      const all = [{ start: 0, end: 100 }];
      assert.equal(accept(b, a, all), a, JSON.stringify([b, a]));
      assert.equal(revert(b, a, all), b, JSON.stringify([b, a]));
      const one = [{ start: Math.floor(next() * 12), end: Math.floor(next() * 12) }];
      const [sb, sa] = [splitLines(b), splitLines(a)];
      const picked = selectChanges(diffLines(sb, sa), one, sb, sa);
      applyToTarget(picked, sb, sa, sb, 'f.txt');
      revertInAgent(picked, sb, sa, 'f.txt');
    }
  });
});
