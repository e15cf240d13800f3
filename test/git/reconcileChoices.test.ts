import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentError } from '../../src/core/errors';
import type { Orphan } from '../../src/core/reconcile/reconcile';
import { binaryOf, git, ReconcileFixture, snapshot } from './reconcileFixture';
import { englishMessage } from '../../src/ui/errorText';

describe('Reconcile Agents with real git: Adopt and Discard act on the orphan chosen, never another', function () {
  this.timeout(60000);
  let f: ReconcileFixture;

  beforeEach(() => {
    f = new ReconcileFixture();
  });

  afterEach(async () => {
    await f.dispose();
  });

  /** What the orphans hold on disk and in git, to prove the ones not chosen are left exactly as they were. */
  function state(orphans: readonly Orphan[]) {
    return orphans.map((o) => ({
      branch: o.branch,
      tip: f.tip(o.branch),
      files: fs.existsSync(o.path) ? snapshot(o.path) : 'no folder',
    }));
  }

  const listed = () => f.reconciler.orphans().map((o) => `${o.kind} ${o.branch} ${o.path}`);

  it('adopts the worktree orphan chosen by path and discards the one chosen by branch; the third stays listed and untouched', async () => {
    for (const slug of ['one', 'two', 'three']) {
      f.worktreeOrphan(slug);
    }
    const report = await f.reconciler.run();
    assert.equal(report.orphans.length, 3);
    assert.ok(report.orphans.every((o) => o.kind === 'worktree'));
    const [first, middle, last] = report.orphans;

    const filesOfMiddle = snapshot(middle.path);
    const tipOfMiddle = f.tip(middle.branch);
    const others = state([first, last]);
    const adopted = await f.reconciler.adopt({ path: middle.path });
    assert.equal(adopted.worktreePath, middle.path);
    assert.equal(adopted.cwd, middle.path);
    assert.equal(adopted.branch, middle.branch);
    assert.equal(adopted.title, middle.branch.slice('agents/'.length));
    assert.deepEqual(snapshot(middle.path), filesOfMiddle, 'adopting changes no file');
    assert.equal(f.tip(middle.branch), tipOfMiddle);
    assert.deepEqual(listed(), [`worktree ${first.branch} ${first.path}`, `worktree ${last.branch} ${last.path}`]);
    assert.deepEqual(state([first, last]), others);
    assert.deepEqual(
      f.manager.list().map((r) => r.branch),
      [middle.branch],
    );

    const discarded = await f.reconciler.discardOrphan({ branch: last.branch });
    assert.equal(discarded.branch, last.branch);
    assert.equal(discarded.worktreePath, last.path);
    assert.equal(discarded.status, 'discarded');
    assert.equal(fs.existsSync(last.path), false);
    assert.equal(f.tip(last.branch), undefined);
    assert.deepEqual(listed(), [`worktree ${first.branch} ${first.path}`]);
    assert.deepEqual(state([first]), [others[0]]);
    assert.deepEqual(snapshot(middle.path), filesOfMiddle, 'the adopted agent is untouched too');

    const again = await f.reconciler.run();
    assert.deepEqual(
      again.orphans.map((o) => o.path),
      [first.path],
    );
  });

  it('adopts the worktree orphan chosen by branch and discards the one chosen by path; the first stays listed and untouched', async () => {
    for (const slug of ['red', 'green', 'blue']) {
      f.worktreeOrphan(slug);
    }
    const [first, middle, last] = (await f.reconciler.run()).orphans;
    const others = state([first, middle]);

    const adopted = await f.reconciler.adopt({ branch: last.branch });
    assert.equal(adopted.worktreePath, last.path);
    assert.equal(adopted.branch, last.branch);
    assert.deepEqual(state([first, middle]), others);
    assert.deepEqual(listed(), [`worktree ${first.branch} ${first.path}`, `worktree ${middle.branch} ${middle.path}`]);

    const discarded = await f.reconciler.discardOrphan({ path: middle.path });
    assert.equal(discarded.branch, middle.branch);
    assert.equal(fs.existsSync(middle.path), false);
    assert.equal(f.tip(middle.branch), undefined);
    assert.deepEqual(state([first]), [others[0]]);
    assert.ok(fs.existsSync(last.path), 'the adopted worktree stays');
    assert.deepEqual(listed(), [`worktree ${first.branch} ${first.path}`]);
  });

  it('adopts the branch orphan chosen by branch and discards the one chosen by its adopt path; the others keep their tips and get no folder', async () => {
    const tips = Object.fromEntries(['alpha', 'beta', 'gamma', 'delta'].map((s) => [s, f.branchOrphan(s)]));
    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => `${o.kind} ${o.branch} ${o.head}`),
      ['alpha', 'beta', 'delta', 'gamma'].map((s) => `branch agents/${s} ${tips[s]}`),
    );
    const [alpha, beta, delta, gamma] = report.orphans;
    const untouched = state([alpha, gamma]);

    const adopted = await f.reconciler.adopt({ branch: beta.branch });
    assert.equal(adopted.worktreePath, path.join(f.root, 'beta'));
    assert.equal(git(adopted.worktreePath!, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/beta');
    assert.equal(git(adopted.worktreePath!, 'rev-parse', 'HEAD'), tips.beta);
    assert.deepEqual(
      f.reconciler.orphans().map((o) => o.branch),
      ['agents/alpha', 'agents/delta', 'agents/gamma'],
    );

    const discarded = await f.reconciler.discardOrphan({ path: delta.path });
    assert.equal(discarded.branch, 'agents/delta');
    assert.equal(f.tip('agents/delta'), undefined);
    assert.equal(git(f.repo, 'rev-parse', `${discarded.savedRef}^`), tips.delta);
    assert.deepEqual(
      f.reconciler.orphans().map((o) => o.branch),
      ['agents/alpha', 'agents/gamma'],
    );
    assert.deepEqual(state([alpha, gamma]), untouched);
    assert.deepEqual(untouched, [
      { branch: 'agents/alpha', tip: tips.alpha, files: 'no folder' },
      { branch: 'agents/gamma', tip: tips.gamma, files: 'no folder' },
    ]);
    assert.equal(fs.existsSync(delta.path), false, 'discarding a branch orphan makes no folder');
    assert.deepEqual(
      (await f.reconciler.run()).orphans.map((o) => o.branch),
      ['agents/alpha', 'agents/gamma'],
    );
  });

  it('tells a worktree orphan from a branch orphan when both are listed: each key reaches only its own', async () => {
    const dir = f.worktreeOrphan('tree');
    const tip = f.branchOrphan('bare');
    const report = await f.reconciler.run();
    assert.deepEqual(
      report.orphans.map((o) => `${o.kind} ${o.branch}`),
      ['worktree agents/tree', 'branch agents/bare'],
    );
    const files = snapshot(dir);
    const discarded = await f.reconciler.discardOrphan({ branch: 'agents/bare' });
    assert.equal(git(f.repo, 'rev-parse', `${discarded.savedRef}^`), tip);
    assert.deepEqual(snapshot(dir), files);
    assert.ok(f.tip('agents/tree'));
    const adopted = await f.reconciler.adopt({ path: `${dir}/` });
    assert.equal(adopted.worktreePath, dir, 'a trailing slash names the same folder');
    assert.deepEqual(f.reconciler.orphans(), []);
  });

  it('refuses an orphan key that matches nothing with a clear error, and changes nothing', async () => {
    f.worktreeOrphan('kept');
    f.branchOrphan('also-kept');
    const mine = path.join(f.fx.tmp, 'mine');
    git(f.repo, 'worktree', 'add', '-q', '-b', 'feature/mine', mine);

    const before = { refs: f.refs(), worktrees: f.registrations(), files: snapshot(path.join(f.root, 'kept')) };
    const refusals: [string, () => Promise<unknown>][] = [
      ['adopt before any Reconcile run', () => f.reconciler.adopt({ branch: 'agents/kept' })],
      ['discard before any Reconcile run', () => f.reconciler.discardOrphan({ path: path.join(f.root, 'kept') })],
    ];
    for (const [what, act] of refusals) {
      await assert.rejects(act(), (e: unknown) => AgentError.is(e, 'unknownAgent'), what);
    }
    await f.reconciler.run();
    const orphans = listed();
    const unknown = path.join(f.root, 'nothing-here');
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['adopt, unknown path', () => f.reconciler.adopt({ path: unknown }), /nothing-here/],
      ['discard, unknown branch', () => f.reconciler.discardOrphan({ branch: 'agents/nope' }), /agents\/nope/],
      ["adopt the user's worktree", () => f.reconciler.adopt({ path: mine }), /mine/],
      ["discard the user's branch", () => f.reconciler.discardOrphan({ branch: 'feature/mine' }), /feature\/mine/],
      ['discard the main checkout', () => f.reconciler.discardOrphan({ path: f.repo }), /repo/],
      ['discard, no key', () => f.reconciler.discardOrphan({}), /\(nothing given\)/],
      ['adopt, no key', () => f.reconciler.adopt({}), /\(nothing given\)/],
    ];
    for (const [what, act, names] of cases) {
      await assert.rejects(
        act(),
        (e: unknown) => {
          assert.ok(AgentError.is(e, 'unknownAgent'), `${what}: ${String(e)}`);
          assert.match(englishMessage(e), /^No orphaned worktree or branch matches /, what);
          assert.match(englishMessage(e), names, what);
          assert.match(englishMessage(e), /run Reconcile Agents first/, what);
          return true;
        },
        what,
      );
    }
    assert.deepEqual(listed(), orphans);
    assert.deepEqual(f.manager.list(), []);
    assert.deepEqual(
      { refs: f.refs(), worktrees: f.registrations(), files: snapshot(path.join(f.root, 'kept')) },
      before,
    );
  });

  it('refuses to adopt or discard an orphan a second time: it is no longer listed', async () => {
    const dir = f.worktreeOrphan('once');
    f.branchOrphan('twice');
    await f.reconciler.run();
    const adopted = await f.reconciler.adopt({ path: dir });
    await assert.rejects(f.reconciler.adopt({ path: dir }), (e: unknown) => AgentError.is(e, 'unknownAgent'));
    await assert.rejects(f.reconciler.discardOrphan({ path: dir }), (e: unknown) => AgentError.is(e, 'unknownAgent'));
    assert.ok(fs.existsSync(dir));
    const gone = await f.reconciler.discardOrphan({ branch: 'agents/twice' });
    await assert.rejects(f.reconciler.discardOrphan({ branch: 'agents/twice' }), (e: unknown) =>
      AgentError.is(e, 'unknownAgent'),
    );
    assert.deepEqual(
      f.manager
        .list()
        .map((r) => r.id)
        .sort(),
      [adopted.id, gone.id].sort(),
    );
  });

  it('records an adopted orphan as a stopped agent based where its branch left HEAD, with a log that says so', async () => {
    const base = git(f.repo, 'rev-parse', 'HEAD');
    const dir = f.worktreeOrphan('older');
    const tip = f.branchOrphan('older-branch');
    fs.writeFileSync(path.join(f.repo, 'later.txt'), 'main moved on\n');
    git(f.repo, 'add', '.');
    git(f.repo, 'commit', '-q', '-m', 'main moves on');
    const changes: number[] = [];
    f.reconciler.onDidChange(() => changes.push(f.reconciler.orphans().length));
    await f.reconciler.run();
    assert.deepEqual(changes, [2]);

    const before = Date.now();
    const record = await f.reconciler.adopt({ path: dir });
    assert.deepEqual(changes, [2, 1]);
    assert.equal(record.baseSha, base, 'the fork point, not the current HEAD');
    assert.equal(record.status, 'stopped');
    assert.equal(record.isolation, 'worktree');
    assert.equal(record.adopted, true);
    assert.equal(record.profile, 'demo');
    assert.equal(record.mode, 'headless');
    assert.equal(record.prompt, '');
    assert.deepEqual(record.changedFiles, []);
    assert.equal(record.repoRoot, f.repo);
    assert.ok(record.createdAt >= before && record.endedAt === record.createdAt);
    // The change-set refresh register() starts in the background may already have filled the held
    // record's files (they are checked below, after an explicit refresh); everything else is the same.
    assert.deepEqual({ ...f.manager.get(record.id), changedFiles: [] }, record);
    assert.equal(record.logPath, path.join(f.fx.tmp, 'logs', `${record.id}.log`));
    assert.equal(
      fs.readFileSync(record.logPath!, 'utf8'),
      `Adopted by Reconcile Agents: worktree ${dir} on agents/older, base ${base.slice(0, 12)}.\n`,
    );
    await f.manager.refreshChanges(record.id);
    assert.deepEqual(
      f.manager
        .get(record.id)
        .changedFiles.map((c) => `${c.kind} ${c.path}`)
        .sort(),
      [
        'added done-older.txt',
        'deleted README.md',
        'modified app.js',
        'untracked blob-older.bin',
        'untracked notes-older.md',
      ],
      "only the orphan's own work shows, not main's later commit",
    );

    const fromBranch = await f.reconciler.adopt({ branch: 'agents/older-branch' });
    assert.deepEqual(changes, [2, 1, 0]);
    assert.equal(fromBranch.baseSha, base);
    assert.equal(fromBranch.title, 'older-branch');
    assert.equal(git(fromBranch.worktreePath!, 'rev-parse', 'HEAD'), tip);
    assert.deepEqual(
      fs.readFileSync(path.join(fromBranch.worktreePath!, 'second-older-branch.bin')),
      binaryOf('older-branch'),
    );
  });

  it('refuses to adopt or discard a branch that shares no history with HEAD, and loses nothing', async () => {
    const scratch = path.join(f.fx.tmp, 'unrelated');
    git(f.repo, 'worktree', 'add', '-q', '--detach', scratch);
    git(scratch, 'checkout', '-q', '--orphan', 'agents/unrelated');
    git(scratch, 'rm', '-rqf', '.');
    fs.writeFileSync(path.join(scratch, 'alone.txt'), 'no shared history\n');
    git(scratch, 'add', '.');
    git(scratch, 'commit', '-q', '-m', 'unrelated');
    git(f.repo, 'worktree', 'remove', scratch);
    const tip = f.tip('agents/unrelated');
    const refs = f.refs();
    await f.reconciler.run();
    for (const act of [
      () => f.reconciler.discardOrphan({ branch: 'agents/unrelated' }),
      () => f.reconciler.adopt({ branch: 'agents/unrelated' }),
    ]) {
      await assert.rejects(act(), (e: unknown) => {
        assert.ok(AgentError.is(e, 'gitFailed'), String(e));
        assert.match(englishMessage(e), /agents\/unrelated shares no history with HEAD/);
        return true;
      });
    }
    assert.equal(f.tip('agents/unrelated'), tip, 'the branch is kept');
    assert.deepEqual(f.refs(), refs, 'no saved ref is left for a refused discard');
    assert.equal(fs.existsSync(path.join(f.root, 'unrelated')), false, 'no worktree is left behind');
    assert.deepEqual(f.registrations(), [`${f.repo} refs/heads/main`]);
    assert.deepEqual(f.manager.list(), []);
    assert.deepEqual(
      f.reconciler.orphans().map((o) => o.branch),
      ['agents/unrelated'],
    );
  });
});

