// Review with Agent's promises, each with real git and the real demo agent as author and reviewer:
// the review reads only its own output, never writes the agent's record or folder when there is
// nothing to write, refuses what it cannot review before saving anything, and skips only the
// files it cannot show as text.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents';
import { builtinProfiles, type Profile } from '../../src/core/clis/profiles';
import { AgentError } from '../../src/core/errors';
import type { AgentReviewer, ReviewComments } from '../../src/core/review';
import { registryDirSync } from '../../src/node/registry/location';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { assertUntouched, recordWorkspace } from '../harness/untouched';
import { waitFor } from '../harness/waitFor';
import { ManagerFixture, git } from './managerFixture';
import { reviewerOn, reviewRefsOf } from './reviewerFixture';
import { openRegistryStore } from './registryFixture';
import { refusal } from './refusal';
import { TerminalStandIn } from './terminalStandIn';

/** A reviewer that prints its prompt (its argument) and whatever it was given on its input. */
const echo: Profile = {
  name: 'echo',
  command: process.execPath,
  args: [
    '-e',
    'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => ' +
      'process.stdout.write(`PROMPT<<${process.argv[1]}>>\\nSTDIN<<${s}>>\\n`));',
    '${prompt}',
  ],
  mode: 'headless',
};

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
    const profiles = () => [...builtinProfiles, echo];
    ({ review, reviewer, logged } = reviewerOn(fx, manager, { profiles, settings: () => ({ logDir }) }));
  }

  afterEach(async () => {
    reviewer.dispose();
    review.dispose();
    await fx.dispose();
  });

  const author = (prompt: string) => fx.ran(manager, prompt, 'Author');
  const reviewRefs = () => reviewRefsOf(fx.repo);
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
      focus: 'print FINDING notes.txt:1: still read\ncreate notes.txt: changed\ncreate stray.txt: x\nexit 3',
    });
    assert.deepEqual([outcome.failed, outcome.onLines, outcome.general], [true, 1, 0]);
    assert.deepEqual(outcome.restored, ['notes.txt', 'stray.txt']);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\n');
    assert.ok(logged.includes(`warn [Review] ${done.id}: the reviewer changed notes.txt, stray.txt; put back`));
    assert.ok(
      logged.includes(`warn [AgentManager] ${done.id}.review: Author (review by demo) failed (code 3, signal -)`),
      logged.join('\n'),
    );
    assert.ok(logged.includes(`info [Review] ${done.id}: demo ended (failed), 1 finding(s), 2 file(s) put back`));
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
    assert.ok(AgentError.isCode(error, 'reviewerNotStarted'));
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

    const echoed = await reviewer.review(done.id, { profile: 'echo' });
    const log = fs.readFileSync(echoed.logPath, 'utf8');
    const prompt = /PROMPT<<([\s\S]*)>>\nSTDIN<<([\s\S]*)>>/.exec(log.slice(log.lastIndexOf('──── review by echo')));
    assert.ok(prompt, log);
    assert.ok(prompt[1].includes('```text\nappend data.dat: two\\n\ncreate notes.txt: one\\n\n```'), prompt[1]);
    assert.ok(prompt[1].includes('\nBinary file data.dat (modified)'), prompt[1]);
    assert.ok(!prompt[1].includes('Binary file notes.txt'), prompt[1]);
    assert.ok(!prompt[1].includes('b/data.dat'), prompt[1]);
    assert.ok(prompt[1].includes('+++ b/notes.txt\n@@ -0,0 +1,1 @@\n+one'), prompt[1]);
    assert.equal(prompt[2], '', 'a reviewer given its prompt as an argument gets nothing on its input');
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

  it('fails when git cannot show a file’s base (a base commit git no longer has), before saving anything', async () => {
    setUp();
    const done = await author('append app.js: // more\\n');
    assert.deepEqual(
      done.changedFiles.map((f) => [f.path, f.kind]),
      [['app.js', 'modified']],
    );
    manager.annotate(done.id, { baseSha: 'f'.repeat(40) });
    await refusal(reviewer.review(done.id, { profile: 'demo' }), 'gitCommandFailed');
    assert.equal(reviewRefs(), '');
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
    const saved = git(fx.repo, 'log', '-1', '--format=%s', `refs/parallel-agents/review/${done.id}`);
    assert.equal(saved, 'parallel-agents: before a review', 'the snapshot says what it is');
  });
});

const terminalDemo: Profile = { name: 'demo-terminal', command: '${demoAgent}', args: ['${prompt}'], mode: 'terminal' };

describe('Review with Agent refuses an agent another window runs (real git, real processes)', function () {
  this.timeout(60_000);
  let fx: ManagerFixture;
  const stores: RegistryStore<AgentRecord>[] = [];
  const terminals: TerminalStandIn[] = [];

  afterEach(async () => {
    terminals.splice(0).forEach((t) => t.killAll());
    stores.splice(0).forEach((s) => s.dispose());
    await fx.dispose();
  });

  /** A window's manager on the repository's registry, its terminals real processes of its own. */
  function window(name: string): AgentManager {
    const registry = registryDirSync(fx.repo) as string;
    const store = openRegistryStore(registry);
    stores.push(store);
    const own = new TerminalStandIn();
    terminals.push(own);
    let n = 0;
    return fx.manager({
      store,
      terminalRunner: own,
      profiles: () => [...builtinProfiles, terminalDemo],
      settings: () => ({ branchPrefix: 'agents', logDir: path.join(registry, 'logs') }),
      newId: () => `${name}${Date.now().toString(36)}${n++}`,
    });
  }

  it('a terminal agent running in window A is refused in window B, where no process of it runs', async () => {
    fx = new ManagerFixture();
    const a = window('a');
    const record = await a.dispatch({
      prompt: 'create notes.txt: one\\n\nsleep 4',
      profile: 'demo-terminal',
      folder: fx.repo,
      title: 'Elsewhere',
    });
    await waitFor('the terminal pid in the record', () => a.get(record.id).terminalPid);
    await a.flush();
    const b = window('b');
    assert.equal((await b.whenEnded(record.id)).status, 'running');
    assert.equal(b.isRunning(record.id), false, 'B follows no run of it');
    await b.refreshChanges(record.id);
    const { reviewer } = reviewerOn(fx, b, {
      profiles: () => builtinProfiles,
      settings: () => ({ logDir: path.join(fx.tmp, 'review-logs') }),
    });
    const error = await refusal(reviewer.review(record.id, { profile: 'demo' }), 'agentStillRunning');
    assert.ok(AgentError.isCode(error, 'agentStillRunning'));
    assert.equal(error.data.title, 'Elsewhere');
    assert.equal(git(fx.repo, 'for-each-ref', 'refs/parallel-agents/review/'), '');
    assert.equal((await fx.finished(a, record.id)).status, 'succeeded');
  });
});
