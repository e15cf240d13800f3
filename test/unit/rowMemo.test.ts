// The Agents view keeps what it words from a record per version of the record (ui/agentsView/rowMemo.ts).
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { fileOf, RecordMemo } from '../../src/ui/agentsView/rowMemo';
import { agentRecord, modified } from './agentRecords';

describe('RecordMemo', () => {
  it('computes once per version of a record, again for a new version', () => {
    let computed = 0;
    const memo = new RecordMemo<string>();
    const get = (r: AgentRecord) => memo.get(r, '', () => `${r.title} (${++computed})`);
    const first = agentRecord('a', { title: 'One' });
    assert.equal(get(first), 'One (1)');
    assert.equal(get(first), 'One (1)', 'the same object: kept');
    const updated = { ...first, title: 'Two' };
    assert.equal(get(updated), 'Two (2)', 'an update puts a new object: computed again');
    assert.equal(get(first), 'One (1)', 'each version keeps its own');
    const other = agentRecord('b', { title: 'One' });
    assert.equal(get(other), 'One (3)', 'an equal record of another agent is its own key');
  });

  it('computes again for another variant (what else the value depends on)', () => {
    let computed = 0;
    const memo = new RecordMemo<number>();
    const record = agentRecord('a');
    assert.equal(
      memo.get(record, 'overlaps b', () => ++computed),
      1,
    );
    assert.equal(
      memo.get(record, 'overlaps b', () => ++computed),
      1,
    );
    assert.equal(
      memo.get(record, 'overlaps b, c', () => ++computed),
      2,
    );
    assert.equal(
      memo.get(record, 'overlaps b, c', () => ++computed),
      2,
    );
  });

  it('never keeps a value the record alone does not decide', () => {
    let computed = 0;
    const memo = new RecordMemo<number>((r) => r.status !== 'running');
    const running = agentRecord('a', { status: 'running' });
    assert.equal(
      memo.get(running, '', () => ++computed),
      1,
    );
    assert.equal(
      memo.get(running, '', () => ++computed),
      2,
    );
    const ended = { ...running, status: 'succeeded' as const };
    assert.equal(
      memo.get(ended, '', () => ++computed),
      3,
    );
    assert.equal(
      memo.get(ended, '', () => ++computed),
      3,
    );
  });
});

describe('fileOf', () => {
  it("finds a file of the record's change set, and the files of a new change set", () => {
    const record = agentRecord('a', { changedFiles: modified(['src/a.ts', 'src/b.ts']) });
    assert.equal(fileOf(record, 'src/b.ts')?.path, 'src/b.ts');
    assert.equal(fileOf(record, 'src/c.ts'), undefined);
    const next = { ...record, changedFiles: [{ path: 'src/c.ts', kind: 'added' as const, binary: false }] };
    assert.equal(fileOf(next, 'src/c.ts')?.kind, 'added');
    assert.equal(fileOf(next, 'src/a.ts'), undefined, 'the old change set is not consulted');
  });
});
