// The Node watcher of agent worktrees on real folders: changed paths reported, a budget of watches
// kept, and — when the system refuses watches — the change tracker still updating by polling.
// The refusal comes from a watch factory that fails after a few watches: lowering
// fs.inotify.max_user_watches would need root and would starve every other program on the machine.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangedFile } from '../../src/core/agent';
import { ChangeTracker } from '../../src/core/agents/changeTracker';
import { NodeGit } from '../../src/node/git/createGit';
import { NodeFolderWatcher, inotifyWatchLimit } from '../../src/node/watch/nodeFolderWatcher';
import type { WatchDir } from '../../src/node/watch/treeWatch';
import { Limiter } from '../../src/util/limiter';
import { git } from './managerFixture';

const quiet = { info() {}, warn() {}, error() {} };

async function until(what: string, test: () => boolean, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A repository with folders a/, b/, …, each holding one file and a subfolder. */
async function makeRepo(folders: string[]): Promise<{ dir: string; base: string }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'pa-watch-')));
  git(dir, 'init', '-q', '-b', 'main');
  for (const f of folders) {
    await mkdir(join(dir, f, 'sub'), { recursive: true });
    await writeFile(join(dir, f, 'file.txt'), `${f}\n`);
    await writeFile(join(dir, f, 'sub', 'inner.txt'), `${f} inner\n`);
  }
  git(dir, 'add', '--all');
  git(dir, 'commit', '-q', '-m', 'base');
  return { dir, base: git(dir, 'rev-parse', 'HEAD').trim() };
}

const realWatch: WatchDir = (dir, listener) => fs.watch(dir, { persistent: false }, listener);

