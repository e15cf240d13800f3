// Reading many files at one commit in one git process: the `git cat-file --batch` answer parser,
// and the Batcher that gathers the base side's single reads into such batches.
import * as assert from 'node:assert/strict';
import { AgentError } from '../../src/core/errors';
import { parseCatFileBatch } from '../../src/node/git/blobs';
import { Batcher } from '../../src/util/async';

const oid = 'a'.repeat(40);

describe('parseCatFileBatch', () => {
  it('takes each blob by its size, bytes as they are (line breaks, NUL, non-UTF-8 included)', () => {
    const first = Buffer.from('one\ntwo\n');
    const second = Buffer.from([0x00, 0x0a, 0xff, 0x0a]);
    const stdout = Buffer.concat([
      Buffer.from(`${oid} blob ${first.length}\n`),
      first,
      Buffer.from('\n'),
      Buffer.from(`${oid} blob ${second.length}\n`),
      second,
      Buffer.from('\n'),
    ]);
    assert.deepEqual(parseCatFileBatch(stdout, 2), [first, second]);
  });

  it('gives undefined for a missing or ambiguous name (spaces in it too) and for a tree, and keeps the order', () => {
    const tree = Buffer.from('100644 blob x\tfile');
    const stdout = Buffer.concat([
      Buffer.from(`${oid}:src/a b.txt missing\n`),
      Buffer.from(`${oid} tree ${tree.length}\n`),
      tree,
      Buffer.from('\n'),
      Buffer.from('abc ambiguous\n'),
      Buffer.from(`${'b'.repeat(64)} blob 0\n\n`),
    ]);
    assert.deepEqual(parseCatFileBatch(stdout, 4), [undefined, undefined, undefined, Buffer.alloc(0)]);
  });

  it('refuses an answer cut short or a header it does not know', () => {
    const unexpected = (answer: number, count: number) => (e: unknown) =>
      AgentError.isCode(e, 'catFileOutputUnexpected') && e.data.answer === answer && e.data.count === count;
    assert.throws(() => parseCatFileBatch(Buffer.from(`${oid} blob 3\nabc\n`), 2), unexpected(2, 2));
    assert.throws(() => parseCatFileBatch(Buffer.from('fatal: something\n'), 1), unexpected(1, 1));
  });
});

describe('Batcher', () => {
  it('loads the keys asked for together in one batch, and those asked for during a load in the next', async () => {
    const loads: [string, string[]][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new Batcher<string>(async (group, keys) => {
      loads.push([group, keys]);
      if (loads.length === 1) {
        await gate;
      }
      return keys.map((k) => `${group}:${k}`);
    });
    const first = [batcher.get('g', 'a'), batcher.get('g', 'b'), batcher.get('g', 'a'), batcher.get('h', 'c')];
    await new Promise((resolve) => setTimeout(resolve, 5));
    // The first load of g still runs: these wait for the next one, together.
    const later = [batcher.get('g', 'c'), batcher.get('g', 'd')];
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(loads, [
      ['g', ['a', 'b']],
      ['h', ['c']],
    ]);
    release();
    assert.deepEqual(await Promise.all(first), ['g:a', 'g:b', 'g:a', 'h:c']);
    assert.deepEqual(await Promise.all(later), ['g:c', 'g:d']);
    assert.deepEqual(loads[2], ['g', ['c', 'd']]);
    assert.equal(loads.length, 3);
  });

  it("fails every read of a failed batch, and the group's next batch still loads", async () => {
    let calls = 0;
    const batcher = new Batcher<number>((_group, keys) => {
      calls++;
      if (calls === 1) {
        throw new Error('no such commit');
      }
      return Promise.resolve(keys.map((k) => k.length));
    });
    const failed = [batcher.get('g', 'x'), batcher.get('g', 'yy')];
    await Promise.all(failed.map((p) => assert.rejects(p, /no such commit/)));
    assert.equal(await batcher.get('g', 'zzz'), 3);
  });
});
