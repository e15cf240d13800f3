// Review with Agent with a sandboxed reviewer profile: the real bubblewrap, supervisor and demo
// agents. The reviewer reads the agent's worktree, its findings become comments, and its attempt to
// write there is refused by the sandbox (read-only), so nothing needs putting back; the same
// reviewer unsandboxed writes the file (then put back), so the check can fail.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import which from 'which';
import type { AgentManager } from '../../src/core/agents';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { AgentReviewer, ReviewComments } from '../../src/core/review';
import { BubblewrapSandbox } from '../../src/node/sandbox/bubblewrap';
import { ManagerFixture, git } from '../git/managerFixture';
import { reviewerSetUp } from '../git/reviewerFixture';
import { sandboxScript } from './sandboxScript';

const hasBwrap = process.platform === 'linux' && which.sync('bwrap', { nothrow: true }) !== null;

describe('Review with Agent by a sandboxed reviewer (bubblewrap, worktree read-only)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let review: ReviewComments;
  let reviewer: AgentReviewer;
  const demo = builtinProfiles.find((p) => p.name === 'demo')!;
  const boxed: Profile = { ...demo, name: 'boxed-reviewer', sandbox: { allowedHosts: [] } };
  const open: Profile = { ...demo, name: 'open-reviewer' };
  const profiles = () => [...builtinProfiles, boxed, open];

  before(function () {
    assert.ok(hasBwrap || process.env.PA_REQUIRE_BWRAP !== '1', 'bubblewrap (bwrap) is not on PATH');
    if (!hasBwrap) {
      this.skip();
    }
  });

  beforeEach(() => {
    fx = new ManagerFixture();
    ({ manager, review, reviewer } = reviewerSetUp(
      fx,
      profiles,
      new BubblewrapSandbox({ sandboxScript, runtime: process.execPath }),
    ));
  });
  afterEach(async () => {
    review.dispose();
    await fx.dispose();
  });

  const focus = ['print FINDING notes.txt:2: look at this line', 'create notes.txt: rewritten by the reviewer'].join(
    '\n',
  );

  it('its findings land as comments; its write into the worktree is refused, so nothing is put back', async () => {
    const record = await manager.dispatch({
      prompt: 'create notes.txt: one\\nTODO two\\n',
      profile: 'demo',
      folder: fx.repo,
    });
    const done = await fx.finished(manager, record.id);
    const outcome = await reviewer.review(done.id, { profile: boxed.name, focus });
    // Ours, and the demo reviewer's own on the added TODO line.
    assert.equal(outcome.onLines, 2, JSON.stringify(outcome));
    assert.deepEqual(outcome.restored, [], 'nothing to put back: the write never happened');
    assert.equal(outcome.failed, true, 'the demo reviewer stops at its refused write');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\nTODO two\n');
    const log = fs.readFileSync(outcome.logPath, 'utf8');
    assert.match(log, /auto-approve: on \(sandboxed\)/);
    assert.match(log, /read-only file system|EROFS/i);
    assert.equal(git(fx.repo, 'for-each-ref', 'refs/parallel-agents/review'), '', 'no snapshot ref left');
  });

  it('the same reviewer unsandboxed does write, and that write is put back (the check above can fail)', async () => {
    const record = await manager.dispatch({
      prompt: 'create notes.txt: one\\nTODO two\\n',
      profile: 'demo',
      folder: fx.repo,
    });
    const done = await fx.finished(manager, record.id);
    const outcome = await reviewer.review(done.id, { profile: open.name, focus });
    assert.deepEqual(outcome.restored, ['notes.txt']);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\nTODO two\n');
  });
});
