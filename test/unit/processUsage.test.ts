import * as assert from 'node:assert/strict';
import {
  ProcessForest,
  type ProcStat,
  type ProcessTable,
  UsageSampler,
  parseProcStat,
  sampleTree,
  treeUsage,
} from '../../src/core/usage';

/** A /proc/<pid>/stat line with the fields the parser reads; the others are 0. */
function statLine(p: { pid: number; name?: string; ppid: number; pgrp: number; utime?: number; rss?: number }): string {
  const fields = new Array<number | string>(52 - 2).fill(0);
  const set = (n: number, v: number | string) => (fields[n - 3] = v);
  set(3, 'S');
  set(4, p.ppid);
  set(5, p.pgrp);
  set(14, p.utime ?? 0);
  set(15, 3);
  set(16, 2);
  set(17, 1);
  set(22, 777);
  set(24, p.rss ?? 10);
  return `${p.pid} (${p.name ?? 'node'}) ${fields.join(' ')}\n`;
}

const proc = (pid: number, ppid: number, pgrp = pid, ticks = 0, rssPages = 1): ProcStat => ({
  pid,
  ppid,
  pgrp,
  ticks,
  start: 1,
  rssPages,
});

describe('process usage arithmetic (core/usage)', () => {
  it('parses /proc/<pid>/stat, a name with spaces and parentheses included', () => {
    const stat = parseProcStat(statLine({ pid: 42, name: 'my (odd) name) x', ppid: 7, pgrp: 42, utime: 50, rss: 9 }));
    assert.deepEqual(stat, { pid: 42, ppid: 7, pgrp: 42, ticks: 56, start: 777, rssPages: 9 });
    assert.equal(parseProcStat(''), undefined);
    assert.equal(parseProcStat('12 (x) S 1 2'), undefined, 'too few fields');
    assert.equal(parseProcStat('garbage without parens'), undefined);
  });

  it("finds a root's descendants and the members of groups they lead, and nothing else", () => {
    const forest = new ProcessForest([
      proc(1, 0),
      proc(100, 1), // the supervisor
      proc(101, 100, 101), // the agent, leading its group
      proc(102, 101, 101), // its child
      proc(103, 102, 103), // a grandchild in a group of its own
      proc(104, 1, 101), // left by its parent: adopted by init, still in the agent's group
      proc(200, 1), // someone else
      proc(201, 200, 200),
    ]);
    const pids = (root: number) =>
      forest
        .tree(root)
        .map((p) => p.pid)
        .sort((a, b) => a - b);
    assert.deepEqual(pids(100), [100, 101, 102, 103, 104]);
    assert.deepEqual(pids(102), [102, 103]);
    assert.deepEqual(pids(200), [200, 201]);
    assert.deepEqual(pids(999), [], 'a root that is gone has no tree');
  });

  it('computes CPU from the tree total between samples: reaped children carry on, a loss counts 0', () => {
    const page = 4096;
    const first = sampleTree([proc(1, 0, 1, 100, 5), proc(2, 1, 2, 50, 3)], 1000, page);
    assert.deepEqual(first, { at: 1000, ticks: 150, rssBytes: 8 * page, processes: 2 });
    assert.deepEqual(treeUsage(undefined, first, 100), { rssBytes: 8 * page, processes: 2 }, 'no CPU from one sample');
    // 2 s later the child was reaped: its 80 ticks are in the parent's cutime (100 + 80 + 20 own).
    const second = sampleTree([proc(1, 0, 1, 200, 5)], 3000, page);
    assert.equal(treeUsage(first, second, 100).cpuPercent, 25, '50 ticks in 2 s = 0.5 s in 2 s');
    const third = sampleTree([proc(1, 0, 1, 120, 5)], 4000, page);
    assert.equal(treeUsage(second, third, 100).cpuPercent, 0, 'never negative');
    const busy = sampleTree([proc(1, 0, 1, 320, 5)], 5000, page);
    assert.equal(treeUsage(third, busy, 100).cpuPercent, 200, 'two cores busy: 200%');
    assert.equal(treeUsage(busy, busy, 100).cpuPercent, undefined, 'no time passed: no rate');
  });
});

