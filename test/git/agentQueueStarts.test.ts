// A queued agent (parallelAgents.maxConcurrentAgents) that cannot start when its turn comes: its base
// commit was pruned meanwhile, or its profile was removed from the settings. Its record fails with a
// clear error, nothing of it is left (no branch, no worktree, no folder), and the queue goes on with
// the next. Real git, real demo-agent processes under the supervisor.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { Profile } from '../../src/core/clis';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { englishStored } from '../../src/ui/errorText';
import { git, ManagerFixture } from './managerFixture';

describe('a queued agent that cannot start when its turn comes (real git, real agents)', function () {
  this.timeout(90_000);
  let fx: ManagerFixture;
  let profiles: Profile[];
  let manager: AgentManager;

  beforeEach(() => {
    fx = new ManagerFixture();
    const demo = builtinProfiles.find((p) => p.name === 'demo')!;
    profiles = [...builtinProfiles, { ...demo, name: 'demo-copy' }];
    manager = fx.manager({
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, 'logs'), maxConcurrentAgents: 1 }),
      profiles: () => profiles,
    });
  });

  afterEach(() => fx.dispose());

  const dispatch = (prompt: string, title: string, profile = 'demo') =>
    manager.dispatch({ prompt, profile, folder: fx.repo, title });
  const refs = () => git(fx.repo, 'for-each-ref', '--format=%(refname)');
  const worktrees = () => git(fx.repo, 'worktree', 'list', '--porcelain');
  const folders = () => fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).sort();

  /** The failed record names why in words, names no folder or branch of its own, and never started. */
  function assertFailedClearly(record: AgentRecord, words: RegExp): void {
    assert.equal(record.status, 'failed');
    assert.ok(record.error, 'an error on its record');
    assert.match(englishStored(record.error), words);
    assert.equal(record.branch, undefined);
    assert.equal(record.worktreePath, undefined);
    assert.equal(record.worktreePresent, false, 'nothing refreshes or reviews a folder it never had');
    assert.equal(record.cwd, fx.repo);
    assert.equal(record.startedAt, undefined);
    assert.ok(record.endedAt! >= record.createdAt);
    assert.equal(manager.isRunning(record.id), false);
    assert.equal(manager.queuePosition(record.id), undefined);
  }

  /** The queue is not stuck: a dispatch now (nothing live) starts at once. */
  async function assertQueueFree(): Promise<void> {
    const now = await dispatch('create free.txt: free', 'Free');
    assert.notEqual(now.status, 'queued', 'no start is left counted as under way');
    const done = await manager.whenEnded(now.id);
    assert.equal(done.status, 'succeeded', done.error);
  }

  it('its base commit was pruned: it fails naming the commit, leaves nothing, and the next one starts', async () => {
    const first = await dispatch('sleep 3', 'Runner');
    fs.writeFileSync(path.join(fx.repo, 'doomed.txt'), 'soon unreachable\n');
    git(fx.repo, 'add', '.');
    git(fx.repo, 'commit', '-q', '-m', 'to be dropped');
    const dropped = git(fx.repo, 'rev-parse', 'HEAD');
    const doomed = await dispatch('create d.txt: d', 'Doomed');
    assert.deepEqual([first.status, doomed.status, doomed.baseSha], ['running', 'queued', dropped]);
    // The commit is reset away and pruned while the agent waits.
    git(fx.repo, 'reset', '-q', '--hard', 'HEAD~1');
    git(fx.repo, 'reflog', 'expire', '--expire=now', '--all');
    git(fx.repo, 'gc', '-q', '--prune=now');
    assert.throws(() => git(fx.repo, 'cat-file', '-e', dropped), 'the base commit is gone');
    const next = await dispatch('create n.txt: n', 'Next');
    assert.equal(next.status, 'queued');
    const refsBefore = refs();

    const failed = await manager.whenEnded(doomed.id);
    assertFailedClearly(failed, new RegExp(`"${dropped}" is not a commit or branch of the repository`));
    const done = await manager.whenEnded(next.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.ok(fs.existsSync(path.join(done.cwd, 'n.txt')));
    assert.equal((await manager.whenEnded(first.id)).status, 'succeeded');

    assert.doesNotMatch(refs(), /doomed/, 'no branch');
    assert.deepEqual(
      refs()
        .split('\n')
        .filter((r) => !refsBefore.split('\n').includes(r)),
      ['refs/heads/agents/next'],
      'only the next agent made a ref',
    );
    assert.doesNotMatch(worktrees(), /doomed/, 'no worktree registered');
    assert.deepEqual(folders(), ['next', 'runner'], 'no folder');
    await assertQueueFree();
  });

  it('its profile was removed from the settings: it fails naming the profile, and the next one starts', async () => {
    const first = await dispatch('sleep 3', 'Runner');
    const orphaned = await dispatch('create o.txt: o', 'Orphaned', 'demo-copy');
    const next = await dispatch('create n.txt: n', 'Next');
    assert.deepEqual([orphaned.status, next.status], ['queued', 'queued']);
    profiles = profiles.filter((p) => p.name !== 'demo-copy');

    const failed = await manager.whenEnded(orphaned.id);
    assertFailedClearly(failed, /no agent profile named "demo-copy"/);
    const done = await manager.whenEnded(next.id);
    assert.equal(done.status, 'succeeded', done.error);
    assert.ok(done.startedAt! >= failed.endedAt!, 'the next started after the failed one ended');
    assert.equal((await manager.whenEnded(first.id)).status, 'succeeded');

    assert.doesNotMatch(refs(), /orphaned/);
    assert.doesNotMatch(worktrees(), /orphaned/);
    assert.deepEqual(folders(), ['next', 'runner']);
    await manager.flush();
    const stored = fx.store.records.find((r) => r.id === orphaned.id)!;
    assert.equal(stored.status, 'failed', 'the failure is in the stored record too');
    await assertQueueFree();
  });
});
