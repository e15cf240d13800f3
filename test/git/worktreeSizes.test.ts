import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { summarizeWorktrees, WorktreeSizes } from '../../src/core/usage';
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
});
