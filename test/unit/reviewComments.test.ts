import * as assert from 'node:assert/strict';
import type { ReviewComment } from '../../src/core/agent';
import {
  awaitingCheck,
  linesChanged,
  linesOf,
  pendingComments,
  quoteLines,
  reviewPrompt,
} from '../../src/core/review/reviewComments';
import { parsePrompt } from '../../src/demoAgent/language';

describe('review comments: the prompt', () => {
  const prompt = reviewPrompt([
    { path: 'src/b.ts', startLine: 3, endLine: 4, lines: ['let b = 1;', 'let c = 2;'], body: 'Use const here.' },
    { path: 'a.txt', startLine: 2, endLine: 2, lines: ['two'], body: 'replace a.txt: two => TWO\nand say why' },
  ]);

  it('holds every comment once, in file and line order, with its file, 1-based lines, quoted lines and text', () => {
    assert.equal(
      prompt,
      [
        'Review of your changes (2 comments). For each file and line range below, the lines as they are now, then what to do there:',
        '1. a.txt, line 2:\n   > two\n   replace a.txt: two => TWO\n   and say why',
        '2. src/b.ts, lines 3-4:\n   > let b = 1;\n   > let c = 2;\n   Use const here.',
      ].join('\n\n'),
    );
  });

  it('says when the commented lines are no longer in the file, and counts one comment as one', () => {
    const one = reviewPrompt([{ path: 'a.txt', startLine: 9, endLine: 9, lines: [], body: 'x' }]);
    assert.match(one, /^Review of your changes \(1 comment\)\./);
    assert.match(one, /1\. a\.txt, line 9:\n {3}\(these lines are no longer in the file\)\n {3}x$/);
  });

  it('keeps quoted lines from reading as demo-agent commands, while a comment line still is one', () => {
    const quoted = reviewPrompt([
      { path: 'a.txt', startLine: 1, endLine: 1, lines: ['delete a.txt'], body: 'append a.txt: more' },
    ]);
    const commands = parsePrompt(quoted).filter((s) => s.kind !== 'ignored');
    assert.deepEqual(
      commands.map((s) => s.kind),
      ['append'],
    );
  });
});

describe('review comments: lines and "addressed"', () => {
  it('numbers lines as an editor does and quotes a 1-based inclusive range', () => {
    assert.deepEqual(linesOf('a\r\nb\nc'), ['a', 'b', 'c']);
    assert.deepEqual(linesOf('a\n\nb\n'), ['a', '', 'b']);
    assert.deepEqual(linesOf('a\rb'), ['a', 'b']);
    assert.deepEqual(linesOf(''), []);
    assert.deepEqual(quoteLines(['1', '2', '3', '4'], 2, 3), ['2', '3']);
    assert.deepEqual(quoteLines(['1', '2'], 2, 5), ['2']);
    assert.deepEqual(quoteLines(['1'], 3, 4), []);
  });

  it('counts the quoted lines as unchanged where they were, or moved by a few lines', () => {
    const quoted = ['b', 'c'];
    assert.equal(linesChanged(quoted, ['a', 'b', 'c', 'd'], 2), false);
    assert.equal(linesChanged(quoted, ['new', 'new', 'a', 'b', 'c', 'd'], 2), false, 'moved down by 2');
    assert.equal(linesChanged(quoted, ['b', 'c', 'd'], 2), false, 'moved up by 1');
  });

  it('counts them changed when edited, reordered, moved far, or the file is gone', () => {
    const quoted = ['b', 'c'];
    assert.equal(linesChanged(quoted, ['a', 'B', 'c', 'd'], 2), true);
    assert.equal(linesChanged(quoted, ['a', 'c', 'b', 'd'], 2), true);
    assert.equal(linesChanged(quoted, ['a', 'b'], 2), true, 'only part is left');
    assert.equal(linesChanged(quoted, [...Array<string>(30).fill('x'), 'b', 'c'], 2, 20), true, 'moved 29 lines');
    assert.equal(linesChanged(quoted, [...Array<string>(30).fill('x'), 'b', 'c'], 2, 40), false);
    assert.equal(linesChanged(quoted, undefined, 2), true);
  });

  it('tells pending comments from sent ones, and which sent ones a run that ended later may have addressed', () => {
    const base = { path: 'a', startLine: 1, endLine: 1, quoted: ['x'], body: 'b', createdAt: 1 };
    const comments: ReviewComment[] = [
      { ...base, id: 'pending' },
      { ...base, id: 'sent', sentAt: 100 },
      { ...base, id: 'done', sentAt: 100, addressed: true },
      { ...base, id: 'later', sentAt: 300 },
    ];
    assert.deepEqual(
      pendingComments(comments).map((c) => c.id),
      ['pending'],
    );
    assert.deepEqual(
      awaitingCheck(comments, 200).map((c) => c.id),
      ['sent'],
    );
    assert.deepEqual(pendingComments(undefined), []);
  });
});

describe('review comments: order, text and boundaries', () => {
  it('breaks a text at a bare LF as at CRLF, indenting each line', () => {
    const prompt = reviewPrompt([{ path: 'a.txt', startLine: 1, endLine: 1, lines: ['one'], body: 'first\nsecond' }]);
    assert.equal(prompt.split('\n\n')[1], '1. a.txt, line 1:\n   > one\n   first\n   second');
  });

  it('orders by file then first line, numbers general comments too, and trims and indents every line of a text', () => {
    const prompt = reviewPrompt([
      { path: 'b.txt', startLine: 9, endLine: 9, lines: ['nine'], body: 'B9' },
      { path: 'a.txt', startLine: 5, endLine: 5, lines: ['five'], body: 'A5' },
      { path: 'b.txt', startLine: 2, endLine: 2, lines: ['two'], body: '  B2 first\r\n  then this  \n' },
      { path: 'a.txt', startLine: 1, endLine: 1, lines: [], body: 'overall', general: true },
    ]);
    assert.equal(
      prompt.split('\n\n').slice(1).join('\n\n'),
      [
        '1. General comment:\n   overall',
        '2. a.txt, line 5:\n   > five\n   A5',
        '3. b.txt, line 2:\n   > two\n   B2 first\n     then this',
        '4. b.txt, line 9:\n   > nine\n   B9',
      ].join('\n\n'),
    );
  });

  it('finds quoted lines only within `near` lines, counting from the line they were on', () => {
    assert.equal(linesChanged(['b'], ['a', 'b'], 2, 0), false);
    assert.equal(linesChanged(['b'], ['a', 'x', 'b'], 2, 0), true);
    assert.equal(linesChanged(['b'], ['a', 'x', 'b'], 2, 1), false);
    assert.equal(linesChanged(['a'], ['a'], 1, 0), false);
  });

  it('never counts a comment that quotes nothing as addressed while its file is there', () => {
    assert.equal(linesChanged([], ['a'], 100), false);
    assert.equal(linesChanged([], [], 1), false);
  });

  it('checks a comment sent at the very time the run ended, and none of no comments', () => {
    const sent: ReviewComment = {
      id: 's',
      path: 'a',
      startLine: 1,
      endLine: 1,
      quoted: [],
      body: 'b',
      createdAt: 1,
      sentAt: 200,
    };
    assert.deepEqual(
      awaitingCheck([sent], 200).map((c) => c.id),
      ['s'],
    );
    assert.deepEqual(awaitingCheck([sent], 199), []);
    assert.deepEqual(awaitingCheck(undefined, 200), []);
  });
});
