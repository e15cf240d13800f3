// Ask Agent to Resolve for a stacked agent whose Rebase on Parent conflicts, with real git and two
// real demo agents writing the same line: the parent's work as it is now (uncommitted) is merged
// into the child's worktree without touching the parent's, the conflicts go to the child as one
// follow-up, the demo agent resolves the markers, and the next Rebase on Parent succeeds.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { AgentManager } from '../../src/core/agents/agentManager';
import { StackRepair } from '../../src/core/agents/stackRepair';
import { parentRanSince } from '../../src/core/agents/stacking';
import { AgentError } from '../../src/core/errors';
import { ConflictRepair } from '../../src/core/landing/conflictRepair';
import { englishMessage } from '../../src/ui/errorText';
import { assertRestored, recordWorkspace } from '../harness/untouched';
import { git, type ManagerFixture } from './managerFixture';
import { eachStack, read } from './stackFixture';

describe('Ask Agent to Resolve a stacked agent with its parent (real git, real demo agents)', function () {
  this.timeout(60000);
  /** Set: the manager's clock stands still there (a test reads which clock a time came from). */
  let frozen: number | undefined;
  const stack = eachStack({ clock: { now: () => frozen ?? Date.now() } });
  const { agent, followUp, changes, refs } = stack;
  let fx: ManagerFixture;
  let manager: AgentManager;
  let repair: StackRepair;

  beforeEach(() => {
    ({ fx, manager } = stack);
    frozen = undefined;
    repair = new StackRepair(manager, fx.git);
  });

  const mergeInProgress = (cwd: string) => fs.existsSync(git(cwd, 'rev-parse', '--git-path', 'MERGE_HEAD'));

  /** Parent and child changed the same line of a.txt, the parent after the child was stacked: the rebase is refused. */
  async function conflictingStack() {
    const parent = await agent('create a.txt: one');
    const child = await agent('replace a.txt: one => child', parent.id);
    await followUp(parent.id, 'replace a.txt: one => parent');
    await assert.rejects(manager.rebaseOnParent(child.id), (e: unknown) => {
      assert.ok(AgentError.isCode(e, 'rebaseOnParentConflict'), String(e));
      assert.equal(e.data.id, child.id, 'the refusal names the agent, for its Ask Agent to Resolve button');
      return true;
    });
    return { parent: manager.get(parent.id), child: manager.get(child.id) };
  }

  it("merges the parent's uncommitted work, the child resolves, and the next Rebase on Parent succeeds", async () => {
    const { parent, child } = await conflictingStack();
    assert.deepEqual(
      (await new ConflictRepair(manager, fx.git).targets(child.id)).find((t) => t.parent),
      { branch: parent.branch, agentId: parent.id, parent: true },
      "the parent's work is a target of Ask Agent to Resolve",
    );
    const parentBefore = recordWorkspace(parent.cwd);

    const started = await repair.start(child.id, 'resolve a.txt: keep both');
    assert.equal(started.kind, 'sent');
    assert.ok(started.kind === 'sent');
    assert.deepEqual(started.files, ['a.txt']);
    assert.ok(mergeInProgress(child.cwd), "the merge is in progress in the child's worktree");
    assert.equal(manager.get(child.id).followUps?.at(-1), started.prompt, 'one follow-up with the conflicts');
    assert.match(
      started.prompt,
      new RegExp(`^The work of agent "${parent.title}" as it is now \\(commit [0-9a-f]{12}\\)`),
    );
    assert.match(started.prompt, /File a\.txt:\n```\n<<<<<<< HEAD\nchild\n=======\nparent\n>>>>>>> [0-9a-f]{40}\n```/);
    // The parent's snapshot was taken without touching its worktree, index or branch.
    assertRestored(parentBefore, "the parent's worktree is untouched by the merge of its work", {
      except: [`ref refs/heads/${child.branch}`],
    });

    const end = await repair.finish(child.id, started.merge);
    assert.equal(end.kind, 'forecast', JSON.stringify(end));
    const settled = manager.get(child.id);
    assert.equal(settled.baseSha, started.merge.commit, "the child's base is now the parent's work it merged");
    assert.equal(git(child.cwd, 'rev-parse', 'HEAD'), started.merge.commit, 'its own work is uncommitted again');
    assert.equal(read(child.cwd, 'a.txt'), 'child\nparent\n');
    assert.equal(mergeInProgress(child.cwd), false);
    assert.deepEqual(changes(child.id), ['modified a.txt'], 'its diff is its own work alone');
    assert.equal(git(child.cwd, 'show', 'HEAD:a.txt'), 'parent', "its base holds the parent's line");

    await followUp(parent.id, 'create more.txt: m');
    await manager.rebaseOnParent(child.id);
    assert.equal(read(child.cwd, 'more.txt'), 'm', "the parent's newer work is under the child's");
    assert.equal(read(child.cwd, 'a.txt'), 'child\nparent\n', "the child's resolved work is kept");
    assert.deepEqual(changes(child.id), ['modified a.txt']);
    assert.doesNotMatch(refs(), /refs\/parallel-agents\/stack\//, 'no snapshot ref is left');
  });

  it("turns commits of its own into one commit on the parent's work", async () => {
    const { child } = await conflictingStack();
    git(child.cwd, 'add', '-A');
    git(child.cwd, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'child work');
    const started = await repair.start(child.id, 'resolve a.txt: keep theirs');
    assert.equal(started.kind, 'sent');
    const end = await repair.finish(child.id, started.merge);
    assert.equal(end.kind, 'forecast');
    assert.equal(git(child.cwd, 'rev-parse', 'HEAD~1'), started.merge.commit);
    assert.equal(git(child.cwd, 'status', '--porcelain'), '');
    assert.equal(read(child.cwd, 'a.txt'), 'parent\n');
    assert.equal(manager.get(child.id).baseSha, started.merge.commit);
    await manager.rebaseOnParent(child.id);
  });

  it('a clean merge settles at once and sends nothing', async () => {
    const parent = await agent('create a.txt: one');
    const child = await agent('create c.txt: c', parent.id);
    await followUp(parent.id, 'create p.txt: p');
    assert.equal(parentRanSince(manager.get(child.id), manager.get(parent.id)), true, 'the parent ran since');
    const stoppedAt = (frozen = Date.now() + 60_000);
    const started = await repair.start(child.id);
    frozen = undefined;
    assert.equal(started.kind, 'merged');
    assert.equal(started.merge.at, stoppedAt, "the snapshot's time is read from the manager's clock");
    assert.equal(manager.get(child.id).stackedOn?.at, started.merge.at, 'the merged snapshot is its last one');
    assert.equal(parentRanSince(manager.get(child.id), manager.get(parent.id)), false, 'not since the merge');
    assert.equal(manager.get(child.id).followUps, undefined);
    assert.equal(read(child.cwd, 'p.txt'), 'p');
    assert.deepEqual(changes(child.id), ['untracked c.txt']);
    assert.equal(manager.get(child.id).baseSha, started.merge.commit);
  });

  describe('bad input: a clear error, nothing changed', () => {
    async function refusedUnchanged(id: string, code: 'notStacked' | 'stackParentGone', words: RegExp) {
      const cwd = manager.get(id).cwd;
      const before = { files: recordWorkspace(cwd), refs: refs(), record: JSON.stringify(manager.get(id)) };
      await assert.rejects(repair.start(id), (e: unknown) => {
        assert.ok(AgentError.isCode(e, code), String(e));
        assert.match(englishMessage(e), words);
        return true;
      });
      assertRestored(before.files, `a refused ${code}`);
      assert.equal(refs(), before.refs, 'no ref made or moved');
      assert.equal(JSON.stringify(manager.get(id)), before.record, 'the record is as it was');
    }

    it('refuses an agent that is not stacked', async () => {
      const plain = await agent('create p.txt: p');
      await refusedUnchanged(plain.id, 'notStacked', /is not stacked on another agent/);
    });

    it('refuses a child whose parent is gone', async () => {
      const { parent, child } = await conflictingStack();
      manager.forget(parent.id);
      await refusedUnchanged(child.id, 'stackParentGone', /no longer in the list/);
      assert.equal(
        (await new ConflictRepair(manager, fx.git).targets(child.id)).some((t) => t.parent),
        false,
        'no parent target is offered',
      );
    });

    it("a follow-up that cannot start undoes the merge: the child's work is uncommitted again", async () => {
      const { child } = await conflictingStack();
      manager.annotate(child.id, { profile: 'missing' });
      const before = recordWorkspace(child.cwd);
      const head = git(child.cwd, 'rev-parse', 'HEAD');
      await assert.rejects(repair.start(child.id), (e) => AgentError.is(e));
      assert.equal(mergeInProgress(child.cwd), false);
      assert.equal(git(child.cwd, 'rev-parse', 'HEAD'), head);
      assertRestored(before, 'an undone merge of the parent', { except: ['git dir ORIG_HEAD'] });
    });
  });
});
