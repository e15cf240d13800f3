import * as assert from 'node:assert/strict';
import { AgentError, isDiskFull } from '../../src/core/errors';
import { GitProcessError, toAgentError } from '../../src/node/git/errors';
import { englishMessage } from '../../src/ui/errorText';

describe('diskFull mapping', () => {
  it('recognises the OS and git wordings of a full disk, and nothing else', () => {
    assert.ok(isDiskFull('fatal: write error: No space left on device'));
    assert.ok(isDiskFull("Error: ENOSPC: no space left on device, mkdir '/x'"));
    assert.ok(isDiskFull('error: Disk quota exceeded'));
    assert.ok(!isDiskFull('fatal: not a git repository (or any of the parent directories): .git'));
    assert.ok(!isDiskFull('error: unable to create file a.txt: Permission denied'));
  });

  it('a git failure saying "No space left on device" becomes diskFull with git\'s text as detail', () => {
    const stderr = 'fatal: unable to write new index file: No space left on device\n';
    const e = toAgentError(
      new GitProcessError(128, stderr),
      'git',
      '/repo',
      ['worktree', 'add', '-b', 'x', '/wt'],
      'worktreeFailed',
    );
    assert.ok(AgentError.is(e, 'diskFull'), e.reason);
    assert.ok(AgentError.isCode(e, 'gitDiskFull'), e.code);
    assert.deepEqual(e.data, { cwd: '/repo' });
    assert.match(englishMessage(e), /disk is full/i);
    assert.equal(e.detail, stderr.trim());
  });

  it('other git failures keep their fallback reason', () => {
    const e = toAgentError(
      new GitProcessError(128, 'fatal: invalid reference: nope\n'),
      'git',
      '/repo',
      ['worktree', 'add'],
      'worktreeFailed',
    );
    assert.equal(e.reason, 'worktreeFailed');
  });
});
