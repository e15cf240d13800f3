import * as assert from 'node:assert/strict';
import type { GitRefInfo } from '../../src/core/git';
import { ownSlug, reconcile, restoreSource, samePathKey } from '../../src/core/reconcile/reconcile';
import { heads, input, record, repoRoot, root, sha, wt } from './reconcileFixture';

describe('reconcile: what the extension made against what it knows', () => {
  it('recognises only branches the extension can name: <prefix>/<slug>', () => {
    assert.equal(ownSlug('agents/fix-login-2', 'agents'), 'fix-login-2');
    assert.equal(ownSlug('agents/plan-site', 'agents'), 'plan-site');
    for (const other of [
      'agentsfoo',
      'my-agents/x',
      'agents/Feature',
      'agents/team/x',
      'agents/x_y',
      'agents/-x',
      'agents/',
      'main',
    ]) {
      assert.equal(ownSlug(other, 'agents'), undefined, other);
    }
    assert.equal(ownSlug('bots/ai/fix', 'bots/ai'), 'fix');
  });

  it('reports a worktree in the root on an own branch that no record knows, and leaves known ones alone', () => {
    const findings = reconcile(
      input({
        records: [record('1', 'known')],
        worktrees: [wt(repoRoot, 'main'), wt(`${root}/known`, 'agents/known'), wt(`${root}/stray`, 'agents/stray')],
        refs: heads('main', 'agents/known', 'agents/stray'),
      }),
    );
    assert.deepEqual(findings.orphans, [
      { kind: 'worktree', repoRoot, branch: 'agents/stray', path: `${root}/stray`, head: sha('b'), plan: false },
    ]);
    assert.deepEqual(findings.missing, []);
    assert.deepEqual(findings.prune, []);
  });

  it("never reports the user's own worktrees and branches", () => {
    const findings = reconcile(
      input({
        worktrees: [
          wt(repoRoot, 'main'),
          wt('/home/u/elsewhere', 'feature/x'),
          wt('/home/u/detached'),
          // In the root but on the user's branch, or detached; outside the root on an own-looking branch.
          wt(`${root}/mine`, 'feature/y'),
          wt(`${root}/det`),
          wt('/home/u/other', 'agents/checked-out-elsewhere'),
          wt('/home/u/gone', 'agents/users-stale', { prunable: 'gitdir file points to non-existent location' }),
        ],
        refs: heads(
          'main',
          'feature/x',
          'feature/y',
          'agentsfoo',
          'my-agents/x',
          'agents/Upper',
          'agents/a/b',
          'agents/checked-out-elsewhere',
          'agents/users-stale',
        ),
      }),
    );
    assert.deepEqual(findings, { orphans: [], missing: [], reappeared: [], prune: [] });
  });

  it('reports an own branch checked out nowhere and unknown, with where Adopt would put it', () => {
    const findings = reconcile(
      input({
        refs: heads('main', 'agents/left-over', 'agents/known'),
        records: [record('1', 'known', { worktreePresent: false })],
      }),
    );
    assert.deepEqual(findings.orphans, [
      { kind: 'branch', repoRoot, branch: 'agents/left-over', path: `${root}/left-over`, head: sha('b'), plan: false },
    ]);
  });

  it('treats live plan integration worktrees as known and marks other plan branches as plan orphans', () => {
    const findings = reconcile(
      input({
        worktrees: [
          wt(repoRoot, 'main'),
          wt(`${root}/plan-site`, 'agents/plan-site'),
          wt(`${root}/plan-old`, 'agents/plan-old'),
        ],
        refs: heads('main', 'agents/plan-site', 'agents/plan-old'),
        inUse: { paths: [`${root}/plan-site`], branches: ['agents/plan-site'] },
      }),
    );
    assert.deepEqual(
      findings.orphans.map((o) => [o.kind, o.branch, o.plan]),
      [['worktree', 'agents/plan-old', true]],
    );
  });

  it('reports finished records whose folder is gone as missing; not removed, running, terminal or other repositories', () => {
    const records = [
      record('gone', 'gone'),
      record('removed', 'removed', { worktreePresent: false }),
      record('running', 'running', { status: 'running' }),
      record('here', 'here', { worktreeMissing: true }),
      record('term', 'term', { isolation: 'terminal', worktreePath: undefined, branch: undefined, cwd: repoRoot }),
      record('other', 'other', { repoRoot: '/other/repo' }),
    ];
    const findings = reconcile(
      input({ records, existingFolders: new Set([`${root}/here/`]), refs: heads('main', 'agents/gone') }),
    );
    assert.deepEqual(findings.missing, [{ id: 'gone', restoreFrom: 'branch' }]);
    assert.deepEqual(findings.reappeared, ['here']);
    assert.deepEqual(findings.orphans, [], 'the branches of known records are not orphans');
  });

  it('prunes stale registrations of its own worktrees only, never locked or user ones, and sees their branches as orphans', () => {
    const stale = 'gitdir file points to non-existent location';
    const findings = reconcile(
      input({
        worktrees: [
          wt(repoRoot, 'main'),
          wt(`${root}/a`, 'agents/a', { prunable: stale }),
          wt(`${root}/b`, 'agents/b', { prunable: stale, locked: 'on a removable drive' }),
          wt(`${root}/c`, 'agents/c', { prunable: stale }),
          wt('/home/u/mine', 'mine', { prunable: stale }),
        ],
        refs: heads('main', 'agents/a', 'agents/b', 'agents/c', 'mine'),
        records: [record('a', 'a'), record('b', 'b')],
        existingFolders: new Set(),
      }),
    );
    assert.deepEqual(findings.prune, [`${root}/a`, `${root}/c`]);
    assert.deepEqual(
      findings.orphans.map((o) => [o.kind, o.branch]),
      [['branch', 'agents/c']],
    );
    assert.deepEqual(
      findings.missing.map((m) => m.id),
      ['a', 'b'],
    );
  });

  it('restores from saved work taken on the branch tip or when the branch is gone, else from the branch', () => {
    const saved = 'refs/parallel-agents/saved/x';
    const refs = (entries: GitRefInfo[]) => new Map(entries.map((e) => [e.name, e]));
    const r = record('x', 'x', { savedRef: saved });
    assert.equal(
      restoreSource(r, refs([{ name: saved, sha: sha('c'), parent: sha('b') }, ...heads('agents/x')])),
      'saved',
    );
    assert.equal(
      restoreSource(r, refs([{ name: saved, sha: sha('c'), parent: sha('d') }, ...heads('agents/x')])),
      'branch',
    );
    assert.equal(restoreSource(r, refs([{ name: saved, sha: sha('c'), parent: sha('d') }])), 'saved');
    assert.equal(restoreSource(r, refs(heads('agents/x'))), 'branch');
    assert.equal(restoreSource(r, refs([])), 'none');
  });

  it('compares paths as git and Node print them', () => {
    assert.equal(samePathKey('C:\\Users\\u\\repo.worktrees\\x\\'), samePathKey('c:/Users/u/repo.worktrees/x'));
    assert.equal(samePathKey('/'), '/');
  });
});
