// Best of N with real git and real demo-agent processes: N candidates at one base, Pick merges the
// chosen one and discards the others with their work saved; a bad N or profile creates nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { AgentError } from '../../src/core/errors';
import type { AgentLanding } from '../../src/core/landing/agentLanding';
import { discardOtherCandidates, groupOf, pickCandidate } from '../../src/core/landing/bestOfPick';
import { eachWithLanding, git, type ManagerFixture } from './managerFixture';

describe('Best of N: dispatch, Pick and bad input with real git', function () {
  this.timeout(90000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let landing: AgentLanding;

  eachWithLanding((setUp) => ({ fx, manager, landing } = setUp));

  const worktrees = () =>
    git(fx.repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '));
  const branches = () => git(fx.repo, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean);

  /** Each candidate writes its own number into choice.txt, so they differ and would conflict with each other. */
  async function bestOfThree() {
    const prompt = 'create choice.txt: candidate';
    const records = await manager.dispatchBestOf({
      prompt,
      profiles: ['demo', 'demo', 'demo'],
      folder: fx.repo,
      title: 'Choose',
    });
    const done = [];
    for (const r of records) {
      const finished = await fx.finished(manager, r.id);
      fs.appendFileSync(path.join(finished.cwd, 'choice.txt'), ` ${finished.bestOf!.index}`);
      await manager.refreshChanges(r.id);
      done.push(manager.get(r.id));
    }
    return done;
  }

  it('dispatches N candidates at one base, titled i/N, each in a worktree and branch of its own', async () => {
    const head = git(fx.repo, 'rev-parse', 'HEAD');
    const candidates = await bestOfThree();
    assert.deepEqual(
      candidates.map((r) => r.title),
      ['Choose (1/3)', 'Choose (2/3)', 'Choose (3/3)'],
    );
    const group = candidates[0].bestOf!.group;
    assert.deepEqual(
      candidates.map((r) => r.bestOf),
      [1, 2, 3].map((index) => ({ group, index, of: 3 })),
    );
    assert.ok(candidates.every((r) => r.baseSha === head && r.status === 'succeeded' && r.isolation === 'worktree'));
    assert.equal(new Set(candidates.map((r) => r.branch)).size, 3);
    assert.equal(new Set(candidates.map((r) => r.worktreePath)).size, 3);
    assert.equal(worktrees().length, 4, 'the repository and three worktrees');
    assert.deepEqual(
      candidates.map((r) => fs.readFileSync(path.join(r.cwd, 'choice.txt'), 'utf8')),
      ['candidate 1', 'candidate 2', 'candidate 3'],
    );
    assert.deepEqual(
      groupOf(manager, candidates[1].id).map((r) => r.id),
      candidates.map((r) => r.id),
    );
  });

  it('Pick merges the chosen candidate, then discards the others with their work saved', async () => {
    const [one, two, three] = await bestOfThree();
    await landing.commit(two.id, 'Candidate 2');
    const result = await pickCandidate(manager, landing, two.id, 'merge', 'Pick candidate 2');
    assert.equal(result.merge.kind, 'merged');
    assert.deepEqual([...result.discarded].sort(), [one.id, three.id].sort());
    assert.equal(fs.readFileSync(path.join(fx.repo, 'choice.txt'), 'utf8'), 'candidate 2');
    assert.equal(manager.get(two.id).status, 'merged');
    for (const other of [one, three]) {
      const r = manager.get(other.id);
      assert.equal(r.status, 'discarded');
      assert.equal(r.worktreePresent, false);
      assert.equal(r.savedRef, `refs/parallel-agents/saved/${other.id}`);
      assert.ok(!fs.existsSync(other.worktreePath!), 'its worktree is removed');
      assert.ok(!branches().includes(other.branch!), 'its branch is removed');
      // The uncommitted work is in the saved ref: Restore Agent would bring it back.
      const saved = git(fx.repo, 'show', `${r.savedRef}:choice.txt`);
      assert.equal(saved, `candidate ${other.bestOf!.index}`);
    }
    await landing.restore(one.id);
    assert.equal(fs.readFileSync(path.join(one.worktreePath!, 'choice.txt'), 'utf8'), 'candidate 1');
  });

  it('Pick discards nothing when the merge does not happen', async () => {
    const [one, two] = await bestOfThree();
    // Uncommitted work: the merge refuses (Merge Agent would ask to commit first).
    const refused = await pickCandidate(manager, landing, one.id, 'merge', 'Pick 1');
    assert.equal(refused.merge.kind, 'uncommitted');
    assert.deepEqual(refused.discarded, []);
    // A conflict with the workspace: forecast, nothing changed, nothing discarded.
    fs.writeFileSync(path.join(fx.repo, 'choice.txt'), 'mine');
    git(fx.repo, 'add', 'choice.txt');
    git(fx.repo, 'commit', '-q', '-m', 'main wrote choice.txt');
    await landing.commit(two.id, 'Candidate 2');
    const conflicted = await pickCandidate(manager, landing, two.id, 'merge', 'Pick 2');
    assert.equal(conflicted.merge.kind, 'conflicts');
    assert.deepEqual(conflicted.discarded, []);
    assert.equal(fs.readFileSync(path.join(fx.repo, 'choice.txt'), 'utf8'), 'mine');
    assert.ok(manager.list().every((r) => r.status === 'succeeded' && r.worktreePresent !== false));
    assert.equal(worktrees().length, 4);
  });

  it('refuses N outside 2 to 10, an unknown profile or an empty task, creating nothing', async () => {
    const before = { worktrees: worktrees(), branches: branches() };
    const attempts: [string[], string, string][] = [
      [[], 'do it', 'bestOfCount'],
      [['demo'], 'do it', 'bestOfCount'],
      [Array.from({ length: 50 }, () => 'demo'), 'do it', 'bestOfCount'],
      [['demo', 'no-such-profile'], 'do it', 'unknownProfile'],
      [['demo', 'missing'], 'do it', 'executableNotOnPath'],
      [['demo', 'demo'], '   ', 'emptyTask'],
    ];
    for (const [profiles, prompt, code] of attempts) {
      await assert.rejects(
        manager.dispatchBestOf({ prompt, profiles, folder: fx.repo }),
        (e: unknown) => AgentError.is(e) && e.code === code,
        `${profiles.length} × ${profiles[1] ?? profiles[0]}: ${code}`,
      );
    }
    await assert.rejects(
      manager.dispatchBestOf({ prompt: 'x', profiles: [], folder: fx.repo }),
      (e: unknown) => AgentError.is(e) && JSON.stringify(e.data) === JSON.stringify({ count: 0, min: 2, max: 10 }),
    );
    assert.deepEqual(manager.list(), []);
    assert.deepEqual(worktrees(), before.worktrees);
    assert.deepEqual(branches(), before.branches);
    assert.equal(
      fs.readdirSync(fx.tmp).includes('repo.worktrees')
        ? fs.readdirSync(path.join(fx.tmp, 'repo.worktrees')).length
        : 0,
      0,
    );
  });

  it('treats an ordinary agent as no candidate', async () => {
    const plain = await manager.dispatch({
      prompt: 'create a.txt: a',
      profile: 'demo',
      folder: fx.repo,
      title: 'Plain',
    });
    await fx.finished(manager, plain.id);
    assert.equal(manager.get(plain.id).bestOf, undefined);
    assert.throws(
      () => groupOf(manager, plain.id),
      (e: unknown) => AgentError.is(e) && e.code === 'notBestOfCandidate',
    );
    await assert.rejects(
      discardOtherCandidates(manager, landing, plain.id),
      (e: unknown) => AgentError.is(e) && e.code === 'notBestOfCandidate',
    );
    assert.equal(manager.get(plain.id).status, 'succeeded');
  });
});
