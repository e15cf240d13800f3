// Review with Agent and Continue with Another Agent end to end: real git, real demo-agent processes
// (the author and the reviewer), the reviewer's findings stored as the author's review comments.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents';
import { continuePrompt } from '../../src/core/agents';
import { AgentError } from '../../src/core/errors';
import { AgentReviewer, ReviewComments } from '../../src/core/review';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { ManagerFixture, git } from './managerFixture';
import { reviewerSetUp } from './reviewerFixture';

describe('Review with Agent (real demo agents, real git)', function () {
  this.timeout(60_000);
  let fixture: ManagerFixture;
  let manager: AgentManager;
  let review: ReviewComments;
  let reviewer: AgentReviewer;
  const demo = builtinProfiles.find((p) => p.name === 'demo');
  const profiles = () => [
    ...builtinProfiles,
    // A second profile: the same demo agent under another name, as a second CLI would be.
    { ...demo!, name: 'demo-b' },
    { name: 'missing', command: 'definitely-not-installed-cli', args: ['${prompt}'], mode: 'headless' as const },
  ];

  beforeEach(() => {
    fixture = new ManagerFixture();
    ({ manager, review, reviewer } = reviewerSetUp(fixture, profiles));
  });
  afterEach(async () => {
    review.dispose();
    await fixture.dispose();
  });

  async function author(prompt: string) {
    const record = await manager.dispatch({ prompt, profile: 'demo', folder: fixture.repo, title: 'Author' });
    return fixture.finished(manager, record.id);
  }

  it('puts the findings on the lines named, a bad line as a general comment; Send Review has the author edit them', async () => {
    const done = await author(
      ['create notes.txt: one\\nTODO two\\nthree\\n', 'create src/calc.js: let a = 1;\\nlet b = 2;\\n'].join('\n'),
    );
    const before = git(done.cwd, 'status', '--porcelain');
    const outcome = await reviewer.review(done.id, {
      profile: 'demo-b',
      focus: [
        'print FINDING src/calc.js:2: replace src/calc.js: let b = 2; => const b = 2;',
        'print FINDING notes.txt:40: this line is past the end',
        'print FINDING ghost.txt:3: a file the agent never touched',
      ].join('\n'),
    });
    assert.deepEqual(
      { onLines: outcome.onLines, general: outcome.general, failed: outcome.failed, restored: outcome.restored },
      { onLines: 2, general: 2, failed: false, restored: [] },
    );
    assert.equal(git(done.cwd, 'status', '--porcelain'), before, 'the reviewer changed nothing');
    const comments = review.comments(done.id);
    assert.deepEqual(
      comments.map((c) => [c.path, c.startLine, c.endLine, c.quoted, c.body, c.reviewer, c.general ?? false]),
      [
        ['notes.txt', 2, 2, ['TODO two'], 'replace notes.txt: TODO => DONE', 'demo-b', false],
        ['src/calc.js', 2, 2, ['let b = 2;'], 'replace src/calc.js: let b = 2; => const b = 2;', 'demo-b', false],
        ['notes.txt', 1, 1, [], 'notes.txt:40: this line is past the end', 'demo-b', true],
        ['notes.txt', 1, 1, [], 'ghost.txt:3: a file the agent never touched', 'demo-b', true],
      ],
    );
    // The person edits one and deletes another, then sends the review as usual.
    review.edit(done.id, comments[3].id, 'ghost.txt is not needed; ignore it');
    review.remove(done.id, comments[2].id);
    const sent = await review.send(done.id);
    assert.equal(sent.count, 3);
    assert.ok(sent.prompt.includes('General comment:\n   ghost.txt is not needed; ignore it'), sent.prompt);
    const after = await fixture.finished(manager, done.id);
    assert.equal(after.status, 'succeeded');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\nDONE two\nthree\n');
    assert.equal(fs.readFileSync(path.join(done.cwd, 'src/calc.js'), 'utf8'), 'let a = 1;\nconst b = 2;\n');
    for (let i = 0; i < 100 && review.comments(done.id).filter((c) => c.addressed).length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(
      review.comments(done.id).map((c) => !!c.addressed),
      [true, true, false],
      'the lines the author changed are addressed; a general comment is never marked',
    );
  });

  it('says when the reviewer found nothing, or its output could not be read, and puts back files it changed', async () => {
    const done = await author('create notes.txt: one\\ntwo\\n');
    const nothing = await reviewer.review(done.id, { profile: 'demo' });
    assert.equal(nothing.empty, 'nothing');
    assert.equal(review.comments(done.id).length, 0);

    const unreadable = await reviewer.review(done.id, {
      profile: 'demo',
      focus: 'print Looks fine to me.\ncreate notes.txt: overwritten by the reviewer\ncreate stray.txt: x',
    });
    assert.equal(unreadable.empty, 'unreadable');
    assert.deepEqual([...unreadable.restored].sort(), ['notes.txt', 'stray.txt']);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\ntwo\n', 'put back');
    assert.equal(fs.existsSync(path.join(done.cwd, 'stray.txt')), false, 'a file the reviewer made is gone');
    assert.ok(fs.readFileSync(unreadable.logPath, 'utf8').includes('Looks fine to me.'), 'its output is kept');
    assert.equal(git(fixture.repo, 'for-each-ref', 'refs/parallel-agents/review/'), '', 'no snapshot ref left');

    await assert.rejects(
      reviewer.review(done.id, { profile: 'missing' }),
      (e) => AgentError.is(e) && e.code === 'executableNotOnPath',
    );
    assert.equal(review.comments(done.id).length, 0, 'nothing lost, nothing added');
  });

  it('Continue with Another Agent runs the second profile in the same worktree; the record lists both runs', async () => {
    const done = await author('create notes.txt: one\\n');
    assert.deepEqual(
      done.runs?.map((r) => [r.profile, typeof r.startedAt, typeof r.endedAt]),
      [['demo', 'number', 'number']],
    );
    const prompt = continuePrompt(done, 'append notes.txt: two\\n');
    assert.ok(prompt.startsWith('create notes.txt: one\\n\n\nContinue from the current state of the worktree'));
    await manager.followUp(done.id, prompt, 'demo-b');
    const after = await fixture.finished(manager, done.id);
    assert.equal(after.status, 'succeeded');
    assert.equal(after.profile, 'demo-b');
    assert.equal(after.cwd, done.cwd);
    assert.equal(fs.readFileSync(path.join(done.cwd, 'notes.txt'), 'utf8'), 'one\ntwo\n');
    const runs = after.runs ?? [];
    assert.deepEqual(
      runs.map((r) => r.profile),
      ['demo', 'demo-b'],
    );
    assert.ok(runs[0].endedAt! <= runs[1].startedAt && runs[1].startedAt <= runs[1].endedAt!);
  });
});