describe('NodeFolderWatcher (real folders)', function () {
  this.timeout(30_000);
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) {
      await c();
    }
  });

  it('reads the system limit and takes a tenth of it by default', function () {
    const limit = inotifyWatchLimit();
    if (limit === undefined) {
      this.skip(); // not Linux
    }
    const watcher = new NodeFolderWatcher();
    assert.equal(watcher.budget, Math.floor(limit! / 10));
  });

  it('reports the paths written, in folders it watches and in folders made later', async () => {
    const { dir } = await makeRepo(['a', 'b']);
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const watcher = new NodeFolderWatcher({ recursive: false, budget: 100 });
    const seen: string[] = [];
    const watch = watcher.watch(dir, (paths) => seen.push(...(paths ?? ['<unknown>'])));
    cleanup.push(() => watch.dispose());
    await until('every folder watched', () => watch.complete === true);
    assert.equal(watcher.used, 6, 'root, a, a/sub, b, b/sub and .git (for its index and HEAD)');
    await writeFile(join(dir, 'a', 'sub', 'inner.txt'), 'changed\n');
    await until('the deep write', () => seen.includes('a/sub/inner.txt'));
    await mkdir(join(dir, 'fresh'));
    await until('the new folder watched', () => watcher.used === 7);
    await writeFile(join(dir, 'fresh', 'new.txt'), 'new\n');
    await until('a write in the new folder', () => seen.includes('fresh/new.txt'));
    await mkdir(join(dir, '.git', 'x'), { recursive: true }).catch(() => undefined);
    assert.ok(!seen.some((p) => p.startsWith('.git')), 'nothing under .git is reported');
    assert.ok(!seen.includes('<unknown>'));
    git(dir, 'add', '--all'); // staging changes the change set with no file written: "unknown", a full recompute
    await until('the index change', () => seen.includes('<unknown>'));
    watch.dispose();
    assert.equal(watcher.used, 0);
  });

  it('keeps to its budget, shallow folders first, and watches the folders of changed files when asked', async () => {
    const { dir } = await makeRepo(['a', 'b', 'c', 'd']);
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const watcher = new NodeFolderWatcher({ recursive: false, budget: 5 });
    const seen: string[] = [];
    const watch = watcher.watch(dir, (paths) => seen.push(...(paths ?? [])));
    cleanup.push(() => watch.dispose());
    await until('the budget used', () => watcher.used === 5);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(watcher.used, 5);
    assert.equal(watch.complete, false, 'four subfolders are left unwatched');
    watch.focus!(['c/sub/inner.txt']);
    assert.equal(watcher.used, 5, 'a shallower watch gave way');
    await writeFile(join(dir, 'c', 'sub', 'inner.txt'), 'changed\n');
    await until('the write in the focused folder', () => seen.includes('c/sub/inner.txt'));
    // A second tree halves each one's share.
    const other = await makeRepo(['x']);
    cleanup.push(() => rm(other.dir, { recursive: true, force: true }));
    const second = watcher.watch(other.dir, () => undefined);
    cleanup.push(() => second.dispose());
    await until('both trees within the budget', () => watcher.used <= 5 && watcher.used >= 4);
  });

  it('falls back to polling when the system refuses watches, tells once, and the tree still updates', async () => {
    const first = await makeRepo(['a', 'b', 'c']);
    const second = await makeRepo(['x', 'y']);
    cleanup.push(() => rm(first.dir, { recursive: true, force: true }));
    cleanup.push(() => rm(second.dir, { recursive: true, force: true }));
    let allowed = 3;
    const refusing: WatchDir = (dir, listener) => {
      if (allowed-- <= 0) {
        throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${dir}'`), {
          code: 'ENOSPC',
        });
      }
      return realWatch(dir, listener);
    };
    const told: string[] = [];
    const watcher = new NodeFolderWatcher({
      recursive: false,
      budget: 1000,
      watchDir: refusing,
      onExhausted: (e) => told.push(e.code ?? ''),
      retryMs: 60_000,
    });
    const service = new NodeGit();
    const published = new Map<string, ChangedFile[]>();
    const tracker = new ChangeTracker(
      watcher,
      (f) => service.changeSet(f.cwd, f.baseSha),
      (id, files) => published.set(id, files),
      quiet,
      20,
      {
        computePaths: (f, paths) => service.changeSetOf(f.cwd, f.baseSha, paths),
        limiter: new Limiter(2),
        pollMs: { min: 150, max: 600 },
      },
    );
    cleanup.push(() => watcher.dispose());
    cleanup.push(() => tracker.dispose());
    tracker.setRunning('one', true);
    tracker.setRunning('two', true);
    tracker.track('one', { cwd: first.dir, baseSha: first.base });
    tracker.track('two', { cwd: second.dir, baseSha: second.base });
    await until('both first change sets', () => published.has('one') && published.has('two'));
    assert.ok(watcher.used <= 3, `at most the 3 watches the system gave (${watcher.used})`);
    assert.deepEqual(told, ['ENOSPC'], 'told once, for both trees');

    // Writes where no watch sees them still reach the change sets, through the poll.
    await writeFile(join(first.dir, 'c', 'sub', 'inner.txt'), 'agent wrote this\n');
    await writeFile(join(second.dir, 'y', 'sub', 'new.txt'), 'new file\n');
    await until('the first tree updated', () => published.get('one')!.some((f) => f.path === 'c/sub/inner.txt'));
    await until('the second tree updated', () => published.get('two')!.some((f) => f.path === 'y/sub/new.txt'));
    assert.equal(published.get('two')!.find((f) => f.path === 'y/sub/new.txt')?.kind, 'untracked');

    // The agent ended: no more polling (the end's own refresh is the caller's).
    tracker.setRunning('one', false);
    await new Promise((r) => setTimeout(r, 400)); // a poll already under way publishes once more
    const before = published.get('one');
    await writeFile(join(first.dir, 'b', 'sub', 'inner.txt'), 'after the end\n');
    await new Promise((r) => setTimeout(r, 800));
    assert.equal(published.get('one'), before, 'nothing polled once the agent ended');
    assert.deepEqual(told, ['ENOSPC'], 'still told only once');
  });
});
