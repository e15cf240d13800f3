import * as assert from 'node:assert/strict';
import { hasStagedChanges, parseStatusPaths } from '../../src/node/git/changeParsers';
import {
  hasConflictMarkers,
  parseCommitCheck,
  parseMergeTree,
  parseMergeTreeBatch,
} from '../../src/node/git/landingParsers';
import { parseSavedWork } from '../../src/node/git/snapshotParsers';
import { AgentError } from '../../src/core/errors';
import { englishMessage } from '../../src/ui/errorText';

const tree = 'a'.repeat(40);
const other = 'b'.repeat(40);

describe('git output parsers', () => {
  it('reads a single merge-tree answer by its exit code', () => {
    assert.deepEqual(parseMergeTree(`${tree}\0`, 0), { clean: true, conflicts: [], tree });
    assert.deepEqual(parseMergeTree(`${tree}\0src/a.ts\0b c.md\0src/a.ts\0`, 1), {
      clean: false,
      conflicts: ['src/a.ts', 'b c.md'],
      tree,
    });
  });

  it('reads merge-tree --stdin answers in order and rejects a truncated one', () => {
    const output = `1\0${tree}\0\x000\0${other}\0x.ts\0y.ts\0\0`;
    assert.deepEqual(parseMergeTreeBatch(output, 2), [
      { clean: true, conflicts: [], tree },
      { clean: false, conflicts: ['x.ts', 'y.ts'], tree: other },
    ]);
    assert.throws(
      () => parseMergeTreeBatch(`1\0${tree}\0\0`, 2),
      (e) =>
        AgentError.isCode(e, 'mergeTreeOutputUnexpected') &&
        e.data.merge === 2 &&
        e.data.count === 2 &&
        /merge 2 of 2/.test(englishMessage(e)),
    );
    assert.throws(
      () => parseMergeTreeBatch(`0\0${tree}\0x.ts`, 1),
      (e) =>
        AgentError.isCode(e, 'mergeTreeOutputTruncated') &&
        e.data.merge === 1 &&
        /ended inside merge 1/.test(englishMessage(e)),
    );
  });

  it('lists both paths of a rename and tells staged changes apart', () => {
    const status = 'R  new.ts\0old.ts\0 M edited.ts\0?? notes/new.md\0';
    assert.deepEqual(parseStatusPaths(status), ['new.ts', 'old.ts', 'edited.ts', 'notes/new.md']);
    assert.equal(hasStagedChanges(status), true);
    assert.equal(hasStagedChanges(' M edited.ts\0?? new.md\0'), false);
    assert.equal(hasStagedChanges(' R new.ts\0old.ts\0'), false);
  });

  it('maps cat-file answers back to the names asked for', () => {
    assert.deepEqual(parseCommitCheck(`${tree} commit 230\nnope^{commit} missing\n`, ['main', 'nope']), [
      tree,
      undefined,
    ]);
  });

  it('reads saved refs with their dates in ms', () => {
    assert.deepEqual(parseSavedWork(`refs/pa/x\0${tree}\x001700000000\n`), [
      { ref: 'refs/pa/x', sha: tree, date: 1_700_000_000_000 },
    ]);
  });

  it('finds git conflict markers, not lookalikes', () => {
    assert.equal(hasConflictMarkers('a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> main\n'), true);
    assert.equal(hasConflictMarkers('Title\n=======\n<<<<<<<<< not one\n'), false);
  });
});