/** A fake clock whose timers run when the test says. */
class FakeTimers {
  time = 0;
  readonly pending = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  now = () => this.time;
  setTimeout = (fn: () => void, ms: number) => {
    this.pending.set(this.next, { at: this.time + ms, fn });
    return this.next++;
  };
  clearTimeout = (handle: unknown) => void this.pending.delete(handle as number);
  async advance(ms: number): Promise<void> {
    this.time += ms;
    for (const [id, t] of [...this.pending].filter(([, t]) => t.at <= this.time)) {
      this.pending.delete(id);
      t.fn();
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('UsageSampler: samples only while wanted and some agent is live', () => {
  it('reads the table on a timer while wanted, stops when hidden or when no agent runs', async () => {
    const timers = new FakeTimers();
    let reads = 0;
    let ticks = 0;
    const table: ProcessTable = {
      read: async () => {
        reads++;
        return [proc(10, 1, 10, (ticks += 100), 2)];
      },
      pageBytes: 4096,
      ticksPerSecond: 100,
    };
    let roots = new Map([['a', 10]]);
    const sampler = new UsageSampler({ table, roots: () => roots, timers, intervalMs: 2000 });
    const fired: string[][] = [];
    sampler.onDidChange((ids) => fired.push([...ids]));

    sampler.poke();
    await timers.advance(5000);
    assert.equal(reads, 0, 'not wanted: no read');
    assert.equal(timers.pending.size, 0, 'no timer held');

    sampler.setWanted(true);
    await timers.advance(0);
    assert.equal(reads, 1);
    assert.deepEqual(sampler.usage('a'), { rssBytes: 8192, processes: 1 });
    await timers.advance(2000);
    assert.equal(reads, 2);
    assert.equal(sampler.usage('a')?.cpuPercent, 50, '100 ticks in 2 s');
    assert.deepEqual(fired, [['a'], ['a']]);

    sampler.setWanted(false);
    assert.equal(sampler.usage('a'), undefined, 'hidden: figures dropped');
    await timers.advance(10000);
    assert.equal(reads, 2, 'hidden: no read');

    sampler.setWanted(true);
    await timers.advance(0);
    assert.equal(reads, 3);
    roots = new Map();
    sampler.poke(); // the manager's change event
    assert.equal(sampler.usage('a'), undefined, 'an agent that ended has no figures');
    await timers.advance(2000);
    assert.equal(reads, 3, 'no live agent: no read');
    assert.equal(timers.pending.size, 0);
    sampler.dispose();
  });

  it('reads the whole table every `fullEvery` samples or for a new root, else only the processes of the trees', async () => {
    const timers = new FakeTimers();
    const asked: (readonly number[] | undefined)[] = [];
    const all = [proc(1, 0), proc(10, 1), proc(11, 10, 10), proc(20, 1), proc(30, 1)];
    const table: ProcessTable = {
      read: async (pids) => (asked.push(pids), pids ? all.filter((p) => pids.includes(p.pid)) : all),
      pageBytes: 4096,
      ticksPerSecond: 100,
    };
    const roots = new Map([['a', 10]]);
    const sampler = new UsageSampler({ table, roots: () => roots, timers, intervalMs: 1000, fullEvery: 3 });
    sampler.setWanted(true);
    await timers.advance(0);
    for (let i = 0; i < 3; i++) {
      await timers.advance(1000);
    }
    assert.deepEqual(asked, [undefined, [10, 11], [10, 11], undefined]);
    roots.set('b', 20); // a new agent: its root is not among the known processes
    await timers.advance(1000);
    assert.equal(asked[4], undefined);
    assert.equal(sampler.usage('b')?.processes, 1);
    await timers.advance(1000);
    assert.deepEqual(asked[5], [10, 11, 20]);
    assert.equal(sampler.usage('a')?.processes, 2, 'the tree is whole from a partial read');
    sampler.dispose();
  });

  it('never starts where there is no process table', async () => {
    const timers = new FakeTimers();
    const sampler = new UsageSampler({ table: undefined, roots: () => new Map([['a', 1]]), timers, intervalMs: 10 });
    sampler.setWanted(true);
    await timers.advance(100);
    assert.equal(sampler.available, false);
    assert.equal(timers.pending.size, 0);
    assert.equal(sampler.usage('a'), undefined);
  });
});
