import * as assert from 'node:assert/strict';
import { asWriteTask, ProcessLimiter } from '../../src/node/git/processLimiter';

/** A task that runs until `release` is called; `started` tells whether it got a slot. */
function held(limiter: ProcessLimiter, log: string[], name: string, urgent = false) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const run = () =>
    limiter.run(async () => {
      log.push(name);
      await gate;
    });
  const done = urgent ? asWriteTask(run) : run();
  return { release, done };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ProcessLimiter (git process cap with a lane for write-queue holders)', () => {
  it('runs at most `max` ordinary tasks at once, the rest in order as slots free', async () => {
    const limiter = new ProcessLimiter(2, 1);
    const log: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((n) => held(limiter, log, n));
    await tick();
    assert.deepEqual(log, ['a', 'b']);
    tasks[1].release();
    await tasks[1].done;
    await tick();
    assert.deepEqual(log, ['a', 'b', 'c']);
    tasks[0].release();
    await tick();
    assert.deepEqual(log, ['a', 'b', 'c', 'd']);
    tasks.forEach((t) => t.release());
    await Promise.all(tasks.map((t) => t.done));
  });

  it('a task started under a write queue runs at once in the reserve while ordinary ones wait', async () => {
    const limiter = new ProcessLimiter(2, 1);
    const log: string[] = [];
    const ordinary = ['a', 'b', 'c'].map((n) => held(limiter, log, n));
    const writer = held(limiter, log, 'w', true);
    await tick();
    assert.deepEqual(log, ['a', 'b', 'w'], 'the writer did not wait behind c');
    const second = held(limiter, log, 'w2', true);
    await tick();
    assert.deepEqual(log, ['a', 'b', 'w'], 'the reserve is one: the second writer waits');
    ordinary[0].release();
    await tick();
    assert.deepEqual(log, ['a', 'b', 'w', 'w2'], 'a freed slot goes to the waiting writer before c');
    writer.release();
    second.release();
    await tick();
    assert.deepEqual(log, ['a', 'b', 'w', 'w2', 'c']);
    ordinary.forEach((t) => t.release());
    await Promise.all([...ordinary, writer, second].map((t) => t.done));
  });

  it('writers wait in their own order, ahead of ordinary tasks; a failing task frees its slot', async () => {
    const limiter = new ProcessLimiter(1, 0);
    const log: string[] = [];
    const first = held(limiter, log, 'a');
    const plain = held(limiter, log, 'b');
    const w1 = held(limiter, log, 'w1', true);
    const w2 = held(limiter, log, 'w2', true);
    const failing = limiter.run(() => Promise.reject(new Error('boom')));
    await tick();
    assert.deepEqual(log, ['a']);
    first.release();
    await tick();
    assert.deepEqual(log, ['a', 'w1']);
    w1.release();
    await tick();
    assert.deepEqual(log, ['a', 'w1', 'w2']);
    w2.release();
    await tick();
    assert.deepEqual(log, ['a', 'w1', 'w2', 'b']);
    plain.release();
    await assert.rejects(failing, /boom/);
    await limiter.run(async () => log.push('after'));
    assert.deepEqual(log.at(-1), 'after');
  });
});
