// Review comments end to end: a real demo agent in a real worktree, comments stored on its record in
// the repository's registry, sent as one follow-up the real process acts on, then marked addressed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents';
import { AgentError } from '../../src/core/errors';
import { ReviewComments } from '../../src/core/review';
import { NodeFileBytes } from '../../src/node/fileBytes';
import { registryDirSync } from '../../src/node/registry/location';
import { ManagerFixture } from './managerFixture';
import { openRegistryStore } from './registryFixture';

describe('review comments (real demo agent, real git, registry on disk)', function () {
  this.timeout(60_000);
  let fixture: ManagerFixture;
  let registry: string;
  const stores: { dispose(): void }[] = [];
  let n = 0;

  beforeEach(() => {
    fixture = new ManagerFixture();
    registry = registryDirSync(fixture.repo) as string;
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) {
      store.dispose();
    }
    await fixture.dispose();
  });

  /** One window: a store on the registry, a manager on it, and the review comments of its agents. */
  function openWindow(): { manager: AgentManager; review: ReviewComments } {
    const store = openRegistryStore(registry);
    stores.push(store);
    const manager = fixture.manager({ store });
    const review = new ReviewComments({
      manager,
      files: new NodeFileBytes(),
      clock: { now: () => Date.now() },
      newId: () => `c${n++}`,
    });
    stores.push(review);
    return { manager, review };
  }

  async function until(what: string, check: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !check(); i++) {
      await new Promise((res) => setTimeout(res, 25));
    }
    assert.ok(check(), what);
  }

  it('sends two comments in two files as one follow-up the agent acts on; they are addressed and survive a reload', async () => {
    const { manager, review } = openWindow();
    const first = await manager.dispatch({
      prompt: [
        'create notes.txt: one\\ntwo\\nthree\\n',
        'create src/calc.js: let a = 1;\\nlet b = 2;\\nlet c = 3;\\n',
        'delete app.js',
      ].join('\n'),
      profile: 'demo',
      folder: fixture.repo,
      title: 'Reviewed',
    });
    const done = await fixture.finished(manager, first.id);
    assert.deepEqual(done.changedFiles.map((f) => `${f.kind} ${f.path}`).sort(), [
      'deleted app.js',
      'untracked notes.txt',
      'untracked src/calc.js',
    ]);

    // Bad input first: each refused with its code, nothing stored, nothing sent.
    await assert.rejects(review.send(first.id), (e) => AgentError.is(e) && e.code === 'emptyReview');
    await assert.rejects(
      review.add(first.id, { path: 'app.js', startLine: 1, endLine: 1, body: 'why?' }),
      (e) => AgentError.is(e) && e.code === 'reviewFileDeleted',
    );
    await assert.rejects(
      review.add(first.id, { path: 'README.md', startLine: 1, endLine: 1, body: 'x' }),
      (e) => AgentError.is(e) && e.code === 'reviewFileNotChanged',
    );
    await assert.rejects(
      review.add(first.id, { path: 'notes.txt', startLine: 1, endLine: 1, body: '  ' }),
      (e) => AgentError.is(e) && e.code === 'emptyComment',
    );
    assert.equal(manager.get(first.id).comments, undefined);
    assert.equal(manager.get(first.id).followUps, undefined);

    await review.add(first.id, { path: 'notes.txt', startLine: 2, endLine: 2, body: 'replace notes.txt: two => TWO' });
    await review.add(first.id, {
      path: 'src/calc.js',
      startLine: 2,
      endLine: 3,
      body: 'replace src/calc.js: let b = 2; => const b = 2;',
    });
    await review.add(first.id, { path: 'notes.txt', startLine: 3, endLine: 3, body: 'Looks right, keep it.' });
    assert.deepEqual(
      review.comments(first.id).map((c) => [c.path, c.startLine, c.endLine, c.quoted, c.sentAt]),
      [
        ['notes.txt', 2, 2, ['two'], undefined],
        ['src/calc.js', 2, 3, ['let b = 2;', 'let c = 3;'], undefined],
        ['notes.txt', 3, 3, ['three'], undefined],
      ],
    );

    const sent = await review.send(first.id);
    assert.equal(sent.count, 3);
    const after = await fixture.finished(manager, first.id);
    assert.equal(after.status, 'succeeded');
    assert.deepEqual(after.followUps, [sent.prompt], 'one follow-up holds the whole review');
    const prompt = sent.prompt;
    for (const part of [
      'notes.txt, line 2:\n   > two\n   replace notes.txt: two => TWO',
      'notes.txt, line 3:\n   > three\n   Looks right, keep it.',
      'src/calc.js, lines 2-3:\n   > let b = 2;\n   > let c = 3;\n   replace src/calc.js: let b = 2; => const b = 2;',
    ]) {
      assert.ok(prompt.includes(part), `the prompt holds ${JSON.stringify(part)}:\n${prompt}`);
    }
    // The real process acted on the comments, in the agent's own worktree.
    assert.equal(fs.readFileSync(path.join(first.cwd, 'notes.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(
      fs.readFileSync(path.join(first.cwd, 'src/calc.js'), 'utf8'),
      'let a = 1;\nconst b = 2;\nlet c = 3;\n',
    );
    assert.equal(fs.existsSync(path.join(fixture.repo, 'notes.txt')), false, 'the workspace is untouched');

    const state = (r: AgentRecord) => (r.comments ?? []).map((c) => [c.path, c.startLine, !!c.sentAt, !!c.addressed]);
    await until(
      'the run that changed the lines marks their comments addressed',
      () => (manager.get(first.id).comments ?? []).filter((c) => c.addressed).length === 2,
    );
    const expected = [
      ['notes.txt', 2, true, true],
      ['src/calc.js', 2, true, true],
      ['notes.txt', 3, true, false],
    ];
    assert.deepEqual(state(manager.get(first.id)), expected, 'the comment on unchanged lines stays open');
    await assert.rejects(review.send(first.id), (e) => AgentError.is(e) && e.code === 'emptyReview');
    assert.equal(manager.get(first.id).followUps?.length, 1, 'an empty review sends nothing');

    // A reload: a new window reads the comments back from the registry on disk.
    await manager.flush();
    const reloaded = openWindow();
    assert.deepEqual(state(reloaded.manager.get(first.id)), expected);
    assert.deepEqual(reloaded.review.comments(first.id), manager.get(first.id).comments);

    // A pending comment written in the reloaded window is removed there and stays removed for the next one.
    const extra = await reloaded.review.add(first.id, { path: 'notes.txt', startLine: 1, endLine: 1, body: 'x' });
    reloaded.review.remove(first.id, extra.id);
    await reloaded.manager.flush();
    assert.equal(openWindow().review.comments(first.id).length, 3);
  });
});
