// Review progress with real git and a real demo agent: files marked viewed keep the stamp of the
// agent's version; a file the agent changes again, or no longer changes, comes back unviewed.
import * as assert from 'node:assert/strict';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import { reviewOrder, reviewQueue, viewedCount } from '../../src/core/review';
import { git, ManagerFixture } from './managerFixture';

describe('review progress: viewed marks follow the agent’s files (real git, real agent)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;

  beforeEach(() => {
    fx = new ManagerFixture();
    manager = fx.manager();
  });

  afterEach(() => fx.dispose());

  async function agent(prompt: string, title: string) {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title });
    return fx.finished(manager, record.id);
  }

  it('marks files with their blob hash (a deletion as deleted), and unmarks a file the agent changes again', async () => {
    const a = await agent('create notes.md: one\nreplace app.js: hi => hello\ndelete README.md', 'Marks');
    assert.deepEqual(a.changedFiles.map((f) => f.path).sort(), ['README.md', 'app.js', 'notes.md']);
    await manager.markViewed(a.id, ['notes.md', 'README.md'], true);
    assert.deepEqual(manager.get(a.id).viewedFiles, {
      'notes.md': git(a.cwd, 'hash-object', 'notes.md'),
      'README.md': 'deleted',
    });
    assert.deepEqual(viewedCount(manager.get(a.id)), { viewed: 2, total: 3 });
    assert.deepEqual(
      reviewOrder(manager.get(a.id)).map((f) => f.path),
      ['app.js', ...a.changedFiles.map((f) => f.path).filter((p) => p !== 'app.js')],
      'the file not viewed comes first, the others keep their order',
    );
    await manager.markViewed(a.id, ['app.js'], true);
    assert.equal(manager.get(a.id).viewedFiles?.['app.js'], git(a.cwd, 'hash-object', 'app.js'));

    await manager.followUp(a.id, 'replace notes.md: one => two');
    await fx.finished(manager, a.id);
    assert.deepEqual(
      manager.get(a.id).viewedFiles,
      { 'app.js': git(a.cwd, 'hash-object', 'app.js'), 'README.md': 'deleted' },
      'notes.md changed again: unviewed; the others stay viewed',
    );

    await manager.followUp(a.id, 'replace app.js: hello => hi');
    await fx.finished(manager, a.id);
    assert.equal(
      manager.get(a.id).changedFiles.some((f) => f.path === 'app.js'),
      false,
    );
    assert.deepEqual(
      manager.get(a.id).viewedFiles,
      { 'README.md': 'deleted' },
      'a file no longer changed loses its mark',
    );

    await manager.markViewed(a.id, ['README.md'], false);
    assert.deepEqual(manager.get(a.id).viewedFiles, {});
  });

  it('refuses to mark a file the agent did not change, changing nothing', async () => {
    const a = await agent('create notes.md: one', 'Refuse');
    await manager.markViewed(a.id, ['notes.md'], true);
    const before = manager.get(a.id).viewedFiles;
    await assert.rejects(manager.markViewed(a.id, ['notes.md', 'app.js'], true), (e) => {
      assert.ok(AgentError.isCode(e, 'changeGone'), String(e));
      assert.deepEqual(e.data, { title: 'Refuse', path: 'app.js' });
      return true;
    });
    assert.deepEqual(manager.get(a.id).viewedFiles, before);
  });

  it('queues finished agents with unviewed files for review, the first finished first', async () => {
    const first = await agent('create one.md: 1', 'First');
    const second = await agent('create two.md: 2', 'Second');
    const quiet = await agent('sleep 0', 'Nothing changed');
    assert.equal(quiet.changedFiles.filter((f) => f.path !== 'AGENT_NOTES.md').length, 0);
    const ids = () => reviewQueue(manager.list()).map((r) => r.id);
    assert.deepEqual(ids().slice(0, 2), [first.id, second.id]);
    await manager.markViewed(
      first.id,
      manager.get(first.id).changedFiles.map((f) => f.path),
      true,
    );
    assert.equal(ids().includes(first.id), false, 'an agent whose files are all viewed waits no more');
    assert.equal(ids()[0], second.id);
  });

  it('hashFiles gives undefined for a file that does not exist, and the hash of the others', async () => {
    const hashes = await fx.git.hashFiles(fx.repo, ['app.js', 'missing.txt', 'README.md']);
    assert.deepEqual(hashes, [
      git(fx.repo, 'hash-object', 'app.js'),
      undefined,
      git(fx.repo, 'hash-object', 'README.md'),
    ]);
    assert.deepEqual(await fx.git.hashFiles(fx.repo, []), []);
  });
});
