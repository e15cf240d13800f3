// Which workspace folder Dispatch Agent works on, decided with the real git binary on real folders:
// repositories, a subfolder of one, a repository without commits, a plain folder, a bare
// repository, a folder that does not exist.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chooseFolder, isRepository, type WorkspaceFolderInfo } from '../../src/core/worktrees/folderChoice';
import { NodeGit } from '../../src/node/git/createGit';
import { git } from './managerFixture';

describe('folder choice for Dispatch Agent (real git, real folders)', function () {
  this.timeout(30_000);
  const service = new NodeGit();
  let tmp: string;
  const folder = (name: string): WorkspaceFolderInfo => ({ name, path: path.join(tmp, name) });

  function repository(name: string, commit = true): WorkspaceFolderInfo {
    const f = folder(name);
    fs.mkdirSync(f.path, { recursive: true });
    git(f.path, 'init', '-q', '-b', 'main');
    if (commit) {
      fs.writeFileSync(path.join(f.path, 'README.md'), `# ${name}\n`);
      git(f.path, 'add', '.');
      git(f.path, 'commit', '-q', '-m', 'init');
    }
    return f;
  }

  function plain(name: string): WorkspaceFolderInfo {
    const f = folder(name);
    fs.mkdirSync(f.path, { recursive: true });
    fs.writeFileSync(path.join(f.path, 'notes.txt'), 'not versioned\n');
    return f;
  }

  beforeEach(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'pa-folders-')));
    // A temp folder could sit inside some repository: the checks below need one that does not.
    assert.equal(fs.existsSync(path.join(tmp, '.git')), false);
  });

  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('no folder: says so', async () => {
    assert.deepEqual(await chooseFolder(service, []), { kind: 'noFolder' });
  });

  it('the only repository among other folders is chosen without asking', async () => {
    const notes = plain('notes');
    const app = repository('app');
    assert.deepEqual(await chooseFolder(service, [notes, app]), { kind: 'chosen', folder: app });
  });

  it('several repositories: asks among them only, in workspace order (a subfolder of a repository and one without commits count)', async () => {
    const web = repository('web');
    const docs = plain('docs');
    const api = repository('api');
    const sub = folder('api/src');
    fs.mkdirSync(sub.path);
    const fresh = repository('fresh', false);
    assert.deepEqual(await chooseFolder(service, [web, docs, api, sub, fresh]), {
      kind: 'ask',
      folders: [web, api, sub, fresh],
    });
  });

  it('no repository among the folders (plain, bare, missing): refused, and nothing is created', async () => {
    const notes = plain('notes');
    const bare = folder('bare.git');
    git(tmp, 'init', '-q', '--bare', bare.path);
    const missing = folder('gone');
    const choice = await chooseFolder(service, [notes, bare, missing]);
    assert.deepEqual(choice, { kind: 'noRepository', folders: [notes, bare, missing] });
    assert.deepEqual(fs.readdirSync(notes.path), ['notes.txt'], 'no .git made in the plain folder');
    assert.equal(fs.existsSync(missing.path), false, 'the missing folder is not created');
    assert.deepEqual(fs.readdirSync(tmp).sort(), ['bare.git', 'notes']);
  });

  it('a folder given by the caller is checked the same way', async () => {
    assert.equal(await isRepository(service, repository('app').path), true);
    assert.equal(await isRepository(service, plain('notes').path), false);
  });

  it('git itself missing is not mistaken for "not a repository"', async () => {
    const broken = new NodeGit({ binary: path.join(tmp, 'no-such-git') });
    await assert.rejects(
      chooseFolder(broken, [repository('app')]),
      (e: Error & { reason?: string }) => e.reason === 'gitNotFound',
    );
  });
});
