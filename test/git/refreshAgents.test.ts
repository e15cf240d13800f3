// Refresh Agents on a real AgentManager (real git worktrees, the extension's Node watcher): once
// the command has answered, every agent whose files changed shows its exact change set; a change
// the watcher missed (its events dropped, as when the system's event queue overflows) shows once
// the background pass that follows the command has run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord, ChangedFile } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { FolderWatcher } from '../../src/core/ports';
import { NodeGit } from '../../src/node/git/createGit';
import { NodeFolderWatcher } from '../../src/node/watch/nodeFolderWatcher';
import { RefreshAll } from '../../src/ui/commands/refreshAll';
import { agentRecord } from '../unit/agentRecords';
import { ManagerFixture, git } from './managerFixture';

/** The extension's watcher, with the paths it reported per folder kept for the test to wait on. */
class SeenWatcher implements FolderWatcher {
  readonly inner = new NodeFolderWatcher();
  readonly seen = new Map<string, Set<string>>();
  /** Drops every event: what the watcher misses. */
  deaf = false;
  watch(folder: string, onChange: (paths?: readonly string[]) => void) {
    return this.inner.watch(folder, (paths) => {
      if (this.deaf) {
        return;
      }
      const seen = this.seen.get(folder) ?? new Set<string>();
      this.seen.set(folder, seen);
      (paths ?? ['(unknown)']).forEach((p) => seen.add(p));
      onChange(paths);
    });
  }
}

