// `git status --porcelain=v1 -z` as git writes it: `XY path\0`, a rename or copy followed by its
// original path as a record of its own, which a parser must take as a path, never as an entry.
import * as assert from 'node:assert/strict';
import { comparePaths, countStatusEntries, hasStagedChanges, parseStatusPaths } from '../../src/node/git/changeParsers';

const z = (...records: string[]) => `${records.join('\0')}\0`;

describe('status --porcelain=v1 -z parsers', () => {
  it('lists both paths of renames and copies, in the index or the worktree, and skips the branch header', () => {
    assert.deepEqual(parseStatusPaths(z('## main...origin/main', 'R  new.txt', 'old.txt', ' M a.ts')), [
      'new.txt',
      'old.txt',
      'a.ts',
    ]);
    assert.deepEqual(parseStatusPaths(z(' R moved', 'M  looks-like-an-entry')), ['moved', 'M  looks-like-an-entry']);
    assert.deepEqual(parseStatusPaths(z('C  copy', 'source', '?? u')), ['copy', 'source', 'u']);
    assert.deepEqual(parseStatusPaths(z(' C copy', 'source')), ['copy', 'source']);
    assert.deepEqual(parseStatusPaths(z('M  a', 'A  b## ')), ['a', 'b## '], 'one-letter paths; a path ending in "## "');
    assert.deepEqual(parseStatusPaths(''), []);
  });

  it('tells staged changes from worktree ones, never reading a rename’s original path as an entry', () => {
    assert.equal(hasStagedChanges(z(' M a', '?? b', '!! c')), false);
    assert.equal(hasStagedChanges(z(' R new', 'M  original-name')), false, 'a worktree rename');
    assert.equal(hasStagedChanges(z(' C copy', 'A  original-name')), false, 'a worktree copy');
    assert.equal(hasStagedChanges(z('## main', ' M a')), false);
    assert.equal(hasStagedChanges(z(' M a', 'M  b')), true);
    assert.equal(hasStagedChanges(z('A  x')), true, 'a one-letter path');
    assert.equal(hasStagedChanges(z('R  new', 'old')), true);
    assert.equal(hasStagedChanges(z('D  gone')), true);
  });

  it('counts entries, a rename or copy once, the header not at all', () => {
    assert.equal(countStatusEntries(z('## main', 'R  new', ' M  old', ' M a')), 2);
    assert.equal(countStatusEntries(z(' R new', 'M  old', 'C  copy', 'src', ' C c2', 'src2', '?? u')), 4);
    assert.equal(countStatusEntries(z('M  a', '## main')), 1);
    assert.equal(countStatusEntries(''), 0);
  });

  it('orders paths by code unit, not by locale', () => {
    assert.equal(comparePaths('a', 'b'), -1);
    assert.equal(comparePaths('b', 'a'), 1);
    assert.equal(comparePaths('a', 'a'), 0);
    assert.equal(comparePaths('Z', 'a'), -1, 'upper case first');
    assert.deepEqual(['é', 'z', 'e', 'E'].sort(comparePaths), ['E', 'e', 'z', 'é']);
  });
});
