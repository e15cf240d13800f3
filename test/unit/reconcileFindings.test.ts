import * as assert from 'node:assert/strict';
import type { GitRefInfo } from '../../src/core/git';
import { ownSlug, reconcile, restoreSource, samePathKey, shortBranch } from '../../src/core/reconcile/reconcile';
import { heads, input, record, repoRoot, root, sha, wt } from './reconcileFixture';

const kinds = (findings: ReturnType<typeof reconcile>) => findings.orphans.map((o) => `${o.kind} ${o.branch}`);

describe('reconcile findings: the edges of what is ours, what is missing and what is pruned', () => {
  it('compares paths with any number of trailing slashes and backslashes alike, folding case only for drive letters', () => {
    assert.equal(samePathKey('/home/u/x///'), '/home/u/x');
    assert.equal(samePathKey('C:\\Work\\X\\\\'), 'c:/work/x');
    assert.equal(samePathKey('C:\\'), samePathKey('c:/'));
    assert.equal(samePathKey('/Home/U/X'), '/Home/U/X', 'POSIX paths keep their case');
    assert.equal(samePathKey('//'), '/');
    assert.equal(samePathKey('/home/u/x/y'), '/home/u/x/y', 'only trailing slashes go');
    assert.equal(samePathKey('/Home/C:/X'), '/Home/C:/X', 'a drive letter only at the start folds case');
  });

  it('knows a slug only when the whole rest of the branch is one: single words, digits, no edges or runs of hyphens', () => {
    for (const [branch, slug] of [
      ['agents/x', 'x'],
      ['agents/7', '7'],
      ['agents/a-b-c', 'a-b-c'],
    ]) {
      assert.equal(ownSlug(branch, 'agents'), slug, branch);
    }
    for (const branch of ['agents', 'agents/_a', 'agents/a_', 'agents/a-', 'agents/a--b', 'agents/a.b', 'xagents/a']) {
      assert.equal(ownSlug(branch, 'agents'), undefined, branch);
    }
  });

  it('never reports the main checkout, even when it sits in the worktree root on an own-looking branch', () => {
    const findings = reconcile(
      input({
        worktreeRoot: '/home/u',
        worktrees: [wt(repoRoot, 'agents/main-work'), wt('/home/u/stray', 'agents/stray')],
        refs: heads('agents/main-work', 'agents/stray'),
      }),
    );
    assert.deepEqual(kinds(findings), ['worktree agents/stray']);
    assert.deepEqual(findings.prune, []);
    const trailing = reconcile(
      input({
        repoRoot: `${repoRoot}/`,
        worktreeRoot: '/home/u',
        worktrees: [wt(repoRoot, 'agents/main-work')],
        refs: heads('agents/main-work'),
      }),
    );
    assert.deepEqual(trailing.orphans, []);
  });

  it('does not count a branch as known because an agent of another repository has the same name', () => {
    const findings = reconcile(
      input({
        records: [record('o', 'same', { repoRoot: '/other/repo', worktreePath: `${root}/same` })],
        worktrees: [wt(repoRoot, 'main'), wt(`${root}/same`, 'agents/same')],
        refs: heads('main', 'agents/same', 'agents/free'),
        existingFolders: new Set(),
      }),
    );
    assert.deepEqual(kinds(findings), ['worktree agents/same', 'branch agents/free']);
    assert.deepEqual(findings.missing, [], "another repository's agents are not this one's missing");
  });

  it('hides a branch a record of this repository holds, whether or not its worktree is listed, and inUse branches alike', () => {
    const findings = reconcile(
      input({
        records: [record('1', 'held', { worktreePresent: false })],
        worktrees: [
          wt(repoRoot, 'main'),
          wt(`${root}/held-elsewhere`, 'agents/held'),
          wt(`${root}/busy`, 'agents/busy'),
        ],
        refs: heads('main', 'agents/held', 'agents/busy', 'agents/queued'),
        inUse: { paths: [], branches: ['agents/busy', 'agents/queued'] },
      }),
    );
    assert.deepEqual(findings.orphans, []);
  });

  it("never reports an agent's own folder after the user switched it to another own-looking branch", () => {
    const findings = reconcile(
      input({
        records: [record('1', 'work')],
        worktrees: [wt(repoRoot, 'main'), wt(`${root}/work`, 'agents/work-v2')],
        refs: heads('main', 'agents/work', 'agents/work-v2'),
      }),
    );
    assert.deepEqual(findings.orphans, []);
  });

  it('takes the worktree root with a trailing slash or backslashes, and puts a branch orphan directly inside it', () => {
    const findings = reconcile(
      input({
        repoRoot: 'C:\\u\\repo',
        worktreeRoot: 'C:\\u\\repo.worktrees\\',
        worktrees: [wt('C:/u/repo', 'main'), wt('c:/u/repo.worktrees/tree', 'agents/tree')],
        refs: heads('main', 'agents/tree', 'agents/lone'),
      }),
    );
    assert.deepEqual(
      findings.orphans.map((o) => `${o.kind} ${o.path}`),
      ['worktree c:/u/repo.worktrees/tree', 'branch C:/u/repo.worktrees/lone'],
    );
    assert.ok(findings.orphans.every((o) => o.repoRoot === 'C:\\u\\repo'));
  });

  it('puts a branch orphan directly inside a worktree root given with several trailing slashes', () => {
    const findings = reconcile(input({ worktreeRoot: `${root}///`, refs: heads('main', 'agents/lone') }));
    assert.deepEqual(
      findings.orphans.map((o) => o.path),
      [`${root}/lone`],
    );
  });

  it('reports nothing for detached, nested or stale-but-locked worktrees, and keeps the branch a locked one holds', () => {
    const stale = 'gitdir file points to non-existent location';
    const findings = reconcile(
      input({
        worktrees: [
          wt(repoRoot, 'main'),
          wt(`${root}/det`, undefined, { prunable: stale }),
          wt(`${root}/sub/deep`, 'agents/deep', { prunable: stale }),
          wt(`${root}/held`, 'agents/held', { prunable: stale, locked: '' }),
          wt(`${root}/bare`, undefined, { bare: true, head: undefined }),
        ],
        refs: heads('main', 'agents/deep', 'agents/held'),
      }),
    );
    assert.deepEqual(findings.prune, []);
    assert.deepEqual(findings.orphans, []);
  });

  it("prunes a stale registration of a known agent even outside the root, but not the user's detached one in the root", () => {
    const stale = 'gitdir file points to non-existent location';
    const findings = reconcile(
      input({
        records: [record('1', 'moved', { worktreePath: '/elsewhere/moved' })],
        worktrees: [
          wt(repoRoot, 'main'),
          wt('/elsewhere/moved', 'agents/moved', { prunable: stale }),
          wt(`${root}/loose`, undefined, { prunable: stale }),
        ],
        refs: heads('main', 'agents/moved'),
        existingFolders: new Set(),
      }),
    );
    assert.deepEqual(findings.prune, ['/elsewhere/moved']);
    assert.deepEqual(findings.orphans, [], "the pruned agent's branch is known, so not an orphan");
    assert.deepEqual(findings.missing, [{ id: '1', restoreFrom: 'branch' }]);
  });

  it('treats a path listed by inUse as known whatever its branch, and marks only plan-<slug> branches as plans', () => {
    const findings = reconcile(
      input({
        worktrees: [
          wt(repoRoot, 'main'),
          wt(`${root}/integration`, 'agents/integration'),
          wt(`${root}/planner`, 'agents/planner'),
          wt(`${root}/plan`, 'agents/plan'),
        ],
        refs: heads('main', 'agents/integration', 'agents/planner', 'agents/plan', 'agents/plan-x'),
        inUse: { paths: [`${root}/integration/`], branches: [] },
      }),
    );
    assert.deepEqual(
      findings.orphans.map((o) => `${o.branch} ${o.plan}`),
      ['agents/planner false', 'agents/plan false', 'agents/plan-x true'],
    );
  });

  it('reports a worktree orphan with the head git listed, and a branch orphan with its tip', () => {
    const findings = reconcile(
      input({
        worktrees: [wt(repoRoot, 'main'), wt(`${root}/w`, 'agents/w', { head: sha('c') })],
        refs: [
          ...heads('main'),
          { name: 'refs/heads/agents/b', sha: sha('d') },
          { name: 'refs/heads/agents/w', sha: sha('e') },
        ],
      }),
    );
    assert.deepEqual(
      findings.orphans.map((o) => `${o.branch} ${o.head}`),
      [`agents/w ${sha('c')}`, `agents/b ${sha('d')}`],
    );
  });

  it('reports a worktree orphan git listed without a head with an empty head', () => {
    const findings = reconcile(
      input({ worktrees: [wt(repoRoot, 'main'), wt(`${root}/new`, 'agents/new', { head: undefined })] }),
    );
    assert.deepEqual(
      findings.orphans.map((o) => `${o.kind} ${o.branch} [${o.head}]`),
      ['worktree agents/new []'],
    );
  });

  it('takes the short name of local branches only', () => {
    assert.equal(shortBranch('refs/heads/agents/x'), 'agents/x');
    assert.equal(shortBranch('refs/tags/agents/x'), undefined);
    assert.equal(shortBranch('refs/remotes/o/agents/x'), undefined);
    assert.equal(shortBranch(undefined), undefined);
  });

  it('never reports a record of another isolation as missing, even one that names a folder', () => {
    const term = record('term', 'term', { isolation: 'terminal', cwd: repoRoot });
    const findings = reconcile(
      input({ records: [term], existingFolders: new Set(), refs: heads('main', 'agents/term') }),
    );
    assert.deepEqual(findings.missing, []);
  });

  it('never reports a saved-work ref as a branch', () => {
    const findings = reconcile(
      input({
        refs: [...heads('main'), { name: 'refs/parallel-agents/saved/abc', sha: sha('c'), parent: sha('b') }],
      }),
    );
    assert.deepEqual(findings.orphans, []);
  });

  it('finds missing agents only among finished worktree agents that still own a folder, and reappeared ones only when marked', () => {
    const records = [
      record('gone', 'gone'),
      record('queued', 'queued', { status: 'queued' }),
      record('preparing', 'preparing', { status: 'preparing' }),
      record('noPath', 'no-path', { worktreePath: undefined }),
      record('here', 'here'),
      record('back', 'back', { worktreeMissing: true }),
      record('stopped', 'stopped', { status: 'stopped', worktreePresent: true }),
    ];
    const findings = reconcile(
      input({
        records,
        existingFolders: new Set([`${root}/here`, `${root}/back`]),
        refs: heads('main', 'agents/gone', 'agents/stopped'),
      }),
    );
    assert.deepEqual(findings.missing, [
      { id: 'gone', restoreFrom: 'branch' },
      { id: 'stopped', restoreFrom: 'branch' },
    ]);
    assert.deepEqual(findings.reappeared, ['back']);
  });

  it('restores from the branch when the saved work has no parent or is not listed, and finds nothing without a branch name', () => {
    const saved = 'refs/parallel-agents/saved/x';
    const refs = (entries: GitRefInfo[]) => new Map(entries.map((e) => [e.name, e]));
    assert.equal(
      restoreSource(
        record('x', 'x', { savedRef: saved }),
        refs([{ name: saved, sha: sha('c') }, ...heads('agents/x')]),
      ),
      'branch',
    );
    assert.equal(restoreSource(record('x', 'x', { savedRef: saved }), refs(heads('agents/x'))), 'branch');
    assert.equal(restoreSource(record('x', 'x'), refs([{ name: saved, sha: sha('c'), parent: sha('b') }])), 'none');
    assert.equal(
      restoreSource(
        record('x', 'x', { branch: undefined, savedRef: saved }),
        refs([{ name: saved, sha: sha('c'), parent: sha('b') }]),
      ),
      'saved',
    );
    assert.equal(restoreSource(record('x', 'x', { branch: undefined }), refs(heads('agents/x'))), 'none');
  });
});
