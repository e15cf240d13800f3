import * as assert from 'node:assert/strict';
import {
  checkRelativePath,
  describeStep,
  isCommand,
  parsePrompt,
  unescapeText,
  type DemoStep,
} from '../../src/demoAgent/language';

function one(line: string): DemoStep {
  const steps = parsePrompt(line);
  assert.equal(steps.length, 1, `expected one step from ${JSON.stringify(line)}`);
  return steps[0];
}

describe('demo agent language', () => {
  describe('commands', () => {
    it('create with text, without text, and with a colon in the text', () => {
      assert.deepEqual(one('create src/a.txt: hello world'), {
        kind: 'create',
        path: 'src/a.txt',
        text: 'hello world',
        line: 1,
      });
      assert.deepEqual(one('create empty.txt'), { kind: 'create', path: 'empty.txt', text: '', line: 1 });
      assert.deepEqual(one('create a.txt:'), { kind: 'create', path: 'a.txt', text: '', line: 1 });
      assert.deepEqual(one('create a.txt: key: value'), { kind: 'create', path: 'a.txt', text: 'key: value', line: 1 });
    });

    it('append', () => {
      assert.deepEqual(one('append notes.md: more\\n'), { kind: 'append', path: 'notes.md', text: 'more\n', line: 1 });
    });

    it('replace with old => new, where the new text may be empty or contain =>', () => {
      assert.deepEqual(one('replace src/a.ts: foo => bar'), {
        kind: 'replace',
        path: 'src/a.ts',
        oldText: 'foo',
        newText: 'bar',
        line: 1,
      });
      assert.deepEqual(one('replace a.ts: x => '), {
        kind: 'replace',
        path: 'a.ts',
        oldText: 'x',
        newText: '',
        line: 1,
      });
      assert.deepEqual(one('replace a.ts: a => b => c'), {
        kind: 'replace',
        path: 'a.ts',
        oldText: 'a',
        newText: 'b => c',
        line: 1,
      });
    });

    it('replace without text to find is an error step', () => {
      const step = one('replace a.ts: => b');
      assert.equal(step.kind, 'error');
    });

    it('delete, rename, mkdir', () => {
      assert.deepEqual(one('delete old/file.txt'), { kind: 'delete', path: 'old/file.txt', line: 1 });
      assert.deepEqual(one('rename a.txt -> dir/b.txt'), { kind: 'rename', from: 'a.txt', to: 'dir/b.txt', line: 1 });
      assert.deepEqual(one('mkdir build/out'), { kind: 'mkdir', path: 'build/out', line: 1 });
    });

    it('sleep takes whole and fractional seconds', () => {
      assert.deepEqual(one('sleep 2'), { kind: 'sleep', seconds: 2, line: 1 });
      assert.deepEqual(one('sleep 0.25'), { kind: 'sleep', seconds: 0.25, line: 1 });
      assert.deepEqual(one('sleep .5'), { kind: 'sleep', seconds: 0.5, line: 1 });
    });

    it('exit takes a code from 0 to 255', () => {
      assert.deepEqual(one('exit 3'), { kind: 'exit', code: 3, line: 1 });
      assert.deepEqual(one('exit 0'), { kind: 'exit', code: 0, line: 1 });
      assert.equal(one('exit 256').kind, 'error');
      assert.equal(one('exit -1').kind, 'error');
    });

    it('print', () => {
      assert.deepEqual(one('print hello\\tthere'), { kind: 'print', text: 'hello\tthere', line: 1 });
      assert.deepEqual(one('print'), { kind: 'print', text: '', line: 1 });
    });
  });

  describe('prose', () => {
    it('lines that are not commands are ignored steps with a note; blank lines are skipped', () => {
      const steps = parsePrompt('Please fix the login bug.\n\n   \nCreate a new file for me\ncreate a.txt: ok');
      assert.deepEqual(
        steps.map((s) => s.kind),
        ['ignored', 'ignored', 'create'],
      );
      const first = steps[0];
      assert.ok(first.kind === 'ignored' && first.note.length > 0 && first.text === 'Please fix the login bug.');
      assert.equal(steps[1].line, 4);
      assert.equal(steps[2].line, 5);
    });

    it('keywords followed by prose stay prose', () => {
      for (const line of [
        'create a new file called foo',
        'sleep well',
        'exit now',
        'rename the function',
        'Delete x',
        'mkdir two dirs',
      ]) {
        assert.equal(one(line).kind, 'ignored', line);
      }
    });

    it('isCommand is false only for ignored steps', () => {
      assert.equal(isCommand(one('just words')), false);
      assert.equal(isCommand(one('print x')), true);
      assert.equal(isCommand(one('delete /etc/passwd')), true);
    });

    it('handles CRLF and surrounding spaces', () => {
      assert.deepEqual(
        parsePrompt('  create a.txt: x  \r\nexit 4\r\n').map((s) => s.kind),
        ['create', 'exit'],
      );
    });
  });

  describe('escapes', () => {
    it('\\n, \\t and \\\\ are decoded; other backslashes stay', () => {
      assert.equal(unescapeText('a\\nb'), 'a\nb');
      assert.equal(unescapeText('a\\tb'), 'a\tb');
      assert.equal(unescapeText('literal \\\\n'), 'literal \\n');
      assert.equal(unescapeText('C:\\path\\x'), 'C:\\path\\x');
      assert.deepEqual(one('create a.txt: line1\\nline2\\n'), {
        kind: 'create',
        path: 'a.txt',
        text: 'line1\nline2\n',
        line: 1,
      });
    });
  });

  describe('paths', () => {
    it('normalises relative paths', () => {
      assert.deepEqual(checkRelativePath('./src//a.txt'), { ok: true, path: 'src/a.txt' });
      assert.deepEqual(checkRelativePath('src\\win\\a.txt'), { ok: true, path: 'src/win/a.txt' });
      assert.deepEqual(checkRelativePath('a/../b.txt'), { ok: true, path: 'b.txt' });
    });

    it('rejects absolute paths, escapes, the folder itself and .git', () => {
      for (const bad of [
        '/etc/passwd',
        '\\x',
        'C:/x',
        'c:x',
        '~/x',
        '..',
        '../x',
        'a/../../x',
        '.',
        './',
        '.git/config',
        '.GIT/hooks/pre-commit',
        'a/..',
      ]) {
        const result = checkRelativePath(bad);
        assert.equal(result.ok, false, bad);
      }
    });

    it('a command with a bad path becomes an error step that says why', () => {
      for (const line of [
        'create ../outside.txt: x',
        'append /tmp/x: y',
        'replace ../a: b => c',
        'delete ../../etc',
        'mkdir /abs',
        'rename a.txt -> ../b.txt',
        'rename ../a -> b',
      ]) {
        const step = one(line);
        assert.equal(step.kind, 'error', line);
        assert.ok(
          step.kind === 'error' && /line 1: path ".*" (must be relative|leaves)/.test(step.message),
          step.kind === 'error' ? step.message : '',
        );
      }
    });
  });

  describe('resolve and quoted text', () => {
    it('resolve <path>: keep ours|theirs|both; anything else after it is prose', () => {
      assert.deepEqual(one('resolve src/a.js: keep both'), {
        kind: 'resolve',
        path: 'src/a.js',
        keep: 'both',
        line: 1,
      });
      assert.deepEqual(one('resolve a.js:keep theirs'), { kind: 'resolve', path: 'a.js', keep: 'theirs', line: 1 });
      assert.equal(one('resolve a.js: keep mine').kind, 'ignored');
      assert.equal(one('resolve the conflicts please').kind, 'ignored');
      assert.equal(one('resolve ../a.js: keep ours').kind, 'error');
      assert.equal(describeStep(one('resolve a.js: keep ours')), 'resolve a.js (keep ours)');
    });

    it('runs no line inside a code fence, up to a closing fence at least as long', () => {
      const steps = parsePrompt(
        ['print before', '````', 'delete app.js', '```', 'create x: y', '````', 'print after'].join('\n'),
      );
      assert.deepEqual(
        steps.map((s) => s.kind),
        ['print', 'ignored', 'ignored', 'ignored', 'ignored', 'ignored', 'print'],
      );
      assert.ok(steps.slice(1, 6).every((s) => s.kind === 'ignored' && /code fence/.test(s.note)));
      // An unclosed fence quotes everything after it.
      assert.deepEqual(
        parsePrompt('```\ndelete app.js').map((s) => s.kind),
        ['ignored', 'ignored'],
      );
    });
  });

  it('describeStep gives one short progress line', () => {
    assert.equal(describeStep(one('create src/a.txt: x')), 'create src/a.txt');
    assert.equal(describeStep(one('rename a -> b')), 'rename a -> b');
    assert.equal(describeStep(one('sleep 1.5')), 'sleep 1.5');
    assert.match(describeStep(one('x'.repeat(200))), /^ignored line 1: x+…$/);
  });
});
