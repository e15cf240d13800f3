import * as assert from 'node:assert/strict';
import {
  diffLines,
  fileDiffText,
  placeFindings,
  readFindings,
  reviewerPrompt,
  splitLines,
} from '../../src/core/review';
import { reviewAnswer, todoFindings } from '../../src/demoAgent/reviewer';

describe('reviewer findings', () => {
  it('reads FINDING lines among prose, markdown decoration and progress output, each once', () => {
    const output = [
      '──── review by claude',
      'I looked at the diff. Here is what I found:',
      '',
      '- FINDING src/calc.js:2: `b` should be const',
      '  2. **FINDING** `src/calc.js:4-6`: the loop never ends',
      'FINDING ./notes.txt:1 — typo in the heading',
      'FINDING src\\win.ts:3: backslashes become slashes',
      'FINDING src/calc.js:2: `b` should be const',
      'FINDING <path>:<line>: <what to change there>',
      'FINDING src/calc.js:0: line zero is no line',
      'Done.',
    ].join('\n');
    const answer = readFindings(output);
    assert.deepEqual(answer.findings, [
      { path: 'src/calc.js', startLine: 2, endLine: 2, text: '`b` should be const' },
      { path: 'src/calc.js', startLine: 4, endLine: 6, text: 'the loop never ends' },
      { path: 'notes.txt', startLine: 1, endLine: 1, text: 'typo in the heading' },
      { path: 'src/win.ts', startLine: 3, endLine: 3, text: 'backslashes become slashes' },
    ]);
    assert.equal(answer.nothingFound, false);
  });

  it('reads findings from JSON event lines (stream-json), where the answer is a string with \\n in it', () => {
    const result = 'Two things:\nFINDING a.ts:10: handle null\nFINDING b.ts:3-4: rename x';
    const output = [
      JSON.stringify({ type: 'system', subtype: 'init', cwd: '/wt' }),
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: result }] } }),
      JSON.stringify({ type: 'result', subtype: 'success', result, total_cost_usd: 0.01 }),
      '{not json at all FINDING broken.ts:1: kept? no',
    ].join('\n');
    const answer = readFindings(output);
    assert.deepEqual(
      answer.findings.map((f) => `${f.path}:${f.startLine}-${f.endLine} ${f.text}`),
      ['a.ts:10-10 handle null', 'b.ts:3-4 rename x'],
    );
  });

  it('tells "nothing found" (NO FINDINGS) from an output it cannot read', () => {
    assert.deepEqual(readFindings('[demo] reviewing\nNO FINDINGS\n'), { findings: [], nothingFound: true });
    assert.deepEqual(readFindings('**NO FINDINGS**.'), { findings: [], nothingFound: true });
    assert.deepEqual(readFindings('Looks good to me!\nexit 0'), { findings: [], nothingFound: false });
    assert.deepEqual(readFindings(''), { findings: [], nothingFound: false });
    const prompt = 'When you find nothing worth a comment, answer with the single line NO FINDINGS';
    assert.equal(readFindings(prompt).nothingFound, false, 'the prompt echoed is not an answer');
    assert.equal(readFindings('NO FINDINGS\nFINDING a:1: x').nothingFound, false);
  });

  it('places findings on lines of changed files; a missing file or line becomes a general comment', () => {
    const counts = new Map([
      ['src/calc.js', 3],
      ['notes.txt', 2],
    ]);
    const placed = placeFindings(
      [
        { path: 'src/calc.js', startLine: 2, endLine: 3, text: 'a' },
        { path: 'b/notes.txt', startLine: 1, endLine: 1, text: 'b' },
        { path: 'notes.txt', startLine: 9, endLine: 9, text: 'c' },
        { path: 'ghost.txt', startLine: 1, endLine: 2, text: 'd' },
      ],
      counts,
    );
    assert.deepEqual(placed, [
      { general: false, path: 'src/calc.js', startLine: 2, endLine: 3, body: 'a' },
      { general: false, path: 'notes.txt', startLine: 1, endLine: 1, body: 'b' },
      { general: true, path: 'notes.txt', body: 'notes.txt:9: c' },
      { general: true, path: 'notes.txt', body: 'ghost.txt:1-2: d' },
    ]);
  });

  it('writes a unified diff the demo reviewer reads back: a TODO on new line 3 is a finding there', () => {
    const base = splitLines('one\ntwo\nthree\nfour\n');
    const agent = splitLines('one\ntwo\nTODO fix\nthree\nfour\n');
    const text = fileDiffText({ path: 'src/a.txt', kind: 'modified', base, agent, changes: diffLines(base, agent) });
    assert.equal(
      text,
      ['--- a/src/a.txt', '+++ b/src/a.txt', '@@ -1,4 +1,5 @@', ' one', ' two', '+TODO fix', ' three', ' four'].join(
        '\n',
      ),
    );
    const added = fileDiffText({ path: 'n.txt', kind: 'untracked', base: [], agent: splitLines('x\n'), changes: [] });
    assert.equal(added, '--- /dev/null\n+++ b/n.txt');
    const prompt = reviewerPrompt({ task: 'create x: ```y```', diff: `${text}\n+\`\`\`\`\``, focus: 'look' });
    assert.ok(prompt.includes('``````diff\n--- a/src/a.txt'), 'the fence is longer than any run inside');
    assert.deepEqual(todoFindings(prompt), ['FINDING src/a.txt:3: replace src/a.txt: TODO => DONE']);
    assert.deepEqual(reviewAnswer(prompt, false), ['FINDING src/a.txt:3: replace src/a.txt: TODO => DONE']);
    const clean = reviewerPrompt({ task: 't', diff: '--- a/a\n+++ b/a\n@@ -1,1 +1,1 @@\n-x\n+y' });
    assert.deepEqual(reviewAnswer(clean, false), ['NO FINDINGS']);
    assert.deepEqual(reviewAnswer(clean, true), []);
  });
});

