// Refresh of every agent skips, at first, the agents whose folders are as they were at their last
// computation (ChangeFreshness, node/git/changeFreshness.ts). Real git worktrees: what is taken as
// unchanged must give exactly the change set a new computation gives, for every kind of change;
// an event, a stage, a commit, a checkout or another base must make it stale.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangedFile } from '../../src/core/agent';
import type { FolderWatcher } from '../../src/core/ports';
import { gitStateStamp } from '../../src/node/git/changeFreshness';
import { NodeGit } from '../../src/node/git/createGit';
import { RefreshAll } from '../../src/ui/commands/refreshAll';
import { git } from './managerFixture';

/** A watcher whose events the test sends (the real one is VS Code's). */
class HandWatcher implements FolderWatcher {
  readonly listeners = new Map<string, () => void>();
  /** What the watches say: false as when a budget or exhausted watches leave folders unwatched. */
  complete: boolean | undefined = undefined;
  watch(folder: string, onChange: () => void) {
    this.listeners.set(folder, onChange);
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const watcher = this;
    return {
      get complete() {
        return watcher.complete;
      },
      dispose: () => this.listeners.delete(folder),
    };
  }
  fire(folder: string): void {
    this.listeners.get(folder)?.();
  }
}

const sorted = (files: readonly ChangedFile[]) => [...files].sort((a, b) => (a.path < b.path ? -1 : 1));

