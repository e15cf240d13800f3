// What a reviewer agent is given, line for line: the unified diff (hunks, their headers, context and
// grouping as git writes them), the prompt around it, and where its findings go.
import * as assert from 'node:assert/strict';
import {
  diffLines,
  type FileDiff,
  fileDiffText,
  placeFindings,
  reviewerPrompt,
  reviewRequestLine,
  splitLines,
} from '../../src/core/review';

function diffOf(path: string, kind: string, base: string, agent: string): FileDiff {
  const [b, a] = [splitLines(base), splitLines(agent)];
  return { path, kind, base: b, agent: a, changes: diffLines(b, a) };
}

const numbered = (n: number, label = 'l') => Array.from({ length: n }, (_, i) => `${label}${i + 1}\n`).join('');

describe('the diff a reviewer reads', () => {
  it('joins changes up to 6 lines apart into one hunk with 3 lines of context, and starts a new one beyond', () => {
    const agent = numbered(20).replace('l2\n', 'L2\n').replace('l9\n', 'L9\n').replace('l17\n', 'L17\n');
    assert.equal(
      fileDiffText(diffOf('f.txt', 'modified', numbered(20), agent)),
      [
        '--- a/f.txt',
        '+++ b/f.txt',
        '@@ -1,12 +1,12 @@',
        ' l1',
        '-l2',
        '+L2',
        ...[3, 4, 5, 6, 7, 8].map((i) => ` l${i}`),
        '-l9',
        '+L9',
        ' l10',
        ' l11',
        ' l12',
        '@@ -14,7 +14,7 @@',
        ' l14',
        ' l15',
        ' l16',
        '-l17',
        '+L17',
        ' l18',
        ' l19',
        ' l20',
      ].join('\n'),
    );
  });

  it('counts lines on each side, and writes an empty side as git does (start at the line before, count 0)', () => {
    assert.equal(
      fileDiffText(diffOf('n.txt', 'added', '', 'a\r\nb\r')),
      ['--- /dev/null', '+++ b/n.txt', '@@ -0,0 +1,2 @@', '+a', '+b'].join('\n'),
      'line breaks (CRLF, a lone CR) are not part of the lines shown',
    );
    assert.equal(
      fileDiffText(diffOf('d.txt', 'deleted', 'x\ny\n', '')),
      ['--- a/d.txt', '+++ /dev/null', '@@ -1,2 +0,0 @@', '-x', '-y'].join('\n'),
    );
    assert.equal(
      fileDiffText(diffOf('i.txt', 'modified', numbered(8), numbered(8).replace('l5\n', 'l5\nnew\n'))),
      ['--- a/i.txt', '+++ b/i.txt', '@@ -3,6 +3,7 @@', ' l3', ' l4', ' l5', '+new', ' l6', ' l7', ' l8'].join('\n'),
    );
    assert.equal(
      fileDiffText(diffOf('u.txt', 'untracked', 'a\n', 'a\nb\n')),
      ['--- /dev/null', '+++ b/u.txt', '@@ -1,1 +1,2 @@', ' a', '+b'].join('\n'),
    );
    assert.equal(
      fileDiffText(diffOf('r.txt', 'modified', numbered(10), numbered(10).replace('l7\n', ''))),
      ['--- a/r.txt', '+++ b/r.txt', '@@ -4,7 +4,6 @@', ' l4', ' l5', ' l6', '-l7', ' l8', ' l9', ' l10'].join('\n'),
    );
  });

  it('joins lines added at the very end to a change up to 6 lines above, as git does', () => {
    const agent = `${numbered(10).replace('l4\n', 'L4\n')}end\n`;
    assert.equal(
      fileDiffText(diffOf('e.txt', 'modified', numbered(10), agent)),
      ['--- a/e.txt', '+++ b/e.txt', '@@ -1,10 +1,11 @@', ' l1', ' l2', ' l3', '-l4', '+L4']
        .concat(
          [5, 6, 7, 8, 9, 10].map((i) => ` l${i}`),
          ['+end'],
        )
        .join('\n'),
    );
  });
});

