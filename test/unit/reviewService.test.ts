// ReviewComments over an in-memory stand-in of the manager's records and the agent's files: which
// comment is stored, sent, edited, removed and marked addressed, line for line. The real manager,
// git and demo agent run the same service in test/git/reviewComments.test.ts and agentReview.test.ts.
import * as assert from 'node:assert/strict';
import type { AgentRecord, ReviewComment } from '../../src/core/agent';
import type { AgentChange } from '../../src/core/agents/agentRecords';
import { AgentError } from '../../src/core/errors';
import { type PlacedFinding, ReviewComments } from '../../src/core/review';
import { Emitter } from '../../src/util/event';
import { agentRecord } from './agentRecords';

const encode = (text: string) => new TextEncoder().encode(text);

/** The manager's part ReviewComments uses: records in a map, annotate and followUp recorded. */
class Records {
  readonly records = new Map<string, AgentRecord>();
  readonly changes = new Emitter<AgentChange>();
  readonly followUps: [string, string][] = [];
  annotations = 0;
  /** Run inside followUp, before it returns (another window acting meanwhile). */
  duringFollowUp?: () => void;

  get = (id: string): AgentRecord => {
    const record = this.records.get(id);
    assert.ok(record, `no agent ${id}`);
    return record;
  };
  list = () => [...this.records.values()];
  annotate = (id: string, patch: Partial<AgentRecord>) => {
    this.annotations++;
    this.records.set(id, { ...this.get(id), ...patch });
  };
  followUp = (id: string, prompt: string) => {
    this.followUps.push([id, prompt]);
    this.duringFollowUp?.();
    return Promise.resolve();
  };
  onDidChangeAgent = this.changes.event;
}