describe('Reconcile Agents with real git: Discard Orphan saves all the work first, and Restore brings it back', function () {
  this.timeout(60000);
  let f: ReconcileFixture;

  beforeEach(() => {
    f = new ReconcileFixture();
  });

  afterEach(async () => {
    await f.dispose();
  });

  it('saves committed, uncommitted, deleted and untracked files of a worktree orphan byte for byte, and Restore Agent brings them back', async () => {
    const dir = f.worktreeOrphan('precious');
    f.worktreeOrphan('bystander');
    const files = snapshot(dir);
    const status = git(dir, 'status', '--porcelain');
    const tip = f.tip('agents/precious')!;
    await f.reconciler.run();

    const discarded = await f.reconciler.discardOrphan({ path: dir });
    assert.equal(discarded.savedRef, `refs/parallel-agents/saved/${discarded.id}`);
    assert.equal(discarded.worktreePresent, false);
    assert.equal(discarded.statusBeforeDiscard, 'stopped');
    assert.equal(fs.existsSync(dir), false);
    assert.equal(f.tip('agents/precious'), undefined);
    const saved = discarded.savedRef!;
    assert.equal(git(f.repo, 'rev-parse', `${saved}^`), tip, 'saved on top of the branch tip: its commits are kept');
    assert.deepEqual(f.treeFiles(saved), ['app.js', 'blob-precious.bin', 'done-precious.txt', 'notes-precious.md']);
    for (const [file, base64] of Object.entries(files)) {
      assert.deepEqual(f.blob(saved, file), Buffer.from(base64, 'base64'), file);
    }

    await f.landing.restore(discarded.id);
    assert.deepEqual(snapshot(dir), files);
    assert.equal(git(dir, 'status', '--porcelain'), status);
    assert.equal(f.tip('agents/precious'), tip);
    assert.equal(f.manager.get(discarded.id).status, 'stopped');
  });

  it('saves every commit of a branch orphan before deleting the branch, and Restore Agent checks it out again', async () => {
    const tip = f.branchOrphan('history');
    await f.reconciler.run();
    const orphan = f.reconciler.orphans()[0];

    const discarded = await f.reconciler.discardOrphan({ branch: 'agents/history' });
    assert.equal(discarded.savedRef, `refs/parallel-agents/saved/${discarded.id}`);
    assert.equal(discarded.status, 'discarded');
    assert.equal(discarded.statusBeforeDiscard, 'stopped');
    assert.equal(discarded.worktreePresent, false);
    assert.equal(discarded.worktreePath, orphan.path);
    assert.equal(discarded.baseSha, git(f.repo, 'rev-parse', 'HEAD'));
    assert.deepEqual(f.manager.get(discarded.id), discarded);
    assert.equal(f.tip('agents/history'), undefined);
    const saved = discarded.savedRef!;
    assert.equal(git(f.repo, 'rev-parse', `${saved}^`), tip);
    assert.equal(git(f.repo, 'rev-parse', `${saved}^{tree}`), git(f.repo, 'rev-parse', `${tip}^{tree}`));
    assert.match(
      git(f.repo, 'log', '-1', '--format=%B', saved),
      /^Parallel Agents: branch agents\/history saved before deleting it/,
    );
    assert.deepEqual(f.blob(saved, 'second-history.bin'), binaryOf('history'));
    assert.equal(f.blob(saved, 'first-history.txt').toString(), 'first of history\n');

    await f.landing.restore(discarded.id);
    assert.equal(git(orphan.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'agents/history');
    assert.equal(f.tip('agents/history'), tip);
    assert.equal(git(orphan.path, 'status', '--porcelain'), '');
    assert.deepEqual(fs.readFileSync(path.join(orphan.path, 'second-history.bin')), binaryOf('history'));
    assert.equal(git(f.repo, 'rev-list', '--count', `${git(f.repo, 'rev-parse', 'HEAD')}..agents/history`), '2');
  });
});