describe('ChangeFreshness (real git worktrees)', function () {
  this.timeout(30_000);
  let tmp: string;
  let repo: string;
  let base: string;
  let worktree: string;

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-fresh-')));
    repo = path.join(tmp, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    for (const [rel, text] of Object.entries({
      'src/a.txt': 'a\nb\nc\n',
      'src/gone.txt': 'to delete\n',
      'src/old-name.txt': 'a file that is renamed\nwith lines\nenough to match\n',
      'logo.bin': '\0\x01binary',
    })) {
      fs.writeFileSync(path.join(repo, rel), text);
    }
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    base = git(repo, 'rev-parse', 'HEAD');
    worktree = path.join(tmp, 'wt');
    git(repo, 'worktree', 'add', '-q', '-b', 'agents/one', worktree, base);
    // Every kind of change an agent leaves.
    fs.appendFileSync(path.join(worktree, 'src/a.txt'), 'd\n');
    fs.rmSync(path.join(worktree, 'src/gone.txt'));
    git(worktree, 'mv', 'src/old-name.txt', 'src/new-name.txt');
    fs.writeFileSync(path.join(worktree, 'src/added.txt'), 'staged\n');
    git(worktree, 'add', 'src/added.txt');
    fs.writeFileSync(path.join(worktree, 'notes.md'), 'untracked\ntext\n');
    fs.writeFileSync(path.join(worktree, 'image.bin'), Buffer.from([0x89, 0, 1, 2]));
    fs.writeFileSync(path.join(worktree, 'logo.bin'), Buffer.from([0, 9, 9, 9]));
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  function watched(): { nodeGit: NodeGit; watcher: HandWatcher; dispose: () => void } {
    const nodeGit = new NodeGit();
    const watcher = new HandWatcher();
    const watch = nodeGit.freshness.watching(watcher).watch(worktree, () => undefined);
    return { nodeGit, watcher, dispose: () => watch.dispose() };
  }

  it('never takes a folder as unchanged while part of it goes unwatched (its writes there make no event)', async () => {
    const { nodeGit, watcher } = watched();
    await nodeGit.changeSet(worktree, base);
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), true, 'fully watched, computed, no event since');
    watcher.complete = false;
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), false, 'not every folder watched');
    watcher.complete = true;
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), true);
  });

  it('takes a computed folder as unchanged, and its change set is what a new computation gives', async () => {
    const { nodeGit } = watched();
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), false, 'never computed');
    const first = await nodeGit.changeSet(worktree, base);
    assert.deepEqual(
      first.map((f) => `${f.kind}:${f.path}${f.binary ? ':binary' : ''}`).sort(),
      [
        'modified:logo.bin:binary',
        'untracked:image.bin:binary',
        'untracked:notes.md',
        'added:src/added.txt',
        'modified:src/a.txt',
        'deleted:src/gone.txt',
        'renamed:src/new-name.txt',
      ].sort(),
    );
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), true);
    // Another computation of the same folder, by a runner that never saw it: the same set.
    assert.deepEqual(sorted(await new NodeGit().changeSet(worktree, base)), sorted(first));
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), true, 'computing does not touch the index');
  });

  it('is stale after a file event, until computed again', async () => {
    const { nodeGit, watcher } = watched();
    await nodeGit.changeSet(worktree, base);
    fs.writeFileSync(path.join(worktree, 'notes.md'), 'changed\n');
    watcher.fire(worktree);
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), false);
    await nodeGit.changeSet(worktree, base);
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), true);
  });

  it('is stale after a stage, a commit, a checkout, or against another base', async () => {
    const { nodeGit } = watched();
    const steps: [string, () => void][] = [
      ['stage', () => git(worktree, 'add', 'notes.md')],
      ['commit', () => git(worktree, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'work')],
      ['checkout', () => git(worktree, 'checkout', '-q', '-b', 'agents/two')],
      ['reset of the branch', () => git(worktree, 'reset', '-q', '--soft', 'HEAD~1')],
    ];
    for (const [what, step] of steps) {
      await nodeGit.changeSet(worktree, base);
      assert.equal(await nodeGit.freshness.unchanged(worktree, base), true, `before the ${what}`);
      step(); // no file event sent: the git state alone tells
      assert.equal(await nodeGit.freshness.unchanged(worktree, base), false, `after the ${what}`);
    }
    await nodeGit.changeSet(worktree, base);
    assert.equal(await nodeGit.freshness.unchanged(worktree, git(repo, 'rev-parse', 'HEAD')), true);
    const commit = git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'n');
    assert.equal(commit, '');
    assert.equal(await nodeGit.freshness.unchanged(worktree, git(repo, 'rev-parse', 'HEAD')), false, 'another base');
  });

  it('never takes an unwatched folder, or one without its own .git, as unchanged', async () => {
    const { nodeGit, dispose } = watched();
    await nodeGit.changeSet(worktree, base);
    dispose();
    assert.equal(await nodeGit.freshness.unchanged(worktree, base), false, 'watch disposed');
    const sub = path.join(worktree, 'src');
    nodeGit.freshness.watching(new HandWatcher()).watch(sub, () => undefined);
    await nodeGit.changeSet(sub, base);
    assert.equal(await gitStateStamp(sub), undefined);
    assert.equal(await nodeGit.freshness.unchanged(sub, base), false);
  });

  it('stamps the main worktree too, from its .git folder', async () => {
    const stamp = await gitStateStamp(repo);
    assert.ok(stamp?.startsWith('ref: refs/heads/main|'), stamp);
    fs.writeFileSync(path.join(repo, 'x.txt'), 'x\n');
    git(repo, 'add', 'x.txt');
    assert.notEqual(await gitStateStamp(repo), stamp);
  });

  it('Refresh of every agent recomputes the stale ones first and the others after', async () => {
    const { nodeGit, watcher } = watched();
    await nodeGit.changeSet(worktree, base);
    const records = [
      { id: 'fresh', cwd: worktree, baseSha: base },
      { id: 'stale', cwd: worktree, baseSha: `${base.slice(0, 39)}${base.endsWith('0') ? '1' : '0'}` },
      { id: 'removed', cwd: worktree, baseSha: base, worktreePresent: false },
    ];
    const order: string[] = [];
    const refresh = new RefreshAll({
      list: () => records as never,
      refreshChanges: async (id) => {
        order.push(id);
      },
      unchanged: (cwd, sha) => nodeGit.freshness.unchanged(cwd, sha),
    });
    assert.deepEqual(await refresh.run(), { refreshed: 2, deferred: 1 });
    assert.deepEqual(order, ['stale', 'removed'], 'the command waits for these only');
    await refresh.settled();
    assert.deepEqual(order, ['stale', 'removed', 'fresh'], 'the background pass recomputes the rest');
    watcher.fire(worktree);
    order.length = 0;
    assert.deepEqual(await refresh.run(), { refreshed: 3, deferred: 0 });
  });
});
