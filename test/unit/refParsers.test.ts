import * as assert from 'node:assert/strict';
import { isFullSha, parseBranchNames, parseRefs, parseSymbolicHead } from '../../src/node/git/refParsers';
import { parseCommitTime } from '../../src/node/git/snapshotParsers';

const sha1 = 'a'.repeat(40);
const sha2 = 'b'.repeat(40);

describe('refParsers', () => {
  it('reads for-each-ref lines: name, tip and first parent', () => {
    const output = `refs/heads/main\0${sha1}\0${sha2} ${'c'.repeat(40)}\nrefs/heads/root\0${sha2}\0\n`;
    assert.deepEqual(parseRefs(output), [
      { name: 'refs/heads/main', sha: sha1, parent: sha2 },
      { name: 'refs/heads/root', sha: sha2 },
    ]);
    assert.deepEqual(parseRefs(''), []);
  });

  it('takes the short names of local branches only', () => {
    const output = 'refs/heads/main\nrefs/heads/agents/fix-bug\nrefs/tags/v1\n';
    assert.deepEqual([...parseBranchNames(output)], ['main', 'agents/fix-bug']);
    assert.equal(parseBranchNames('').size, 0);
  });

  it('reads the branch HEAD names, and nothing for a ref outside refs/heads/', () => {
    assert.equal(parseSymbolicHead('refs/heads/agents/x\n'), 'agents/x');
    assert.equal(parseSymbolicHead('refs/remotes/origin/main\n'), undefined);
    assert.equal(parseSymbolicHead(''), undefined);
  });

  it('tells a full sha-1 or sha-256 from an abbreviation or a name', () => {
    assert.ok(isFullSha(sha1));
    assert.ok(isFullSha('F'.repeat(64)));
    assert.ok(!isFullSha('a'.repeat(39)));
    assert.ok(!isFullSha('main'));
    assert.ok(!isFullSha(`${sha1}\n`));
  });
});

describe('snapshotParsers', () => {
  it('reads a commit time in seconds as milliseconds', () => {
    assert.equal(parseCommitTime('1700000000\n'), 1_700_000_000_000);
  });
});
