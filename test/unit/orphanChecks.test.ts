import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import type { Orphan } from '../../src/core/reconcile/reconcile';
import { atOrUnder, claimOf, liveIn, orphanRefusal, withoutLive } from '../../src/core/reconcile/orphanChecks';
import { record, repoRoot, root, sha } from './reconcileFixture';

const worktree = (slug: string): Orphan => ({
  kind: 'worktree',
  repoRoot,
  branch: `agents/${slug}`,
  path: `${root}/${slug}`,
  head: sha('b'),
  plan: false,
});
const branch = (slug: string): Orphan => ({ ...worktree(slug), kind: 'branch' });

describe('orphan checks: an orphan has no record and no live process', () => {
  it('takes a path as in a folder when it is the folder or below it, never a sibling with a longer name', () => {
    assert.ok(atOrUnder('/w/fix', '/w/fix'));
    assert.ok(atOrUnder('/w/fix/', '/w/fix'));
    assert.ok(atOrUnder('/w/fix/src/deep', '/w/fix'));
    assert.ok(atOrUnder('C:\\W\\fix\\src', 'c:/w/fix'), 'Windows paths: slashes and drive case');
    assert.ok(!atOrUnder('/w/fix-2', '/w/fix'));
    assert.ok(!atOrUnder('/w/fi', '/w/fix'));
    assert.ok(!atOrUnder('/w', '/w/fix'));
    assert.ok(atOrUnder('/anything', '/'));
  });

  it('finds the record that claims the worktree folder or the branch, in the same repository only', () => {
    const o = worktree('fix');
    assert.equal(claimOf(o, [record('1', 'other')]), undefined);
    assert.equal(claimOf(o, [record('2', 'fix')])?.id, '2');
    const sameFolder = record('3', 'x', { worktreePath: `${root}/fix/`, branch: 'agents/renamed' });
    assert.equal(claimOf(o, [sameFolder])?.id, '3', 'by folder, whatever its branch');
    const sameBranch = record('4', 'y', { worktreePath: undefined, branch: 'agents/fix' });
    assert.equal(claimOf(o, [sameBranch])?.id, '4', 'by branch');
    assert.equal(claimOf(o, [record('5', 'fix', { repoRoot: '/elsewhere/repo' })]), undefined, 'another repository');
    assert.equal(claimOf(branch('fix'), [record('6', 'fix')])?.id, '6', 'a branch orphan too');
  });

  it('finds a live process working in a worktree orphan or below it; a branch orphan has no folder to be in use', () => {
    const live = [
      { pid: 10, cwd: `${root}/fix-2` },
      { pid: 11, cwd: `${root}/fix/node_modules/x` },
    ];
    assert.equal(liveIn(worktree('fix'), live)?.pid, 11);
    assert.equal(liveIn(worktree('other'), live), undefined);
    assert.equal(liveIn(branch('fix'), live), undefined);
    assert.deepEqual(
      withoutLive([worktree('fix'), worktree('fix-3'), branch('fix')], live).map((o) => `${o.kind} ${o.branch}`),
      ['worktree agents/fix-3', 'branch agents/fix'],
    );
  });

  it('refuses with the record first, then the process, and lets a true orphan through', () => {
    const o = worktree('fix');
    const live = [{ pid: 42, cwd: `${root}/fix` }];
    const claimed = orphanRefusal(o, [record('1', 'fix', { title: 'Fix it' })], live);
    assert.ok(AgentError.isCode(claimed, 'orphanNowHasRecord'));
    assert.deepEqual(claimed.data, { branch: 'agents/fix', title: 'Fix it' });
    const busy = orphanRefusal(o, [record('2', 'other')], live);
    assert.ok(AgentError.isCode(busy, 'orphanInUse'));
    assert.deepEqual(busy.data, { path: `${root}/fix`, pid: 42 });
    assert.equal(orphanRefusal(o, [record('2', 'other')], [{ pid: 43, cwd: `${root}/fixed` }]), undefined);
  });
});
