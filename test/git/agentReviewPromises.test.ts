// Review with Agent's promises, each with real git and the real demo agent as author and reviewer:
// the review reads only its own output, never writes the agent's record or folder when there is
// nothing to write, refuses what it cannot review before saving anything, and skips only the
// files it cannot show as text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import { AgentReviewer, ReviewComments } from '../../src/core/review';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { NodeFileBytes } from '../../src/node/fileBytes';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { ManagerFixture, demoScript, git } from './managerFixture';
import { refusal } from './refusal';

describe('Review with Agent keeps its promises (real git, real demo agents)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  let manager: AgentManager;
  let review: ReviewComments;
  let reviewer: AgentReviewer;
  let logged: string[];
  /** Where the reviewer's log goes; a test may point it somewhere no log can be written. */
  let logDir: string;

  function setUp(files?: Record<string, string>, clock?: { now(): number }) {
    fx = files ? new ManagerFixture(files) : new ManagerFixture();
    logDir = path.join(fx.tmp, 'review-logs');
    manager = fx.manager(clock ? { clock } : {});
    review = new ReviewComments({
      manager,
      files: new NodeFileBytes(),
      clock: { now: () => Date.now() },
      newId: () => `c${Math.random()}`,
    });
    logged = [];
    const log = (level: string) => (message: string) => void logged.push(`${level} ${message}`);
    reviewer = new AgentReviewer({
      manager,
      comments: review,
      git: fx.git,
      files: new NodeFileBytes(),
      fs: new NodeFileSystem(),
      runner: fx.headlessRunner(),
      resolver: new PathExecutableResolver({ demoAgentScript: demoScript, runtime: process.execPath }),
      profiles: () => builtinProfiles,
      settings: () => ({ logDir }),
      logger: { info: log('info'), warn: log('warn'), error: log('error') },
    });
  }

  afterEach(async () => {
    reviewer.dispose();
    review.dispose();
    await fx.dispose();
  });

  async function author(prompt: string) {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fx.repo, title: 'Author' });
    return fx.finished(manager, record.id);
  }
  const reviewRefs = () => git(fx.repo, 'for-each-ref', '--format=%(refname)', 'refs/parallel-agents/review/');
  const bodies = (id: string) => review.comments(id).map((c) => [c.path, c.startLine, c.body, c.general ?? false]);

  it('reads only its own run from the log; finding nothing, it writes neither record nor folder', async () => {
    setUp();
    const done = await author('create notes.txt: one\\ntwo\\n');
    const workspace = recordWorkspace(done.cwd);

    const nothing = await reviewer.review(done.id, { profile: 'demo' });
    assert.equal(nothing.empty, 'nothing');
    assert.equal(manager.get(done.id).comments, undefined, 'no comment list written for no comment');
    assertUntouched(workspace, 'a reviewer that changed nothing leaves the worktree as it was');
    assert.deepEqual(
      logged.filter((l) => l.startsWith('warn')),
      [],
      'nothing put back, nothing said',
    );

    const found = await reviewer.review(done.id, { profile: 'demo', focus: 'print FINDING notes.txt:2: say why' });
    assert.deepEqual([found.onLines, found.general, found.empty], [1, 0, undefined]);
    const again = await reviewer.review(done.id, { profile: 'demo' });
    assert.deepEqual(
      [again.onLines, again.general, again.empty],
      [0, 0, 'nothing'],
      'the first review’s finding, earlier in the same log, is not read again',
    );
    assert.deepEqual(bodies(done.id), [['notes.txt', 2, 'say why', false]]);

    const log = fs.readFileSync(again.logPath, 'utf8');
    assert.equal(again.logPath, path.join(logDir, `${done.id}.review.log`));
    assert.equal(log.split('\n').filter((l) => l === '──── review by demo').length, 3, log);
    assert.ok(log.startsWith('──── review by demo\n'), log);
    assert.equal(reviewRefs(), '');
  });

  it('a reviewer that exits non-zero: failed, its findings still count, the log names the review', async () => {
    setUp();
    const done = await author('create notes.txt: one\\n');
    const outcome = await reviewer.review(done.id, {
      profile: 'demo',
      focus: 'print FINDING notes.txt:1: still read\nexit 3',
    });
    assert.deepEqual([outcome.failed, outcome.onLines, outcome.general], [true, 1, 0]);
    assert.ok(
      logged.includes(`warn [AgentManager] ${done.id}.review: Author (review by demo) failed (code 3, signal -)`),
      logged.join('\n'),
    );
    assert.ok(logged.includes(`info [Review] ${done.id}: demo ended (failed), 1 finding(s), 0 file(s) put back`));
    assert.equal(reviewRefs(), '');
  });

  it('a reviewer that cannot start: refused with the reason, no snapshot left, the worktree untouched', async () => {
    setUp();
    const done = await author('create notes.txt: one\\n');
    const workspace = recordWorkspace(done.cwd);
    // A file where the log's folder would be: the runner cannot create the log.
    fs.writeFileSync(path.join(fx.tmp, 'a-file'), 'x');
    logDir = path.join(fx.tmp, 'a-file', 'logs');
    const error = await refusal(reviewer.review(done.id, { profile: 'demo' }), 'reviewerNotStarted');
    assert.equal(error.data.profile, 'demo');
    assert.match(String(error.data.error), /ENOTDIR/);
    assert.equal(reviewRefs(), '', 'the snapshot taken before the start is dropped');
    assert.equal(reviewer.isReviewing(done.id), false);
    assertUntouched(workspace);
    assert.equal(manager.get(done.id).comments, undefined);
  });

  it('names a file git calls binary without its diff, even when its bytes are text', async () => {
    setUp({ 'README.md': '# sample\n', '.gitattributes': '*.dat binary\n', 'data.dat': 'one\n' });
    const done = await author('append data.dat: two\\n\ncreate notes.txt: one\\n');
    assert.deepEqual(
      done.changedFiles.map((f) => [f.path, f.binary]),
      [
        ['data.dat', true],
        ['notes.txt', false],
      ],
    );
    const outcome = await reviewer.review(done.id, {
      profile: 'demo',
      focus: 'print FINDING data.dat:2: no line of a binary file to put this on\nprint FINDING notes.txt:1: here',
    });
    assert.deepEqual([outcome.onLines, outcome.general], [1, 1]);
    assert.deepEqual(bodies(done.id), [
      ['notes.txt', 1, 'data.dat:2: no line of a binary file to put this on', true],
      ['notes.txt', 1, 'here', false],
    ]);
  });

  it('skips a file that is not UTF-8 (no lines to comment on) and goes on with the others', async () => {
    setUp();
    const done = await author('create latin.txt: x\\n');
    fs.writeFileSync(path.join(done.cwd, 'latin.txt'), Buffer.from('caf\xe9\n', 'latin1'));
    await manager.refreshChanges(done.id);
    assert.deepEqual(
      manager.get(done.id).changedFiles.map((f) => [f.path, f.binary]),
      [['latin.txt', false]],
      'text to git: no NUL byte',
    );
    await refusal(reviewer.review(done.id, { profile: 'demo' }), 'nothingToReview');
    assert.equal(reviewRefs(), '');

    fs.writeFileSync(path.join(done.cwd, 'notes.txt'), 'one\n');
    await manager.refreshChanges(done.id);
    const outcome = await reviewer.review(done.id, {
      profile: 'demo',
      focus: 'print FINDING latin.txt:1: accent\nprint FINDING notes.txt:1: fine',
    });
    assert.deepEqual([outcome.onLines, outcome.general, outcome.failed], [1, 1, false]);
  });

  it('fails on a changed file it cannot read, before saving anything', async () => {
    setUp();
    const done = await author('create notes.txt: one\\n\ncreate other.txt: two\\n');
    fs.rmSync(path.join(done.cwd, 'notes.txt'));
    fs.mkdirSync(path.join(done.cwd, 'notes.txt'));
    await assert.rejects(
      reviewer.review(done.id, { profile: 'demo' }),
      (e: unknown) => !AgentError.is(e) && (e as NodeJS.ErrnoException).code === 'EISDIR',
    );
    assert.equal(reviewRefs(), '');
    assert.equal(reviewer.isReviewing(done.id), false);
  });

  it('refuses an agent whose worktree is gone, before saving anything', async () => {
    setUp();
    const done = await author('create notes.txt: one\\n');
    git(fx.repo, 'worktree', 'remove', '--force', done.cwd);
    // As Clean Up records it; the change set last read still lists the file.
    manager.annotate(done.id, { worktreePresent: false });
    assert.equal(manager.get(done.id).changedFiles.length, 1);
    await refusal(reviewer.review(done.id, { profile: 'demo' }), 'nothingToReview');
    assert.equal(reviewRefs(), '');
  });

  it('puts nothing back while the author runs again, even when its clock gives both runs one start time', async () => {
    // A start time tells two runs apart only as finely as the clock does; a run still going is told apart anyway.
    setUp(undefined, { now: () => 1_700_000_000_000 });
    const done = await author('create notes.txt: one\\n');
    const reviewing = reviewer.review(done.id, {
      profile: 'demo',
      focus: 'sleep 1\ncreate reviewer.txt: by the reviewer',
    });
    await new Promise((r) => setTimeout(r, 300));
    await manager.followUp(done.id, 'sleep 3\ncreate mine.txt: the author’s own work\\n');
    assert.equal(manager.get(done.id).startedAt, done.startedAt);
    const outcome = await reviewing;
    assert.equal(manager.isRunning(done.id), true, 'the author still runs as the review ends');
    assert.deepEqual(outcome.restored, []);
    await fx.finished(manager, done.id);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'reviewer.txt'), 'utf8'), 'by the reviewer');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'mine.txt'), 'utf8'), 'the author’s own work\n');
    assert.equal(reviewRefs(), `refs/parallel-agents/review/${done.id}`, 'kept, for the work’s sake');
  });
});
