// Incremental change sets (only the paths a watcher names, merged into the previous set) against a
// full recompute, with the real git binary on a temp repository.
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangedFile } from '../../src/core/agent';
import { incrementalScope, mergeChanges } from '../../src/core/agents/changeMerge';
import { NodeGit } from '../../src/node/git/createGit';
import { git } from './managerFixture';

describe('incremental change sets (real git)', function () {
  this.timeout(30_000);
  const service = new NodeGit();
  let dir: string;
  let base: string;

  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'pa-incr-')));
    git(dir, 'init', '-q', '-b', 'main');
    await mkdir(join(dir, 'src', 'deep'), { recursive: true });
    await mkdir(join(dir, 'docs'));
    await writeFile(join(dir, '.gitignore'), 'build/\n');
    for (let i = 0; i < 5; i++) {
      await writeFile(join(dir, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
      await writeFile(join(dir, 'docs', `d${i}.md`), `# doc ${i}\n`);
    }
    await writeFile(join(dir, 'src', 'deep', 'a.ts'), 'deep\n'.repeat(30));
    await writeFile(join(dir, 'star*?[x].txt'), 'glob-looking name\n');
    await writeFile(join(dir, ':colon.txt'), 'magic-looking name\n');
    git(dir, 'add', '--all');
    git(dir, 'commit', '-q', '-m', 'base');
    base = git(dir, 'rev-parse', 'HEAD').trim();
  });

  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Applies `step`, then checks that merging what changed in `paths` gives the full set. */
  async function check(previous: ChangedFile[], paths: string[], what: string): Promise<ChangedFile[]> {
    const scope = incrementalScope(previous, paths);
    const incremental = mergeChanges(previous, scope, await service.changeSetOf(dir, base, scope));
    const full = await service.changeSet(dir, base);
    assert.deepEqual(incremental, full, what);
    return full;
  }

  it('equals a full recompute after writes, deletes, renames, new files and reverts', async () => {
    let set = await service.changeSet(dir, base);
    assert.deepEqual(set, []);

    await writeFile(join(dir, 'src', 'f0.ts'), 'changed\n');
    set = await check(set, ['src/f0.ts'], 'a modified file');
    assert.equal(set.length, 1);

    await rm(join(dir, 'docs', 'd1.md'));
    await writeFile(join(dir, 'docs', 'new.md'), 'new\n');
    set = await check(set, ['docs/d1.md', 'docs/new.md'], 'a deleted and an untracked file');
    assert.deepEqual(
      set.map((f) => [f.path, f.kind]),
      [
        ['docs/d1.md', 'deleted'],
        ['docs/new.md', 'untracked'],
        ['src/f0.ts', 'modified'],
      ],
    );

    // A rename git sees (staged): only the new side is named; the old one is a candidate already.
    git(dir, 'mv', 'src/f2.ts', 'src/moved.ts');
    set = await check(set, ['src/f2.ts', 'src/moved.ts'], 'a staged rename');
    assert.ok(set.some((f) => f.kind === 'renamed' && f.oldPath === 'src/f2.ts'));
    await writeFile(join(dir, 'src', 'moved.ts'), `${'export const v2 = 2;\n'.repeat(20)}// edit\n`);
    set = await check(set, ['src/moved.ts'], 'the renamed file edited');

    // A file put back as it was at the base leaves the set.
    await writeFile(join(dir, 'src', 'f0.ts'), `export const v0 = 0;\n`.repeat(20));
    set = await check(set, ['src/f0.ts'], 'a file reverted to base');
    assert.ok(!set.some((f) => f.path === 'src/f0.ts'));

    // A whole folder moved away and a new one made: the watcher names the folders only.
    await rename(join(dir, 'src', 'deep'), join(dir, 'src', 'deeper'));
    set = await check(set, ['src/deep', 'src/deeper'], 'a folder renamed on disk');
    assert.ok(set.some((f) => f.path === 'src/deep/a.ts' && f.kind === 'deleted'));
    assert.ok(set.some((f) => f.path === 'src/deeper/a.ts' && f.kind === 'untracked'));

    // Names that look like pathspec magic are taken literally.
    await writeFile(join(dir, 'star*?[x].txt'), 'changed\n');
    await writeFile(join(dir, ':colon.txt'), 'changed\n');
    set = await check(set, ['star*?[x].txt', ':colon.txt'], 'literal pathspecs');
    assert.ok(set.some((f) => f.path === 'star*?[x].txt'));
    assert.ok(set.some((f) => f.path === ':colon.txt'));
    assert.ok(!set.some((f) => f.path === 'docs/d0.md'), 'no glob matched other files');

    // Ignored files never show; a file deleted from the index but back on disk is modified.
    await mkdir(join(dir, 'build'));
    await writeFile(join(dir, 'build', 'out.js'), 'x\n');
    git(dir, 'rm', '-q', '--cached', 'docs/d3.md');
    set = await check(set, ['build/out.js', 'docs/d3.md'], 'ignored and index-deleted files');
    assert.ok(!set.some((f) => f.path.startsWith('build/')));
    assert.equal(set.find((f) => f.path === 'docs/d3.md')?.kind, 'modified');

    // A commit changes kinds (untracked → added, deleted + untracked → renamed) with no file
    // written: the watcher's git-dir watch asks for a full recompute, after which writes are incremental again.
    git(dir, 'add', '--all');
    git(dir, 'commit', '-q', '-m', 'agent work');
    set = await service.changeSet(dir, base);
    assert.ok(set.some((f) => f.path === 'src/deeper/a.ts' && f.kind === 'renamed'));
    await writeFile(join(dir, 'docs', 'd4.md'), 'after commit\n');
    await check(set, ['docs/d4.md'], 'a write after a commit');
  });

  it('names no other path when the changed one is unknown to git', async () => {
    const set = await check([], ['no/such/file.txt'], 'a path that does not exist');
    assert.deepEqual(set, []);
  });
});
