import * as assert from 'node:assert/strict';
import { conflictPrompt, conflictPromptBytes, markerExcerpt } from '../../src/core/landing/conflictPrompt';
import { resolveConflictBlocks } from '../../src/demoAgent/conflictMarkers';

const block = (ours: string, theirs: string) => ['<<<<<<< HEAD', ours, '=======', theirs, '>>>>>>> main'];

describe('conflict follow-up prompt', () => {
  it('keeps each conflict block with three lines around it, gaps marked', () => {
    const lines = ['l1', 'l2', 'l3', 'l4', 'l5', ...block('ours', 'theirs'), 'm1', 'm2', 'm3', 'm4', 'm5'];
    const text = `${[...lines, ...block('second ours', 'second theirs'), 'end'].join('\n')}\n`;
    assert.equal(
      markerExcerpt(text),
      [
        '…',
        'l3',
        'l4',
        'l5',
        ...block('ours', 'theirs'),
        'm1',
        'm2',
        'm3',
        // m4 and m5 are within three lines of the second block: one range.
        'm4',
        'm5',
        ...block('second ours', 'second theirs'),
        'end',
      ].join('\n'),
    );
    const far = [...block('a', 'b'), ...Array.from({ length: 10 }, (_, i) => `x${i}`), ...block('c', 'd')].join('\n');
    assert.equal(
      markerExcerpt(far),
      [...block('a', 'b'), 'x0', 'x1', 'x2', '…', 'x7', 'x8', 'x9', ...block('c', 'd')].join('\n'),
    );
    assert.equal(markerExcerpt('no markers\nat all\n'), '');
  });

  it('names the branches, fences each excerpt beyond any backticks in it, and adds the instructions last', () => {
    const text = ['```js', ...block('a()', 'b()'), '```', ''].join('\n');
    const prompt = conflictPrompt({
      branch: 'agents/b',
      target: 'main',
      files: [
        { path: 'README.md', text },
        { path: 'logo.png', text: undefined },
        { path: 'plain.txt', text: 'no markers\n' },
      ],
      instructions: '  keep both  ',
    });
    assert.match(prompt, /^The branch main was merged into your branch agents\/b in this folder/);
    assert.match(prompt, /conflicts in 3 file\(s\)/);
    assert.match(prompt, /File README\.md:\n````\n```js\n<<<<<<< HEAD\na\(\)\n=======\nb\(\)\n>>>>>>> main\n```\n````/);
    assert.match(prompt, /File logo\.png:\n\(binary, or deleted on one side/);
    assert.match(prompt, /File plain\.txt:\n\(no conflict markers in the file/);
    assert.ok(prompt.endsWith('\n\nkeep both'));
  });

  it('stays bounded: a huge conflict is cut at a line, and files past the budget are named only', () => {
    const huge = [...block('x'.repeat(100), 'y'.repeat(100)), ...Array.from({ length: 2000 }, () => 'z'.repeat(50))];
    const big = ['<<<<<<< HEAD', ...Array.from({ length: 2000 }, (_, i) => `ours ${i}`), '=======', 'b', '>>>>>>> m'];
    const files = [
      { path: 'big.txt', text: big.join('\n') },
      ...Array.from({ length: 60 }, (_, i) => ({ path: `f${i}.txt`, text: huge.join('\n') })),
    ];
    const prompt = conflictPrompt({ branch: 'agents/b', target: 'main', files });
    assert.ok(new TextEncoder().encode(prompt).length < conflictPromptBytes + 4096, `${prompt.length} bytes`);
    assert.match(prompt, /\n… \(cut: open the file for the rest\)\n```/);
    assert.match(prompt, /Also conflicted \(open them for their markers\): .*f59\.txt$/m);
    assert.ok(prompt.includes('File big.txt:'));
  });
});

describe("the demo agent's resolve step", () => {
  const text = ['top', ...block('ours 1', 'theirs 1'), 'middle', ...block('ours 2', 'theirs 2'), 'bottom', ''].join(
    '\n',
  );

  it('keeps ours, theirs or both (ours first) in every block', () => {
    assert.deepEqual(resolveConflictBlocks(text, 'ours'), {
      ok: true,
      text: 'top\nours 1\nmiddle\nours 2\nbottom\n',
      blocks: 2,
    });
    assert.deepEqual(resolveConflictBlocks(text, 'theirs'), {
      ok: true,
      text: 'top\ntheirs 1\nmiddle\ntheirs 2\nbottom\n',
      blocks: 2,
    });
    const both = resolveConflictBlocks(text, 'both');
    assert.equal(both.ok && both.text, 'top\nours 1\ntheirs 1\nmiddle\nours 2\ntheirs 2\nbottom\n');
  });

  it('drops the base part of a diff3 block', () => {
    const diff3 = ['<<<<<<< HEAD', 'o', '||||||| base', 'b', '=======', 't', '>>>>>>> main'].join('\n');
    assert.deepEqual(resolveConflictBlocks(diff3, 'both'), { ok: true, text: 'o\nt', blocks: 1 });
  });

  it('fails on a file without markers or with a block left open', () => {
    assert.deepEqual(resolveConflictBlocks('plain\n', 'ours'), {
      ok: false,
      message: 'no conflict markers in the file',
    });
    const open = resolveConflictBlocks('<<<<<<< HEAD\na\n=======\nb\n', 'ours');
    assert.ok(!open.ok && /line 1 is not closed/.test(open.message));
  });
});
