import * as assert from 'node:assert/strict';
import {
  buildChangeSet,
  countStatusEntries,
  LineCounter,
  looksBinary,
  parseDiff,
  parseNameStatus,
  parseNumstatBinaryPaths,
  parsePathList,
} from '../../src/node/git/changeParsers';
import { changeStats, sameChangeSet } from '../../src/core/landing/changeSet';
import { parseWorktreeList } from '../../src/node/git/worktreeParsers';
import type { ChangedFile } from '../../src/core/agent';

// Outputs captured from git 2.39 (`-z`: every record ends with NUL, paths are not quoted).
const nameStatus =
  'A\0added.txt\0M\0bin.dat\0M\0f3.txt\0R100\0f1.txt\0moved.txt\0R087\0f2.txt\0sp ace é.txt\0D\0gone.txt\0T\0link\0U\0conflicted.txt\0C075\0tmpl.txt\0copy.txt\0';
const numstat =
  '1\t0\tadded.txt\0-\t-\tbin.dat\x001\t0\tf3.txt\x000\t0\t\0f1.txt\0moved.txt\x003\t1\t\0f2.txt\0sp ace é.txt\0' +
  '0\t5\tgone.txt\0-\t-\t\0logo.png\0images/logo.png\0';

describe('changeSet parsers', () => {
  it('parses name-status records, renames with a score and copies', () => {
    assert.deepEqual(parseNameStatus(nameStatus), [
      { path: 'added.txt', kind: 'added' },
      { path: 'bin.dat', kind: 'modified' },
      { path: 'f3.txt', kind: 'modified' },
      { path: 'moved.txt', kind: 'renamed', oldPath: 'f1.txt' },
      { path: 'sp ace é.txt', kind: 'renamed', oldPath: 'f2.txt' },
      { path: 'gone.txt', kind: 'deleted' },
      { path: 'link', kind: 'modified' },
      { path: 'conflicted.txt', kind: 'modified' },
      { path: 'copy.txt', kind: 'added' },
    ]);
  });

  it('returns nothing for empty output and stops at a truncated record', () => {
    assert.deepEqual(parseNameStatus(''), []);
    assert.deepEqual(parseNameStatus('M\0a.txt\0R100\0old.txt\0'), [{ path: 'a.txt', kind: 'modified' }]);
  });

  it('finds binary paths in numstat, including the new path of a binary rename', () => {
    assert.deepEqual([...parseNumstatBinaryPaths(numstat)].sort(), ['bin.dat', 'images/logo.png']);
    assert.equal(parseNumstatBinaryPaths('').size, 0);
  });

  it('does not take a text file with a dash in its name for binary', () => {
    assert.equal(parseNumstatBinaryPaths('2\t0\t-\t-weird.txt\0').size, 0);
  });

  it('lists untracked paths with spaces, unicode and newlines verbatim', () => {
    assert.deepEqual(parsePathList('new file.txt\0dir/ünï çødé.md\0line\nbreak\0'), [
      'new file.txt',
      'dir/ünï çødé.md',
      'line\nbreak',
    ]);
    assert.deepEqual(parsePathList(''), []);
  });

  it('parses raw and numstat records of one process (diff --raw --numstat -z)', () => {
    const sha = 'd5d0b8b';
    const output =
      `:000000 100644 0000000 3e75765 A\0added.txt\0:100644 100644 ${sha} 0000000 M\0bin.dat\0` +
      `:100644 100644 96cc558 96cc558 R100\0f1.txt\0moved.txt\0:100644 000000 ${sha} 0000000 D\0:odd name\0` +
      '1\t0\tadded.txt\0-\t-\tbin.dat\x000\t0\t\0f1.txt\0moved.txt\x000\t3\t:odd name\0';
    const parsed = parseDiff(output);
    assert.deepEqual(parsed.changes, [
      { path: 'added.txt', kind: 'added' },
      { path: 'bin.dat', kind: 'modified' },
      { path: 'moved.txt', kind: 'renamed', oldPath: 'f1.txt' },
      { path: ':odd name', kind: 'deleted' },
    ]);
    assert.deepEqual([...parsed.binary], ['bin.dat']);
  });

  it('builds one sorted change set from the diff and untracked outputs, with line counts', () => {
    const files = buildChangeSet(
      {
        diff:
          'M\0src/b.ts\0A\0src/a.ts\0R092\0old name.bin\0new name.bin\0D\0z.txt\0' +
          '3\t1\tsrc/b.ts\x005\t0\tsrc/a.ts\0-\t-\t\0old name.bin\0new name.bin\x000\t9\tz.txt\0',
        untracked: 'notes ü.md\0img.png\0big.log\0',
      },
      new Set(['img.png']),
      new Map([['notes ü.md', 4]]),
    );
    assert.deepEqual(files, [
      { path: 'big.log', kind: 'untracked', binary: false },
      { path: 'img.png', kind: 'untracked', binary: true },
      { path: 'new name.bin', kind: 'renamed', oldPath: 'old name.bin', binary: true },
      { path: 'notes ü.md', kind: 'untracked', binary: false, added: 4, removed: 0 },
      { path: 'src/a.ts', kind: 'added', binary: false, added: 5, removed: 0 },
      { path: 'src/b.ts', kind: 'modified', binary: false, added: 3, removed: 1 },
      { path: 'z.txt', kind: 'deleted', binary: false, added: 0, removed: 9 },
    ]);
  });

  it('reads numstat counts by path, the new path for a rename, and none for a binary file', () => {
    const parsed = parseDiff(
      ':100644 100644 96cc558 1b2c3d4 R087\0f1.txt\0moved.txt\0:100644 100644 d5d0b8b 0000000 M\0bin.dat\0' +
        '2\t7\t\0f1.txt\0moved.txt\0-\t-\tbin.dat\x0012\t0\t-\t-weird.txt\0',
    );
    assert.deepEqual(
      [...parsed.counts],
      [
        ['moved.txt', { added: 2, removed: 7 }],
        ['-\t-weird.txt', { added: 12, removed: 0 }],
      ],
    );
    assert.deepEqual([...parsed.binary], ['bin.dat']);
    assert.equal(parseDiff('').counts.size, 0);
  });

  it('counts lines like numstat, across chunks: line feeds, plus a last line without one', () => {
    const lines = (...chunks: string[]) => {
      const counter = new LineCounter();
      chunks.forEach((c) => counter.push(new TextEncoder().encode(c)));
      return counter.lines;
    };
    assert.equal(lines(), 0);
    assert.equal(lines(''), 0);
    assert.equal(lines('one\n'), 1);
    assert.equal(lines('one\ntwo'), 2);
    assert.equal(lines('one\r\ntwo\r\n'), 2);
    assert.equal(lines('\n\n\n'), 3);
    assert.equal(lines('al', 'pha\nbe', '', 'ta'), 2);
    assert.equal(lines('alpha\n', ''), 1, 'an empty last chunk does not make a line');
    assert.equal(lines('alpha', '\n'), 1);
  });

  it('reports a path deleted from the index but still on disk once, as modified', () => {
    const files = buildChangeSet({ diff: 'D\0kept.txt\x000\t1\tkept.txt\0', untracked: 'kept.txt\0' });
    assert.deepEqual(files, [{ path: 'kept.txt', kind: 'modified', binary: false }]);
  });

  it('sorts by code unit, not by locale', () => {
    const files = buildChangeSet({ diff: 'A\0b\0A\0B\0A\0a\0A\0é\0', untracked: '' });
    assert.deepEqual(
      files.map((f) => f.path),
      ['B', 'a', 'b', 'é'],
    );
  });

  it('counts porcelain v1 status entries, skipping the original path of renames', () => {
    assert.equal(countStatusEntries(''), 0);
    assert.equal(countStatusEntries(' M a.txt\0?? new file.txt\0R  new.txt\0old.txt\0A  b.txt\0 D c.txt\0'), 5);
    assert.equal(countStatusEntries('RM moved é.txt\0orig.txt\0?? x\0'), 2);
    assert.equal(countStatusEntries('## main\0 M a.txt\0'), 1);
    assert.equal(countStatusEntries('## No commits yet on master\0'), 0);
  });

  it('sniffs binary content like git: a NUL byte in the first 8000 bytes', () => {
    assert.equal(looksBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00])), true);
    assert.equal(looksBinary(new TextEncoder().encode('plain text, ünïcode\n')), false);
    const lateNul = new Uint8Array(9000).fill(65);
    lateNul[8500] = 0;
    assert.equal(looksBinary(lateNul), false);
  });
});

