import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deleteFoldersApart } from '../../src/node/deleteApart';

function tree(root: string, name: string): string {
  const dir = path.join(root, name);
  for (let d = 0; d < 3; d++) {
    fs.mkdirSync(path.join(dir, `d${d}`, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(dir, `d${d}`, 'deep', 'f.txt'), 'x');
    fs.writeFileSync(path.join(dir, `d${d}`, 'g.txt'), 'y');
  }
  fs.symlinkSync(root, path.join(dir, 'link-to-parent'));
  return dir;
}

describe('deleteFoldersApart (worktree files deleted by a child process)', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-delete-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('deletes every folder named, contents and all, and nothing beside them; a symbolic link is not followed', async () => {
    const a = tree(root, 'a');
    const b = tree(root, 'b with spaces');
    const kept = tree(root, 'kept');
    assert.equal(await deleteFoldersApart([a, b, path.join(root, 'missing')]), 'apart');
    assert.equal(fs.existsSync(a), false);
    assert.equal(fs.existsSync(b), false);
    assert.equal(fs.existsSync(path.join(kept, 'd0', 'deep', 'f.txt')), true);
    assert.deepEqual(fs.readdirSync(root), ['kept']);
  });

  it('when the child cannot start, the folders are deleted here: nothing is left', async () => {
    const a = tree(root, 'a');
    assert.equal(await deleteFoldersApart([a], path.join(root, 'no-such-runtime')), 'here');
    assert.equal(fs.existsSync(a), false);
  });

  it('nothing to delete starts nothing and resolves', async () => {
    assert.equal(await deleteFoldersApart([], path.join(root, 'no-such-runtime')), 'none');
    assert.deepEqual(fs.readdirSync(root), []);
  });
});
