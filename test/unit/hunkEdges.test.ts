// Picking and applying an agent's lines at their edges: where a selection stops touching a change,
// selections in any order, and the workspace lines a refusal names when the user changed lines there.
import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import {
  applyToTarget,
  diffLines,
  type LineChange,
  type LineSelection,
  revertInAgent,
  selectChanges,
  splitLines,
} from '../../src/core/review';

const at = (start: number, end = start): LineSelection => ({ start, end });
const pick = (base: string, agent: string, selections: LineSelection[]) => {
  const [b, a] = [splitLines(base), splitLines(agent)];
  return selectChanges(diffLines(b, a), selections, b, a);
};
const accept = (base: string, agent: string, selections: LineSelection[], target = base) => {
  const [b, a] = [splitLines(base), splitLines(agent)];
  return applyToTarget(selectChanges(diffLines(b, a), selections, b, a), b, a, splitLines(target), 'f.txt').join('');
};
function refused(body: () => unknown): string {
  try {
    body();
  } catch (e) {
    if (AgentError.isCode(e, 'hunkNoLongerApplies')) {
      assert.equal(e.data.path, 'f.txt');
      return e.data.lines;
    }
    throw e;
  }
  return assert.fail('expected hunkNoLongerApplies');
}

const base = 'one\ntwo\nthree\nfour\nfive\n';
const inserted = 'one\ntwo\nA\nB\nC\nthree\nfour\nfive\n';

describe('selections at the edges of a change', () => {
  it('picks nothing from the line after an insertion, or two lines past a deletion', () => {
    assert.deepEqual(pick(base, inserted, [at(5)]), []);
    const deleted = 'one\ntwo\nfour\nfive\n';
    assert.deepEqual(pick(base, deleted, [at(3)]), []);
    assert.equal(pick(base, deleted, [at(2)]).length, 1);
  });

  it('reads a selection on the base side only against base lines', () => {
    const b = 'a\nb\nc\nd\ne\n';
    const a = 'X\nY\nZ\na\nb\nc\nd\nE\n';
    assert.deepEqual(pick(b, a, [{ start: 1, end: 1, side: 'base' }]), [], 'base line 1 is no agent line 1');
    assert.deepEqual(pick(b, a, [{ start: 4, end: 4, side: 'base' }]), [
      { baseStart: 4, baseEnd: 5, agentStart: 7, agentEnd: 8 },
    ]);
  });

  it('takes a change whole when any of its selections is a cursor', () => {
    assert.equal(accept(base, inserted, [at(3), { start: 4, end: 4, whole: true }]), inserted);
  });

  it('takes the first line of an insertion alone, and selections given in any order', () => {
    assert.equal(accept(base, inserted, [at(2)]), 'one\ntwo\nA\nthree\nfour\nfive\n');
    assert.equal(accept(base, inserted, [at(4), at(2)]), 'one\ntwo\nA\nC\nthree\nfour\nfive\n');
    const paired = 'one\nTWO\nTHREE\nFOUR\nfive\n';
    assert.equal(accept(base, paired, [at(3), at(1)]), 'one\nTWO\nthree\nFOUR\nfive\n');
  });

  it('counts adjacent selected lines as one part of a change', () => {
    assert.deepEqual(pick(base, inserted, [at(2), at(3)]), [{ baseStart: 2, baseEnd: 2, agentStart: 2, agentEnd: 4 }]);
  });
});

describe('applying into a workspace whose lines moved or changed', () => {
  it('refuses an insertion whose line above the user deleted or changed, even with the line below in place', () => {
    const b = 'a\nb\nc\n';
    const a = 'a\nX\nb\nc\n';
    assert.equal(
      refused(() => accept(b, a, [at(1)], 'b\nc\n')),
      '1',
    );
    assert.equal(
      refused(() => accept(b, a, [at(1)], 'z\nb\nc\n')),
      '1–2',
    );
  });

  it('names the workspace lines where the changed base lines were, after lines the user added, deleted or changed', () => {
    assert.equal(
      refused(() => accept('a\nb\nc\n', 'A\nb\nc\n', [at(0)], 'z\nb\nc\n')),
      '1',
    );
    assert.equal(
      refused(() => accept('a\nb\nc\n', 'a\nb\nC\n', [at(2)], 'b\nz\n')),
      '2',
    );
    assert.equal(
      refused(() => accept('a\nb\n', 'a\nB\n', [at(1)], 'new\na\nz\n')),
      '3',
    );
  });

  it('refuses changes that would glue a line without its break to the next, naming where', () => {
    const [b, a] = [splitLines('a\nb'), splitLines('a\nb\nc')];
    const end: LineChange = { baseStart: 2, baseEnd: 2, agentStart: 2, agentEnd: 3 };
    assert.equal(
      refused(() => applyToTarget([end], b, a, b, 'f.txt')),
      '2–3',
    );
    const [b2, a2] = [splitLines('x\ny'), splitLines('x\ny\nz')];
    const middle: LineChange = { baseStart: 1, baseEnd: 2, agentStart: 1, agentEnd: 2 };
    assert.equal(
      refused(() => revertInAgent([middle], b2, a2, 'f.txt')),
      '2',
    );
  });

  it('applies and reverts changes given in any order', () => {
    const [b, a] = [splitLines(base), splitLines('ONE\ntwo\nthree\nfour\nFIVE\n')];
    const changes = diffLines(b, a);
    assert.equal(changes.length, 2);
    const reversed = [...changes].reverse();
    assert.equal(applyToTarget(reversed, b, a, b, 'f.txt').join(''), 'ONE\ntwo\nthree\nfour\nFIVE\n');
    assert.equal(revertInAgent(reversed, b, a, 'f.txt').join(''), base);
  });
});