describe('sameChangeSet', () => {
  const a: ChangedFile[] = [
    { path: 'a.txt', kind: 'modified', binary: false },
    { path: 'b.txt', kind: 'renamed', oldPath: 'old.txt', binary: false },
  ];

  it('is true for equal content in distinct arrays', () => {
    assert.equal(
      sameChangeSet(
        a,
        a.map((f) => ({ ...f })),
      ),
      true,
    );
    assert.equal(sameChangeSet([], []), true);
    assert.equal(sameChangeSet(a, a), true, 'the very same array');
  });

  it('notices a different kind, old path, binary flag or length', () => {
    assert.equal(sameChangeSet(a, [a[0], { ...a[1], kind: 'added' }]), false);
    assert.equal(sameChangeSet(a, [a[0], { ...a[1], oldPath: 'other.txt' }]), false);
    assert.equal(sameChangeSet(a, [{ ...a[0], binary: true }, a[1]]), false);
    assert.equal(sameChangeSet(a, [a[0]]), false);
  });

  it('notices a file of another path in the same place, the same kind and counts', () => {
    assert.equal(sameChangeSet(a, [{ ...a[0], path: 'c.txt' }, a[1]]), false);
    assert.equal(sameChangeSet(a, [a[0], { ...a[1], path: 'c.txt' }]), false);
  });

  it('notices new line counts, and counts where there were none', () => {
    const counted = [{ ...a[0], added: 2, removed: 1 }, a[1]];
    assert.equal(sameChangeSet(a, counted), false);
    assert.equal(sameChangeSet(counted, [{ ...a[0], added: 2, removed: 3 }, a[1]]), false);
    assert.equal(sameChangeSet(counted, [{ ...a[0], added: 3, removed: 1 }, a[1]]), false);
    assert.equal(sameChangeSet(counted, [{ ...a[0], added: 2, removed: 1 }, a[1]]), true);
  });
});