async function until(what: () => string, test: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) {
      throw new Error(`timed out waiting for ${what()}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

const summary = (files: readonly ChangedFile[]) =>
  files.map((f) => `${f.kind}:${f.path}${f.oldPath ? `<${f.oldPath}` : ''}:+${f.added ?? '-'}`).sort();

describe('Refresh Agents (real AgentManager, real worktrees and watcher)', function () {
  this.timeout(60_000);
  let fixture: ManagerFixture;
  let manager: AgentManager;
  let watcher: SeenWatcher;
  let refreshAll: RefreshAll;
  let records: AgentRecord[];

  beforeEach(async () => {
    fixture = new ManagerFixture({ 'src/a.txt': 'a\nb\n', 'src/b.txt': 'b\n', 'README.md': '# r\n' });
    const base = git(fixture.repo, 'rev-parse', 'HEAD');
    records = ['one', 'two', 'three'].map((id) => {
      const cwd = path.join(fixture.tmp, 'worktrees', id);
      git(fixture.repo, 'worktree', 'add', '-q', '-b', `agents/${id}`, cwd, base);
      fs.writeFileSync(path.join(cwd, 'src', 'a.txt'), `a\nb\n${id}\n`);
      return agentRecord(id, {
        status: 'succeeded',
        repoRoot: fixture.repo,
        cwd,
        worktreePath: cwd,
        worktreePresent: true,
        baseSha: base,
      });
    });
    await fixture.store.save(records);
    watcher = new SeenWatcher();
    manager = fixture.manager({ watcher: fixture.git.freshness.watching(watcher) });
    refreshAll = new RefreshAll({
      list: () => manager.list(),
      refreshChanges: (id) => manager.refreshChanges(id),
      refreshSeen: (id) => manager.refreshSeen(id),
      unchanged: (cwd, sha) => fixture.git.freshness.unchanged(cwd, sha),
    });
    manager.resume();
    await Promise.all(records.map((r) => manager.refreshChanges(r.id)));
  });

  afterEach(async () => {
    refreshAll.dispose();
    await fixture.dispose();
  });

  /** What a new computation, by a git that never saw these folders, gives for each agent. */
  const truth = async () => {
    const fresh = new NodeGit();
    return Promise.all(records.map(async (r) => summary(await fresh.changeSet(r.cwd, r.baseSha!))));
  };
  const shown = () => records.map((r) => summary(manager.get(r.id).changedFiles));
  /** Writes files of two agents and waits until the watcher reported each. */
  const write = async (files: Record<string, Record<string, string>>) => {
    for (const [id, texts] of Object.entries(files)) {
      const cwd = records.find((r) => r.id === id)!.cwd;
      for (const [rel, text] of Object.entries(texts)) {
        fs.mkdirSync(path.dirname(path.join(cwd, rel)), { recursive: true });
        fs.writeFileSync(path.join(cwd, rel), text);
      }
    }
    await until(
      () => `the watcher to report every write: ${JSON.stringify([...watcher.seen].map(([k, v]) => [k, [...v]]))}`,
      () =>
        Object.entries(files).every(([id, texts]) => {
          const seen = watcher.seen.get(records.find((r) => r.id === id)!.cwd);
          // A new folder is reported as itself: it covers what is written under it.
          return Object.keys(texts).every((rel) =>
            rel.split('/').some((_, i, parts) => seen?.has(parts.slice(0, i + 1).join('/'))),
          );
        }),
    );
  };

  it('shows the exact change set of every changed agent when the command answers', async () => {
    assert.deepEqual(shown(), [['modified:src/a.txt:+1'], ['modified:src/a.txt:+1'], ['modified:src/a.txt:+1']]);
    await write({
      one: { 'src/b.txt': 'b\nmore\nlines\n', 'notes/new.md': 'new\n' },
      three: { 'src/a.txt': 'a\n', 'docs/x.md': 'x\ny\n' },
    });
    assert.deepEqual(await refreshAll.run(), { refreshed: 2, deferred: 1 });
    const expected = [
      ['modified:src/a.txt:+1', 'modified:src/b.txt:+2', 'untracked:notes/new.md:+1'],
      ['modified:src/a.txt:+1'],
      ['modified:src/a.txt:+0', 'untracked:docs/x.md:+2'],
    ];
    assert.deepEqual(shown(), expected, 'right after Refresh Agents answered');
    assert.deepEqual(await truth(), expected);
    await refreshAll.settled();
    assert.deepEqual(shown(), expected, 'the background pass changes nothing');
  });

  it('shows a stage at once (its git folder is watched too), and what the watcher missed after the background pass', async () => {
    const two = records[1];
    const showsTwo = (files: string[]) =>
      until(
        () => `agent two to show ${files.join(', ')}: ${shown()[1].join(', ')}`,
        () => JSON.stringify(shown()[1]) === JSON.stringify(files),
      );
    await write({ two: { 'notes/todo.md': 'todo\n' } });
    await showsTwo(['modified:src/a.txt:+1', 'untracked:notes/todo.md:+1']); // the watcher's own pass
    git(two.cwd, 'add', 'notes/todo.md'); // writes only the index, in the main repository's .git
    await until(
      () => 'the watcher to report the index',
      () => watcher.seen.get(two.cwd)?.has('(unknown)') === true,
    );
    await refreshAll.run();
    assert.deepEqual(shown()[1], ['added:notes/todo.md:+1', 'modified:src/a.txt:+1'], 'the stage, at once');
    await refreshAll.settled();

    // Missed: a write (no event, same index and HEAD: taken as unchanged, left to the background pass).
    watcher.deaf = true;
    fs.writeFileSync(path.join(two.cwd, 'src', 'b.txt'), 'b\nc\n');
    assert.deepEqual(await refreshAll.run(), { refreshed: 0, deferred: 3 });
    assert.deepEqual(shown()[1], ['added:notes/todo.md:+1', 'modified:src/a.txt:+1'], 'not seen by the command');
    await refreshAll.settled();
    const withB = ['added:notes/todo.md:+1', 'modified:src/a.txt:+1', 'modified:src/b.txt:+1'];
    assert.deepEqual(shown()[1], withB, 'the background pass');
    assert.deepEqual(shown(), await truth());

    // Missed: a stage after a pass of reported paths alone. The index tells the command the folder
    // changed, but nothing was reported: the command leaves it to the background pass.
    watcher.deaf = false;
    await write({ two: { 'notes/more.md': 'more\n' } });
    await showsTwo([...withB, 'untracked:notes/more.md:+1']);
    watcher.deaf = true;
    git(two.cwd, 'add', 'notes/more.md');
    assert.deepEqual(await refreshAll.run(), { refreshed: 1, deferred: 2 });
    assert.deepEqual(shown()[1], [...withB, 'untracked:notes/more.md:+1'], 'not seen by the command');
    await refreshAll.settled();
    assert.deepEqual(shown()[1], ['added:notes/more.md:+1', ...withB], 'the background pass: the stage too');
    assert.deepEqual(shown(), await truth());
  });
});
