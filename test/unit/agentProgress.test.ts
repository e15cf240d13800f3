import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentActivity } from '../../src/core/agent';
import { type LogRead, ProgressFeed, Throttle, type Timers, replayLimit } from '../../src/core/clis/agentProgress';

const fixtures = path.resolve(__dirname, '../../../test/fixtures/agentOutput');
const read = (name: string) => fs.readFileSync(path.join(fixtures, name), 'utf8');
const claudeCwd = (log: string) => /"cwd":"([^"]+)"/.exec(log)?.[1] ?? '';

/** Timers that move only when the test says so. */
class FakeTimers implements Timers {
  time = 1000;
  private pending: { at: number; fn: () => void; id: number }[] = [];
  private ids = 0;

  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.pending.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }
  get scheduled(): number {
    return this.pending.length;
  }
  advance(ms: number): void {
    this.time += ms;
    for (
      let due = this.pending.filter((p) => p.at <= this.time);
      due.length > 0;
      due = this.pending.filter((p) => p.at <= this.time)
    ) {
      this.pending = this.pending.filter((p) => !due.includes(p));
      due.forEach((p) => p.fn());
    }
  }
}

/** A log read as AgentProcess.readLogFrom does, in slices of `slice` characters (positions count characters here). */
function logReader(log: string, slice = 100): LogRead {
  return async (offset, end) => {
    const stop = Math.min(end ?? log.length, log.length, offset + slice);
    return { text: log.slice(offset, stop), next: Math.max(offset, stop), end: log.length };
  };
}

describe('agent progress (throttled reports of JSON events)', () => {
  it('throttle: the first trigger calls at once, triggers inside the interval make one trailing call at its end', () => {
    const timers = new FakeTimers();
    let calls = 0;
    const throttle = new Throttle(() => calls++, 250, timers);
    throttle.trigger();
    assert.equal(calls, 1);
    for (let i = 0; i < 50; i++) {
      throttle.trigger();
      timers.advance(2);
    }
    assert.equal(calls, 1, 'nothing more inside the interval');
    assert.equal(timers.scheduled, 1, 'one trailing call pending');
    timers.advance(150);
    assert.equal(calls, 2, 'the trailing call came at the end of the interval');
    timers.advance(1000);
    assert.equal(calls, 2, 'no call without a trigger');
    throttle.trigger();
    assert.equal(calls, 3, 'after a quiet interval a trigger calls at once');
    throttle.trigger();
    throttle.dispose();
    timers.advance(1000);
    assert.equal(calls, 3, 'dispose drops the pending call');
  });

  it('reports a claude run as it goes, at most once per interval, with the newest state', () => {
    const timers = new FakeTimers();
    const log = read('claude-edit.jsonl');
    const reports: AgentActivity[] = [];
    const feed = new ProgressFeed('claude-stream-json', claudeCwd(log), (a) => reports.push(a), timers, 250);
    const lines = log.split('\n').filter((l) => l !== '');
    feed.push(`${lines[0]}\n${lines[1]}\n`);
    assert.deepEqual(reports, [{ step: 'Write notes/hello.txt' }], 'the first change is reported at once');
    lines.slice(2).forEach((l) => feed.push(`${l}\n`));
    assert.equal(reports.length, 1, 'the rest waits for the interval');
    timers.advance(250);
    assert.equal(reports.length, 2);
    assert.deepEqual(reports[1], {
      step: 'Write notes/hello.txt',
      turns: 2,
      inputTokens: 20,
      outputTokens: 10,
      costUsd: 0.00028000000000000003,
      result: 'DONE',
    });
    assert.ok(feed.sawOutput);
  });

  it('finish gives the final activity, denials included, and drops a pending report', () => {
    const timers = new FakeTimers();
    const reports: AgentActivity[] = [];
    const log = read('claude-permission-denied.jsonl');
    const feed = new ProgressFeed('claude-stream-json', claudeCwd(log), (a) => reports.push(a), timers, 250);
    // The last line without its newline: finish() still reads it.
    feed.push(log.trimEnd());
    const before = reports.length;
    const final = feed.finish();
    assert.deepEqual(final.denials, ['Write notes/hello.txt']);
    assert.equal(final.result, 'DONE');
    timers.advance(1000);
    assert.equal(reports.length, before, 'nothing reported after the end');
  });

  it('replay rebuilds the state from the log; live output that arrives meanwhile is fed after it, in order', async () => {
    const timers = new FakeTimers();
    const reports: AgentActivity[] = [];
    const log = read('claude-edit.jsonl');
    const lines = log.split('\n').filter((l) => l !== '');
    const before = `${lines.slice(0, 3).join('\n')}\n`;
    const feed = new ProgressFeed('claude-stream-json', claudeCwd(log), (a) => reports.push(a), timers, 250);
    const replayed = feed.replay(logReader(before, 37), before.length);
    feed.push(`${lines.slice(3).join('\n')}\n`);
    assert.equal(reports.length, 0, 'live output waits for the log read back');
    await replayed;
    assert.deepEqual(feed.finish(), {
      step: 'Write notes/hello.txt',
      turns: 2,
      inputTokens: 20,
      outputTokens: 10,
      costUsd: 0.00028000000000000003,
      result: 'DONE',
    });
    assert.equal(reports.length, 1);
  });

  it('replay without an end reads from a position to the end of the log; it reads at most replayLimit', async () => {
    const log = read('codex-edit.jsonl');
    const feed = new ProgressFeed('codex-json', '', () => undefined, new FakeTimers(), 250);
    await feed.replay(logReader(log), undefined, 0);
    assert.equal(feed.activity.result, 'DONE');
    assert.equal(feed.activity.turns, 1);
    const offsets: number[] = [];
    const huge: LogRead = async (offset) => {
      offsets.push(offset);
      return { text: '', next: offset, end: replayLimit * 3 };
    };
    await new ProgressFeed('codex-json', '', () => undefined, new FakeTimers(), 250).replay(huge, undefined);
    assert.deepEqual(offsets, [0, replayLimit * 2]);
  });

  it('a log that cannot be read back still lets live output through', async () => {
    const reports: AgentActivity[] = [];
    const feed = new ProgressFeed('gemini-stream-json', '', (a) => reports.push(a), new FakeTimers(), 250);
    const failing = feed.replay(async () => {
      throw new Error('gone');
    }, 100);
    feed.push('{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":"a.ts"}}\n');
    await assert.rejects(failing, /gone/);
    assert.equal(feed.activity.step, 'read_file a.ts');
    assert.equal(reports.length, 1);
  });
});