describe('changeStats', () => {
  it('adds up files and lines; a binary file is a file with no lines', () => {
    assert.deepEqual(
      changeStats([
        { path: 'a.ts', kind: 'modified', binary: false, added: 10, removed: 4 },
        { path: 'b.ts', kind: 'untracked', binary: false, added: 3, removed: 0 },
        { path: 'logo.png', kind: 'added', binary: true },
        { path: 'gone.txt', kind: 'deleted', binary: false, added: 0, removed: 7 },
      ]),
      { files: 4, added: 13, removed: 11, uncounted: 0 },
    );
    assert.deepEqual(changeStats([]), { files: 0, added: 0, removed: 0, uncounted: 0 });
  });

  it('counts the text files without counts (a record from before they were kept) as uncounted', () => {
    assert.deepEqual(
      changeStats([
        { path: 'a.ts', kind: 'modified', binary: false },
        { path: 'b.ts', kind: 'modified', binary: false, added: 1, removed: 1 },
        { path: 'c.bin', kind: 'modified', binary: true },
      ]),
      { files: 3, added: 1, removed: 1, uncounted: 1 },
    );
  });

  it('takes a text file with only one of its two counts for uncounted, adding neither', () => {
    assert.deepEqual(
      changeStats([
        { path: 'a.ts', kind: 'modified', binary: false, added: 4 },
        { path: 'b.ts', kind: 'modified', binary: false, removed: 6 },
        { path: 'c.ts', kind: 'modified', binary: false, added: 2, removed: 1 },
      ]),
      { files: 3, added: 2, removed: 1, uncounted: 2 },
    );
  });
});

describe('parseWorktreeList', () => {
  it('parses main, linked, detached, locked and prunable worktrees', () => {
    const sha = 'b685c23431a523d1e559027c303b7447d445f0b7';
    const output =
      `worktree /repo\0HEAD ${sha}\0branch refs/heads/main\0\0` +
      `worktree /repo.worktrees/fix bug é\0HEAD ${sha}\0branch refs/heads/agents/fix-bug\0locked initializing\0\0` +
      `worktree /tmp/detached\0HEAD ${sha}\0detached\0prunable gitdir file points to non-existent location\0\0`;
    assert.deepEqual(parseWorktreeList(output), [
      { path: '/repo', head: sha, branch: 'refs/heads/main', bare: false, detached: false },
      {
        path: '/repo.worktrees/fix bug é',
        head: sha,
        branch: 'refs/heads/agents/fix-bug',
        bare: false,
        detached: false,
        locked: 'initializing',
      },
      {
        path: '/tmp/detached',
        head: sha,
        bare: false,
        detached: true,
        prunable: 'gitdir file points to non-existent location',
      },
    ]);
  });

  it('parses a bare main repository and an empty output', () => {
    assert.deepEqual(parseWorktreeList('worktree /srv/repo.git\0bare\0\0'), [
      { path: '/srv/repo.git', bare: true, detached: false },
    ]);
    assert.deepEqual(parseWorktreeList(''), []);
  });
});