describe('the prompt of a reviewer', () => {
  it('holds the request line, the task and the diff in fences no line inside can close, the focus and the format', () => {
    const prompt = reviewerPrompt({ task: 'do it ````x````', diff: '+a', focus: '  the loop \n' });
    assert.equal(
      prompt,
      [
        reviewRequestLine,
        'Another agent was given this task:',
        '`````text',
        'do it ````x````',
        '`````',
        "Its changes against the commit it started from (a unified diff; '+' lines are its new lines):",
        '```diff',
        '+a',
        '```',
        'What the person asked you to look at:',
        'the loop',
        'Review these changes: bugs, missing cases, unclear code. You are read-only: change no file, run no command that writes.',
        'Answer with one line per finding, exactly in this form, the line number being the line in the NEW version of the file:',
        'FINDING <path>:<line>: <what to change there>',
        '(or FINDING <path>:<first line>-<last line>: <what to change> for several lines).',
        'When you find nothing worth a comment, answer with the single line NO FINDINGS',
      ].join('\n'),
    );
    for (const focus of [undefined, '', '  \n ']) {
      const without = reviewerPrompt({ task: 't', diff: 'd', ...(focus === undefined ? {} : { focus }) });
      assert.ok(!without.includes('What the person asked'), JSON.stringify(focus));
      assert.ok(without.includes('```text\nt\n```\n'), without);
      const focused = reviewerPrompt({ task: 't', diff: 'd', focus: 'f' });
      assert.equal(without, focused.replace('What the person asked you to look at:\nf\n', ''), 'nothing in its place');
    }
  });
});

describe('where a reviewer’s findings go', () => {
  it('keeps a finding on line 1 of an empty file, and makes one past a file’s end general', () => {
    const counts = new Map([
      ['z.txt', 3],
      ['empty.txt', 0],
    ]);
    assert.deepEqual(
      placeFindings(
        [
          { path: 'empty.txt', startLine: 1, endLine: 1, text: 'a' },
          { path: 'empty.txt', startLine: 1, endLine: 2, text: 'b' },
          { path: 'z.txt', startLine: 3, endLine: 3, text: 'c' },
          { path: 'z.txt', startLine: 3, endLine: 4, text: 'd' },
        ],
        counts,
      ),
      [
        { general: false, path: 'empty.txt', startLine: 1, endLine: 1, body: 'a' },
        { general: true, path: 'empty.txt', body: 'empty.txt:1-2: b' },
        { general: false, path: 'z.txt', startLine: 3, endLine: 3, body: 'c' },
        { general: true, path: 'z.txt', body: 'z.txt:3-4: d' },
      ],
    );
  });

  it('reads a/ and b/ prefixes only when the rest names a file, and puts an unknown file on the first by name', () => {
    const counts = new Map([
      ['z.txt', 3],
      ['m.txt', 3],
      ['a/real.txt', 3],
    ]);
    assert.deepEqual(
      placeFindings(
        [
          { path: 'a/z.txt', startLine: 1, endLine: 1, text: 'a' },
          { path: 'a/real.txt', startLine: 2, endLine: 2, text: 'kept whole' },
          { path: 'c/z.txt', startLine: 1, endLine: 1, text: 'c' },
          { path: 'b/ghost.txt', startLine: 5, endLine: 5, text: 'g' },
          { path: 'xa/z.txt', startLine: 1, endLine: 1, text: 'x' },
          { path: 'xxa/real.txt', startLine: 1, endLine: 1, text: 'not a prefix' },
        ],
        counts,
      ),
      [
        { general: false, path: 'z.txt', startLine: 1, endLine: 1, body: 'a' },
        { general: false, path: 'a/real.txt', startLine: 2, endLine: 2, body: 'kept whole' },
        { general: true, path: 'a/real.txt', body: 'c/z.txt:1: c' },
        { general: true, path: 'a/real.txt', body: 'b/ghost.txt:5: g' },
        { general: true, path: 'a/real.txt', body: 'xa/z.txt:1: x' },
        { general: true, path: 'a/real.txt', body: 'xxa/real.txt:1: not a prefix' },
      ],
    );
  });
});