describe('review comments service (in-memory records and files)', () => {
  let records: Records;
  let files: Map<string, Uint8Array>;
  let reads: string[];
  let clock: number;
  let ids: number;
  let review: ReviewComments;

  const add = (id: string, extra: Partial<AgentRecord> = {}) => {
    records.records.set(
      id,
      agentRecord(id, {
        status: 'succeeded',
        cwd: `/w/${id}`,
        changedFiles: [
          { path: 'a.txt', kind: 'modified', binary: false },
          { path: 'b.txt', kind: 'added', binary: false },
          { path: 'gone.txt', kind: 'deleted', binary: false },
        ],
        ...extra,
      }),
    );
  };
  const write = (path: string, text: string | Uint8Array) =>
    files.set(path, typeof text === 'string' ? encode(text) : text);
  const comment = (id: string, extra: Partial<ReviewComment>): ReviewComment => ({
    id,
    path: 'a.txt',
    startLine: 2,
    endLine: 2,
    quoted: ['two'],
    body: 'x',
    createdAt: 1,
    ...extra,
  });
  const rejectsWith = (code: string) => (e: unknown) => AgentError.is(e) && e.code === code;
  const settle = () => new Promise((r) => setTimeout(r, 5));

  beforeEach(() => {
    records = new Records();
    files = new Map();
    reads = [];
    clock = 1000;
    ids = 0;
    review = new ReviewComments({
      manager: records,
      files: {
        read: (path) => {
          reads.push(path);
          return Promise.resolve(files.get(path));
        },
      },
      clock: { now: () => clock },
      newId: () => `c${ids++}`,
    });
    add('A');
    write('/w/A/a.txt', 'one\ntwo\nthree\nfour\n');
    write('/w/A/b.txt', 'b1\r\nb2\r\n');
  });
  afterEach(() => review.dispose());

  it('adds a comment on ordered, 1-based lines with the lines quoted and the text trimmed', async () => {
    const added = await review.add('A', { path: 'a.txt', startLine: 3, endLine: 2, body: '  fix these \n' });
    assert.deepEqual(added, {
      id: 'c0',
      path: 'a.txt',
      startLine: 2,
      endLine: 3,
      quoted: ['two', 'three'],
      body: 'fix these',
      createdAt: 1000,
    });
    assert.deepEqual(reads, ['/w/A/a.txt']);
    const low = await review.add('A', { path: 'b.txt', startLine: 0, endLine: 0, body: 'top' });
    assert.deepEqual([low.startLine, low.endLine, low.quoted], [1, 1, ['b1']]);
    const wide = await review.add('A', { path: 'b.txt', startLine: -3, endLine: 2, body: 'both' });
    assert.deepEqual([wide.startLine, wide.endLine, wide.quoted], [1, 2, ['b1', 'b2']]);
    assert.deepEqual(
      review.comments('A').map((c) => c.id),
      ['c0', 'c1', 'c2'],
    );
  });

  it('keeps the comments another window added while it read the file', async () => {
    const racing = comment('theirs', {});
    const read = files.get('/w/A/a.txt');
    review = new ReviewComments({
      manager: records,
      files: {
        read: () => {
          records.annotate('A', { comments: [...(records.get('A').comments ?? []), racing] });
          return Promise.resolve(read);
        },
      },
      clock: { now: () => clock },
      newId: () => 'mine',
    });
    await review.add('A', { path: 'a.txt', startLine: 1, endLine: 1, body: 'x' });
    assert.deepEqual(
      review.comments('A').map((c) => c.id),
      ['theirs', 'mine'],
    );
    await review.addFromReviewer('A', [{ general: false, path: 'a.txt', startLine: 1, endLine: 1, body: 'y' }], 'r');
    assert.deepEqual(
      review.comments('A').map((c) => c.id),
      ['theirs', 'mine', 'theirs', 'mine'],
      'the reviewer’s are added to what is stored after the reads',
    );
  });

  it('refuses an empty text, a file not changed and a file deleted or missing, storing nothing', async () => {
    await assert.rejects(
      review.add('A', { path: 'a.txt', startLine: 1, endLine: 1, body: ' \n' }),
      rejectsWith('emptyComment'),
    );
    assert.equal(reads.length, 0, 'an empty comment reads no file');
    await assert.rejects(
      review.add('A', { path: 'other.txt', startLine: 1, endLine: 1, body: 'x' }),
      (e: unknown) =>
        AgentError.isCode(e, 'reviewFileNotChanged') && e.data.path === 'other.txt' && e.data.title === 'A',
    );
    write('/w/A/gone.txt', 'still on disk\n');
    await assert.rejects(
      review.add('A', { path: 'gone.txt', startLine: 1, endLine: 1, body: 'x' }),
      (e: unknown) => AgentError.isCode(e, 'reviewFileDeleted') && e.data.path === 'gone.txt' && e.data.title === 'A',
    );
    assert.equal(reads.includes('/w/A/gone.txt'), false, 'a deleted file is not read');
    files.delete('/w/A/b.txt');
    await assert.rejects(
      review.add('A', { path: 'b.txt', startLine: 1, endLine: 1, body: 'x' }),
      rejectsWith('reviewFileDeleted'),
    );
    assert.equal(records.annotations, 0);
    assert.deepEqual(review.comments('A'), []);
  });

  it('adds a reviewer’s findings at once: on lines with their quote, a general one on line 1 quoting nothing', async () => {
    const placed: PlacedFinding[] = [
      { general: false, path: 'a.txt', startLine: 3, endLine: 4, body: 'here' },
      { general: true, path: 'b.txt', body: 'x.txt:9: elsewhere' },
      { general: false, path: 'b.txt', startLine: 2, endLine: 2, body: 'b' },
      { general: false, path: 'a.txt', startLine: 1, endLine: 1, body: 'again' },
    ];
    clock = 5;
    const added = await review.addFromReviewer('A', placed, 'codex');
    assert.deepEqual(added, [
      {
        id: 'c0',
        path: 'a.txt',
        startLine: 3,
        endLine: 4,
        quoted: ['three', 'four'],
        body: 'here',
        createdAt: 5,
        reviewer: 'codex',
      },
      {
        id: 'c1',
        path: 'b.txt',
        startLine: 1,
        endLine: 1,
        quoted: [],
        body: 'x.txt:9: elsewhere',
        createdAt: 5,
        reviewer: 'codex',
        general: true,
      },
      { id: 'c2', path: 'b.txt', startLine: 2, endLine: 2, quoted: ['b2'], body: 'b', createdAt: 5, reviewer: 'codex' },
      {
        id: 'c3',
        path: 'a.txt',
        startLine: 1,
        endLine: 1,
        quoted: ['one'],
        body: 'again',
        createdAt: 5,
        reviewer: 'codex',
      },
    ]);
    assert.deepEqual(reads, ['/w/A/a.txt', '/w/A/b.txt'], 'each file read once');
    assert.deepEqual(review.comments('A'), added);
    reads.length = 0;
    await review.addFromReviewer('A', [{ general: true, path: 'gone.txt', body: 'g' }], 'codex');
    assert.equal(reads.length, 0, 'a general comment needs no file, not even a deleted one');
  });

  it('edits and removes only the comment named; an unknown one changes nothing', () => {
    records.annotate('A', { comments: [comment('one', {}), comment('two', { body: 'keep' })] });
    const before = records.annotations;
    review.edit('A', 'one', '  better  ');
    assert.deepEqual(
      review.comments('A').map((c) => [c.id, c.body]),
      [
        ['one', 'better'],
        ['two', 'keep'],
      ],
    );
    assert.throws(() => review.edit('A', 'one', '  '), rejectsWith('emptyComment'));
    review.edit('A', 'nope', 'text');
    review.remove('A', 'nope');
    assert.equal(records.annotations, before + 1, 'nothing stored for an unknown comment or an empty text');
    review.remove('A', 'one');
    assert.deepEqual(
      review.comments('A').map((c) => c.id),
      ['two'],
    );
  });

  it('sends the pending comments as one follow-up with the lines as they are now, marking only those sent', async () => {
    records.annotate('A', {
      comments: [
        comment('old', { sentAt: 10, quoted: ['old'] }),
        comment('p1', { path: 'b.txt', startLine: 2, endLine: 2, quoted: ['b2'], body: 'on b' }),
        comment('p2', { startLine: 1, endLine: 2, quoted: ['one', 'two'], body: 'on a' }),
        comment('g', { path: 'gone.txt', startLine: 1, endLine: 1, quoted: [], body: 'overall', general: true }),
      ],
    });
    write('/w/A/a.txt', 'ONE\ntwo\n');
    clock = 2000;
    records.duringFollowUp = () => {
      clock = 3000;
      records.annotate('A', { comments: [...records.get('A').comments!, comment('late', {})] });
    };
    const sent = await review.send('A');
    assert.equal(sent.count, 3);
    assert.deepEqual(records.followUps, [['A', sent.prompt]]);
    assert.ok(sent.prompt.startsWith('Review of your changes (3 comments).'), sent.prompt);
    assert.ok(sent.prompt.includes('a.txt, lines 1-2:\n   > ONE\n   > two\n   on a'), sent.prompt);
    assert.ok(sent.prompt.includes('b.txt, line 2:\n   > b2\n   on b'), sent.prompt);
    assert.ok(sent.prompt.includes('General comment:\n   overall'), sent.prompt);
    assert.equal(sent.prompt.match(/^\d\. /gm)?.length, 3, sent.prompt);
    assert.deepEqual(reads.sort(), ['/w/A/a.txt', '/w/A/b.txt'], 'a general comment’s file is not read');
    assert.deepEqual(
      review.comments('A').map((c) => [c.id, c.quoted, c.sentAt]),
      [
        ['old', ['old'], 10],
        ['p1', ['b2'], 2000],
        ['p2', ['ONE', 'two'], 2000],
        ['g', [], 2000],
        ['late', ['two'], undefined],
      ],
      'sentAt is taken before the follow-up starts; a comment added meanwhile stays pending',
    );
  });

  it('refuses to send with nothing pending, or when a commented file is gone, sending and marking nothing', async () => {
    await assert.rejects(review.send('A'), (e: unknown) => AgentError.isCode(e, 'emptyReview') && e.data.title === 'A');
    records.annotate('A', { comments: [comment('p', { path: 'b.txt' })] });
    files.delete('/w/A/b.txt');
    await assert.rejects(review.send('A'), rejectsWith('reviewFileDeleted'));
    assert.deepEqual(records.followUps, []);
    assert.equal(review.comments('A')[0].sentAt, undefined);
  });

  it('marks addressed the sent comments whose lines a later run changed, once per run end', async () => {
    write('/w/A/a.txt', 'one\nTWO\nthree\n');
    write('/w/A/b.txt', new Uint8Array([0x61, 0, 0x62]));
    records.annotate('A', {
      endedAt: 500,
      comments: [
        comment('changed', { sentAt: 400 }),
        comment('kept', { sentAt: 400, startLine: 3, endLine: 3, quoted: ['three'] }),
        comment('binary', { sentAt: 400, path: 'b.txt', quoted: ['b1'] }),
        comment('missing', { sentAt: 400, path: 'c.txt', quoted: ['c'] }),
        comment('pending', {}),
        comment('general', { sentAt: 400, general: true, quoted: [] }),
        comment('after', { sentAt: 600 }),
      ],
    });
    const before = records.annotations;
    const marked = await review.checkAfterRun('A');
    assert.deepEqual(
      marked.map((c) => c.id),
      ['changed', 'binary', 'missing'],
    );
    assert.deepEqual(
      review.comments('A').map((c) => [c.id, c.addressed ?? false]),
      [
        ['changed', true],
        ['kept', false],
        ['binary', true],
        ['missing', true],
        ['pending', false],
        ['general', false],
        ['after', false],
      ],
    );
    assert.equal(records.annotations, before + 1);
    assert.deepEqual(reads.sort(), ['/w/A/a.txt', '/w/A/b.txt', '/w/A/c.txt'], 'each file read once');

    // The same run end again (another change event of the record): not checked twice.
    write('/w/A/a.txt', 'one\ntwo\n');
    records.annotate('A', {
      comments: review.comments('A').map((c) => (c.id === 'kept' ? { ...c, quoted: ['gone'] } : c)),
    });
    reads.length = 0;
    assert.deepEqual(await review.checkAfterRun('A'), []);
    assert.equal(reads.length, 0);
    // A later run end is.
    records.annotate('A', { endedAt: 700 });
    assert.deepEqual(
      (await review.checkAfterRun('A')).map((c) => c.id),
      ['kept'],
    );
    const stored = records.annotations;
    records.annotate('A', { endedAt: 800 });
    assert.deepEqual(await review.checkAfterRun('A'), [], 'the comment still waiting kept its lines');
    assert.equal(records.annotations, stored + 1, 'nothing stored when nothing is addressed');
  });

  it('checks nothing while the agent runs, before it ever ended, or when nothing sent awaits a check', async () => {
    write('/w/A/a.txt', 'changed\n');
    records.annotate('A', { comments: [comment('s', { sentAt: 100 })] });
    assert.deepEqual(await review.checkAfterRun('A'), [], 'never ended');
    records.annotate('A', { status: 'running', endedAt: 200 });
    assert.deepEqual(await review.checkAfterRun('A'), [], 'running again');
    records.annotate('A', { status: 'succeeded', comments: [comment('s', { sentAt: 300 })] });
    assert.deepEqual(await review.checkAfterRun('A'), [], 'sent after the run ended');
    assert.equal(reads.length, 0);
    // Another window sends a comment the same run end covers: it is still checked.
    records.annotate('A', { comments: [comment('s', { sentAt: 150 })] });
    assert.deepEqual(
      (await review.checkAfterRun('A')).map((c) => c.id),
      ['s'],
    );
  });

  it('checks after a change of an agent and on resume, not after its removal, and no more once disposed', async () => {
    add('B', { endedAt: 50, comments: [comment('b', { sentAt: 10 })] });
    write('/w/B/a.txt', 'other\n');
    records.annotate('A', { endedAt: 50, comments: [comment('a', { sentAt: 10 })] });
    write('/w/A/a.txt', 'other\n');
    records.changes.fire({ id: 'A', kind: 'removed' });
    await settle();
    assert.equal(reads.length, 0, 'a removal checks nothing');
    records.changes.fire({ id: 'A', kind: 'updated' });
    await settle();
    assert.equal(review.comments('A')[0].addressed, true);
    assert.equal(review.comments('B')[0].addressed, undefined);
    review.resume();
    await settle();
    assert.equal(review.comments('B')[0].addressed, true);

    records.changes.fire({ id: 'ghost', kind: 'added' });
    await settle();
    review.dispose();
    add('C', { endedAt: 50, comments: [comment('c', { sentAt: 10 })] });
    write('/w/C/a.txt', 'other\n');
    records.changes.fire({ id: 'C', kind: 'updated' });
    await settle();
    assert.equal(review.comments('C')[0].addressed, undefined);
  });
});
