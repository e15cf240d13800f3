// Review with Agent at its edges, with real git and real processes: what the reviewer is given (a
// reviewer that prints its prompt, on its argument or its input), the refusals, a reviewer stopped
// when the window goes, what a reviewer leaves running ended with its review, and the author
// running again during a review: its work is never undone.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import type { AgentReviewer, ReviewComments } from '../../src/core/review';
import { pidAlive } from '../../src/supervisor/processIdentity';
import { lateWriter, leavesChild } from '../fixtures/leavesChild';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { ManagerFixture } from './managerFixture';
import { reviewerOn, reviewRefsOf } from './reviewerFixture';

describe('Review with Agent at its edges (real git, real processes)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let review: ReviewComments;
  let reviewer: AgentReviewer;
  let logged: string[];
  let script: string;
  let perRepoLogs: string;

  /** A reviewer that prints its prompt (argument or input), waits REVIEWER_WAIT ms, writes REVIEWER_WRITE. */
  const echo = (name: string, extra: Partial<Profile> = {}): Profile => ({
    name,
    command: process.execPath,
    args: [script, '${prompt}'],
    mode: 'headless',
    ...extra,
  });
  const profiles = () => [
    ...builtinProfiles,
    echo('echo'),
    echo('echo-stdin', { args: [script, '--stdin'], promptVia: 'stdin' }),
    echo('slow', { env: { REVIEWER_WAIT: '1500', REVIEWER_WRITE: 'reviewer.txt' } }),
    echo('stuck', { env: { REVIEWER_WAIT: '30000' } }),
    {
      name: 'leaves-child',
      command: process.execPath,
      // It starts a child that writes late.txt 1.5 s later and exits at once, finding nothing.
      args: ['-e', leavesChild(lateWriter, path.join(fx.tmp, 'child.pid'), 'No findings.'), '${prompt}'],
      mode: 'headless' as const,
    },
  ];

  beforeEach(() => {
    fx = new ManagerFixture();
    script = path.join(fx.tmp, 'echo-reviewer.js');
    perRepoLogs = path.join(fx.tmp, 'per-repo-logs');
    fs.writeFileSync(
      script,
      [
        'const fs = require("fs");',
        'const done = (prompt) => setTimeout(() => {',
        '  process.stdout.write(`PROMPT<<${prompt}>>\\n`);',
        '  if (process.env.REVIEWER_WRITE) fs.writeFileSync(process.env.REVIEWER_WRITE, "by the reviewer\\n");',
        '}, Number(process.env.REVIEWER_WAIT || 0));',
        'if (process.argv[2] === "--stdin") {',
        '  const chunks = [];',
        '  process.stdin.on("data", (c) => chunks.push(c)).on("end", () => done(`stdin:${Buffer.concat(chunks)}`));',
        '} else done(`argument:${process.argv[2]}`);',
        '',
      ].join('\n'),
    );
    manager = fx.manager({ profiles });
    ({ review, reviewer, logged } = reviewerOn(fx, manager, {
      profiles,
      settings: () => ({
        logDir: path.join(fx.tmp, 'logs'),
        logDirOf: (root) => path.join(perRepoLogs, path.basename(root)),
      }),
    }));
  });
  afterEach(async () => {
    reviewer.dispose();
    review.dispose();
    await fx.dispose();
  });

  const author = (prompt: string) => fx.ran(manager, prompt, 'Author');
  const reviewRefs = () => reviewRefsOf(fx.repo);
  const prompted = (logPath: string) => /PROMPT<<([\s\S]*)>>/.exec(fs.readFileSync(logPath, 'utf8'))?.[1] ?? '';

  it('gives the reviewer the task with every follow-up, the diff, the binary files and the focus; on its input when asked', async () => {
    const first = await author('create notes.txt: one\\ntwo\\n');
    await manager.followUp(first.id, 'append notes.txt: three\\n');
    await fx.finished(manager, first.id);
    fs.writeFileSync(path.join(first.cwd, 'logo.bin'), Buffer.from([0x89, 0x00, 0x01]));
    await manager.refreshChanges(first.id);

    const outcome = await reviewer.review(first.id, { profile: 'echo', focus: '  the loop  ' });
    assert.equal(
      outcome.logPath,
      path.join(perRepoLogs, 'repo', `${first.id}.review.log`),
      'the repository’s log folder',
    );
    const prompt = prompted(outcome.logPath);
    assert.ok(prompt.startsWith('argument:Parallel Agents review request'), prompt);
    assert.ok(
      prompt.includes('```text\ncreate notes.txt: one\\ntwo\\n\n\nappend notes.txt: three\\n\n```'),
      `the task and its follow-up, apart: ${prompt}`,
    );
    assert.ok(prompt.includes('+++ b/notes.txt\n@@ -0,0 +1,3 @@\n+one\n+two\n+three'), prompt);
    assert.ok(prompt.includes('\nBinary file logo.bin (untracked)\n'), prompt);
    assert.ok(prompt.includes('What the person asked you to look at:\nthe loop\n'), prompt);
    assert.deepEqual(
      { ...outcome, logPath: undefined },
      {
        reviewer: 'echo',
        onLines: 0,
        general: 0,
        empty: 'unreadable',
        failed: false,
        restored: [],
        logPath: undefined,
      },
    );
    assert.ok(
      logged.includes(`info [Review] ${first.id}: echo ended (succeeded), 0 finding(s), 0 file(s) put back`),
      logged.join('\n'),
    );

    const viaInput = await reviewer.review(first.id, { profile: 'echo-stdin' });
    const second = fs.readFileSync(viaInput.logPath, 'utf8');
    assert.ok(second.includes('PROMPT<<stdin:Parallel Agents review request'), second);
    assert.ok(!second.slice(second.lastIndexOf('──── review by')).includes('the loop'), 'no focus, none asked');
    assert.equal(reviewRefs(), '', 'no snapshot ref left');
  });

  it('refuses an agent still running, a second review at once, and an agent with no text file kept', async () => {
    const running = await manager.dispatch({ prompt: 'sleep 3', profile: 'demo', folder: fx.repo, title: 'Busy' });
    await assert.rejects(
      reviewer.review(running.id, { profile: 'echo' }),
      (e: unknown) => AgentError.isCode(e, 'agentStillRunning') && e.data.title === 'Busy',
    );
    await fx.finished(manager, running.id);

    const deleting = await author('delete app.js');
    await assert.rejects(
      reviewer.review(deleting.id, { profile: 'echo' }),
      (e: unknown) => AgentError.isCode(e, 'nothingToReview') && e.data.title === 'Author',
    );
    assert.equal(reviewRefs(), '', 'refused before anything was saved');

    const done = await author('create notes.txt: one\\n');
    const slow = reviewer.review(done.id, { profile: 'slow' });
    assert.equal(reviewer.isReviewing(done.id), true);
    await assert.rejects(
      reviewer.review(done.id, { profile: 'echo' }),
      (e: unknown) => AgentError.isCode(e, 'reviewStillRunning') && e.data.title === 'Author',
    );
    const outcome = await slow;
    assert.equal(reviewer.isReviewing(done.id), false);
    assert.deepEqual(outcome.restored, ['reviewer.txt'], 'the file the reviewer wrote is taken away');
    assert.equal(fs.existsSync(path.join(done.cwd, 'reviewer.txt')), false);
    assert.ok(
      logged.includes(`warn [Review] ${done.id}: the reviewer changed reviewer.txt; put back`),
      logged.join('\n'),
    );

    // Its folder deleted by hand, which the reconciler then marks missing.
    fs.rmSync(done.cwd, { recursive: true, force: true });
    manager.annotate(done.id, { worktreeMissing: true });
    await assert.rejects(
      reviewer.review(done.id, { profile: 'echo' }),
      (e: unknown) => AgentError.isCode(e, 'nothingToReview') && e.data.title === 'Author',
    );
    assert.equal(reviewer.isReviewing(done.id), false);
  });

  it('puts nothing back when the author ran during the review: its work stays, and so does the snapshot', async () => {
    const done = await author('create notes.txt: one\\n');
    const reviewing = reviewer.review(done.id, { profile: 'slow' });
    await new Promise((r) => setTimeout(r, 300));
    await manager.followUp(done.id, 'create mine.txt: the author’s own work\\n');
    await fx.finished(manager, done.id);
    const outcome = await reviewing;
    assert.deepEqual(outcome.restored, []);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'mine.txt'), 'utf8'), 'the author’s own work\n');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'reviewer.txt'), 'utf8'), 'by the reviewer\n');
    assert.equal(reviewRefs(), `refs/parallel-agents/review/${done.id}`, 'kept, for the work’s sake');
    assert.ok(
      logged.some((l) => l.startsWith(`warn [Review] ${done.id}: the agent ran during the review`)),
      logged.join('\n'),
    );
  });

  it('ends what a finished reviewer left running before it puts files back: nothing writes the folder later', async () => {
    const done = await author('create notes.txt: one\\n');
    const outcome = await reviewer.review(done.id, { profile: 'leaves-child' });
    assert.equal(outcome.failed, false);
    const child = Number(fs.readFileSync(path.join(fx.tmp, 'child.pid'), 'utf8'));
    assert.equal(pidAlive(child), false, 'the child the reviewer left is ended with the review');
    const worktree = recordWorkspace(done.cwd);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(fs.existsSync(path.join(done.cwd, 'late.txt')), false);
    assertUntouched(worktree, 'the worktree after the review');
    assert.equal(reviewRefs(), '');
  });

  it('stops a reviewer still running when it is disposed; the review ends failed', async () => {
    const done = await author('create notes.txt: one\\n');
    const started = Date.now();
    const reviewing = reviewer.review(done.id, { profile: 'stuck' });
    // Its log appears once its process is launched (and so known to the reviewer).
    const log = path.join(perRepoLogs, 'repo', `${done.id}.review.log`);
    for (let i = 0; i < 400 && !fs.existsSync(log); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(fs.existsSync(log), 'the reviewer started');
    reviewer.dispose();
    const outcome = await reviewing;
    assert.equal(outcome.failed, true);
    assert.ok(Date.now() - started < 20_000, 'stopped, not waited for');
    assert.equal(reviewRefs(), '');
  });
});