describe('reviewer findings: the forms a finding line takes', () => {
  const one = (line: string) => readFindings(line).findings;

  it('reads list markers, quotes, emphasis and code around the keyword, the place and the text', () => {
    for (const line of [
      'FINDING a.ts:3: fix',
      '• FINDING a.ts:3: fix',
      '> FINDING a.ts:3: fix',
      '1) FINDING a.ts:3: fix',
      '* - FINDING a.ts:3: fix',
      '__FINDING__ a.ts:3: fix',
      '`FINDING` `a.ts:3`: fix',
      'FINDING: a.ts:3: fix',
      '**FINDING** a.ts:3 – fix',
      'FINDING a.ts:3 - fix**',
      'FINDING a.ts:3: fix __',
      '  FINDING ././a.ts:3:   fix  ',
    ]) {
      assert.deepEqual(one(line), [{ path: 'a.ts', startLine: 3, endLine: 3, text: 'fix' }], line);
    }
    assert.deepEqual(one('FINDING a.ts:7 – 5: reversed'), [
      { path: 'a.ts', startLine: 5, endLine: 7, text: 'reversed' },
    ]);
    assert.deepEqual(one('FINDING a.ts:5–7: en dash'), [{ path: 'a.ts', startLine: 5, endLine: 7, text: 'en dash' }]);
    assert.deepEqual(one('FINDING x/./a.ts:1: y'), [{ path: 'x/./a.ts', startLine: 1, endLine: 1, text: 'y' }]);
    assert.deepEqual(one('FINDING a\\b\\c.ts:1: y'), [{ path: 'a/b/c.ts', startLine: 1, endLine: 1, text: 'y' }]);
  });

  it('reads no finding from a line without a place, a line number or a text, or with the keyword inside prose', () => {
    for (const line of [
      'FINDING a.ts: no line',
      'FINDING a.ts:x: no number',
      'FINDING a.ts:3:',
      'FINDING a.ts:3:   ',
      'FINDING a.ts:3 -\t ',
      'FINDING a.ts:3: **',
      'FINDING a.ts:3: __',
      'I have a FINDING a.ts:3: inside prose',
      'FINDINGS a.ts:3: plural',
      'FINDING a.ts:3 fix without a colon',
    ]) {
      assert.deepEqual(one(line), [], line);
    }
  });

  it('keeps emphasis inside the text, and reads no finding whose place is only ./', () => {
    assert.deepEqual(one('FINDING a.ts:1: use **const** here'), [
      { path: 'a.ts', startLine: 1, endLine: 1, text: 'use **const** here' },
    ]);
    assert.deepEqual(one('FINDING a.ts:1: __init__ is wrong__'), [
      { path: 'a.ts', startLine: 1, endLine: 1, text: '__init__ is wrong' },
    ]);
    assert.deepEqual(one('FINDING ./:1: no file'), []);
    assert.deepEqual(one('FINDING ././:2: no file'), []);
  });

  it('reads a line as JSON only when it is an object or an array, not a bare JSON string', () => {
    assert.deepEqual(one('"FINDING q.ts:1: quoted"'), []);
    assert.deepEqual(one('"NO FINDINGS"'), []);
    assert.equal(readFindings('"NO FINDINGS"').nothingFound, false);
    assert.deepEqual(one(' {"t": "FINDING q.ts:1: in an object"} '), [
      { path: 'q.ts', startLine: 1, endLine: 1, text: 'in an object' },
    ]);
  });

  it('keeps two findings on one place with different texts, and reads CRLF output', () => {
    assert.deepEqual(
      readFindings('FINDING a.ts:1: one\r\nFINDING a.ts:1: two\r\nFINDING a.ts:1-1: one\r\n').findings.map(
        (f) => f.text,
      ),
      ['one', 'two'],
    );
  });

  it('reads NO FINDINGS decorated, and not when other words share its line', () => {
    for (const line of ['NO FINDINGS', '- NO FINDINGS.', '`NO FINDINGS`', '__NO FINDINGS__', '  NO FINDINGS  ']) {
      assert.equal(readFindings(line).nothingFound, true, line);
    }
    for (const line of ['NO FINDINGS here', 'There are NO FINDINGS', 'NO FINDINGS..']) {
      assert.equal(readFindings(line).nothingFound, false, line);
    }
  });

  it('reads strings in JSON arrays and objects up to 12 levels deep, one per line of output', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 'FINDING deep.ts:1: found' : { next: nest(depth - 1) });
    assert.equal(readFindings(JSON.stringify(nest(12))).findings.length, 1);
    assert.equal(readFindings(JSON.stringify(nest(13))).findings.length, 0, 'deeper is not read');
    assert.equal(readFindings(`  ${JSON.stringify(['x', ['FINDING arr.ts:2: in an array']])}`).findings.length, 1);
    assert.equal(readFindings(JSON.stringify({ n: 5, b: true, z: null, t: 'NO FINDINGS' })).nothingFound, true);
    assert.equal(readFindings('{"a": "FINDING j.ts:1: x\\r\\nFINDING j.ts:2: y"}').findings.length, 2);
  });
});
