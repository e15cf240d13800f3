import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { cleanupChoices, removeChosenWorktrees, summarizeWorktrees, WorktreeSizes } from '../../src/core/usage';
import { folderBytes, nodeFolderSizes } from '../../src/node/folderSizes';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';

/** Every regular file under dir but the top-level .git, by lstat, counted independently of folderBytes. */
function sumOfFiles(dir: string, rel = ''): number {
  let total = 0;
  for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const file = path.join(rel, entry.name);
    if (rel === '' && entry.name === '.git') {
      continue;
    }
    if (entry.isDirectory()) {
      total += sumOfFiles(dir, file);
    } else if (entry.isFile()) {
      total += fs.lstatSync(path.join(dir, file)).size;
    }
  }
  return total;
}

describe('Worktree sizes and the Worktrees summary, on real git worktrees', function () {
  this.timeout(60000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  const run = (prompt: string, title: string) => fx.ran(manager, prompt, title);

  it('measures a worktree as the sum of its files: no .git file, no linked folder, a hard link once', async () => {
    const agent = await run('create big.bin: ' + 'x'.repeat(5000), 'Sized');
    const dir = agent.worktreePath!;
    assert.ok(fs.statSync(path.join(dir, '.git')).isFile(), 'a linked worktree has a .git file');
    fs.mkdirSync(path.join(dir, 'deep/er'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'deep/er/file.txt'), Buffer.alloc(12345));
    const expected = sumOfFiles(dir);
    assert.ok(expected > 17000, `${expected}`);
    assert.equal(await folderBytes(dir), expected);

    fs.symlinkSync(fx.repo, path.join(dir, 'linked'));
    fs.linkSync(path.join(dir, 'deep/er/file.txt'), path.join(dir, 'hard.txt'));
    assert.equal(await folderBytes(dir), expected, 'a symbolic link is not followed; a hard link counts once');
    await assert.rejects(folderBytes(path.join(fx.tmp, 'nowhere')), /ENOENT/, 'a missing folder has no size');

    const sizes = new WorktreeSizes(nodeFolderSizes);
    const record = manager.get(agent.id);
    assert.equal(sizes.known(record), undefined, 'nothing measured yet');
    assert.equal(await sizes.size(record), expected);
    assert.equal(sizes.known(record), expected, 'cached');
    fs.writeFileSync(path.join(dir, 'top.txt'), Buffer.alloc(1000));
    assert.equal(await sizes.size(record), expected + 1000, 'a new file at the top changes the mtime: measured again');
  });

  it('counts the worktrees and the reclaimable ones (merged, discarded still on disk), then cleans up the largest', async () => {
    const small = await run('create small.txt: s', 'Small merged');
    const large = await run('create large.txt: ' + 'L'.repeat(20000), 'Large merged');
    const open = await run('create open.txt: ' + 'O'.repeat(30000), 'Still open');
    const gone = await run('create gone.txt: g', 'Discarded');
    for (const agent of [small, large]) {
      assert.ok(await landing.commit(agent.id, agent.title));
      assert.equal((await landing.merge(agent.id, 'merge', `Land ${agent.title}`)).kind, 'merged');
    }
    await landing.discard(gone.id);
    assert.equal(manager.get(gone.id).worktreePresent, false, 'Discard removed its worktree');

    const sizes = new WorktreeSizes(nodeFolderSizes);
    const summary = await summarizeWorktrees(manager.list(), sizes);
    assert.equal(summary.count, 3, 'small, large and open have a worktree; the discarded one has none');
    const bytesOf = (id: string) => sumOfFiles(manager.get(id).worktreePath!);
    assert.equal(summary.totalBytes, bytesOf(small.id) + bytesOf(large.id) + bytesOf(open.id));
    assert.deepEqual(
      summary.reclaimable.map((w) => w.record.title),
      ['Large merged', 'Small merged'],
      'the merged ones, largest first; the open one is not reclaimable',
    );
    assert.equal(summary.reclaimableBytes, bytesOf(small.id) + bytesOf(large.id));

    // Clean up the largest, through the path that saves the work first.
    const largest = summary.reclaimable[0].record;
    fs.writeFileSync(path.join(largest.worktreePath!, 'unsaved.txt'), 'not committed');
    await landing.removeMergedWorktree(largest.id);
    assert.equal(fs.existsSync(largest.worktreePath!), false);
    const saved = manager.get(largest.id).savedRef!;
    assert.equal(git(fx.repo, 'show', `${saved}:unsaved.txt`), 'not committed', 'its uncommitted file was saved');

    const after = await summarizeWorktrees(manager.list(), sizes);
    assert.equal(after.count, 2);
    assert.deepEqual(
      after.reclaimable.map((w) => w.record.title),
      ['Small merged'],
    );
  });

  it('Clean Up Largest: merged and discarded worktrees on disk, largest first; removes just the chosen', async () => {
    const sized = (file: string, bytes: number, title: string) => run(`create ${file}: ${'x'.repeat(bytes)}`, title);
    const small = await sized('small.txt', 1000, 'Merged small');
    const mid = await sized('mid.txt', 12000, 'Merged mid');
    const large = await sized('large.txt', 24000, 'Merged large');
    const kept = await sized('kept.txt', 36000, 'Discarded, still on disk');
    const gone = await sized('gone.txt', 48000, 'Discarded by Discard');
    const open = await sized('open.txt', 60000, 'Still open');
    for (const agent of [small, mid, large]) {
      assert.ok(await landing.commit(agent.id, agent.title));
      assert.equal((await landing.merge(agent.id, 'merge', `Land ${agent.title}`)).kind, 'merged');
    }
    await landing.discard(gone.id);
    // Discard removes the worktree; a discarded record whose folder is still there (its removal never
    // happened, as with a record written by an earlier version) counts as reclaimable all the same.
    manager.transition(kept.id, 'discarded', { statusBeforeDiscard: 'succeeded' });
    assert.ok(fs.existsSync(kept.worktreePath!));

    const sizes = new WorktreeSizes(nodeFolderSizes);
    const summary = await summarizeWorktrees(manager.list(), sizes);
    const bytesOf = (id: string) => sumOfFiles(manager.get(id).worktreePath!);
    assert.equal(summary.count, 5, 'all but the one Discard removed');
    assert.deepEqual(
      summary.reclaimable.map((w) => w.record.title),
      ['Discarded, still on disk', 'Merged large', 'Merged mid', 'Merged small'],
      'merged and discarded ones on disk, the largest first; not the open one, not the removed one',
    );
    assert.deepEqual(
      summary.reclaimable.map((w) => w.bytes),
      [kept, large, mid, small].map((r) => bytesOf(r.id)),
    );
    assert.equal(
      summary.reclaimableBytes,
      [kept, large, mid, small].reduce((n, r) => n + bytesOf(r.id), 0),
    );
    assert.deepEqual(
      cleanupChoices(summary).map((c) => [c.record.title, c.picked]),
      [
        ['Discarded, still on disk', true],
        ['Merged large', true],
        ['Merged mid', true],
        ['Merged small', false],
      ],
      'the three largest offered checked',
    );

    // The user keeps the discarded one and the smallest checked (the open one is not offered: left alone).
    fs.writeFileSync(path.join(kept.worktreePath!, 'unsaved.txt'), 'not committed');
    const removedIds: string[] = [];
    const result = await removeChosenWorktrees(summary, [small.id, kept.id, open.id], async (id) => {
      removedIds.push(id);
      await landing.removeMergedWorktree(id);
    });
    assert.deepEqual(removedIds, [kept.id, small.id], 'exactly the chosen ones offered, in the order offered');
    assert.deepEqual(result, { removed: 2, freedBytes: summary.reclaimable[0].bytes! + summary.reclaimable[3].bytes! });
    const registered = git(fx.repo, 'worktree', 'list', '--porcelain');
    for (const r of [kept, small]) {
      assert.equal(fs.existsSync(r.worktreePath!), false, `${r.title}: folder removed`);
      assert.ok(!registered.includes(r.worktreePath!), `${r.title}: registration removed`);
      assert.equal(manager.get(r.id).worktreePresent, false);
    }
    for (const r of [mid, large, open]) {
      assert.ok(fs.existsSync(path.join(r.worktreePath!, '.git')), `${r.title}: untouched`);
      assert.ok(registered.includes(r.worktreePath!));
    }
    assert.deepEqual(
      [kept, small].map((r) => manager.get(r.id).status),
      ['discarded', 'merged'],
      'the agents stay listed as they were',
    );
    assert.equal(manager.list().length, 6);
    const saved = manager.get(kept.id).savedRef!;
    assert.equal(git(fx.repo, 'show', `${saved}:unsaved.txt`), 'not committed', 'its uncommitted work was saved first');

    const after = await summarizeWorktrees(manager.list(), sizes);
    assert.equal(after.count, 3);
    assert.deepEqual(
      cleanupChoices(after).map((c) => [c.record.title, c.picked]),
      [
        ['Merged large', true],
        ['Merged mid', true],
      ],
    );
  });
});
