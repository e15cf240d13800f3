import * as assert from 'node:assert/strict';
import { isValidBranchPrefix, slugify, titleFromPrompt, uniqueSlug } from '../../src/core/naming';

describe('naming', () => {
  it('slugifies titles to lowercase ASCII safe for refs and paths', () => {
    assert.equal(slugify('Fix the Login Bug!'), 'fix-the-login-bug');
    assert.equal(slugify('Ünïcödé — café'), 'unicode-cafe');
    assert.equal(slugify('../../etc/passwd'), 'etc-passwd');
    assert.equal(slugify('feature/with/slashes'), 'feature-with-slashes');
    assert.equal(slugify('name.lock'), 'name-lock');
    assert.equal(slugify('🚀🚀'), 'agent');
    assert.equal(slugify('   '), 'agent');
    assert.equal(slugify('$(touch x); rm -rf ~'), 'touch-x-rm-rf');
  });

  it('caps slug length without a trailing dash', () => {
    const slug = slugify('a'.repeat(39) + ' bbbbbbbb');
    assert.ok(slug.length <= 40);
    assert.ok(!slug.endsWith('-'));
  });

  it('makes names unique with -2, -3, ...', () => {
    const taken = new Set(['task', 'task-2']);
    assert.equal(
      uniqueSlug('task', (s) => taken.has(s)),
      'task-3',
    );
    assert.equal(
      uniqueSlug('other', (s) => taken.has(s)),
      'other',
    );
  });

  it('takes the first non-empty line of a prompt as title', () => {
    assert.equal(titleFromPrompt('\n\n  Add tests  \nmore detail'), 'Add tests');
    assert.equal(titleFromPrompt('x'.repeat(100)).length, 60);
  });

  it('validates branch prefixes', () => {
    assert.ok(isValidBranchPrefix('agents'));
    assert.ok(isValidBranchPrefix('me/agents'));
    for (const bad of ['', 'a//b', '/a', 'a/', 'a..b', '.hidden', 'x.lock', 'has space', 'a~b']) {
      assert.equal(isValidBranchPrefix(bad), false, bad);
    }
  });
});
