// Real processes: a busy loop, a sleeper, and a parent whose only work is its busy child. The
// sampler's figures for them come from the real /proc (Linux only).
import * as assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { ProcessForest, sampleTree, treeUsage } from '../../src/core/usage';
import { procTable } from '../../src/node/procTable';

// Spins, and prints its own CPU time (ms) every 50 ms of wall time: a measure apart from /proc's.
const busyLoop = [
  'let last = 0; const end = Date.now() + 30000;',
  'while (Date.now() < end) { if (Date.now() - last >= 50) { last = Date.now(); const u = process.cpuUsage();',
  'process.stdout.write(`${(u.user + u.system) / 1000}\\n`); } }',
].join(' ');
const sleeper = 'setTimeout(() => {}, 30000)';
// The parent only waits; its child spins.
const parentOfBusy = `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(busyLoop)}], { stdio: 'inherit' }); setTimeout(() => {}, 30000)`;

describe('procTable: CPU and memory of real process trees (Linux /proc)', function () {
  this.timeout(30000);
  const children: ChildProcess[] = [];
  const table = procTable();

  before(function () {
    if (!table) {
      this.skip(); // no /proc here: the README says the figures are not shown
    }
  });

  after(() => children.forEach((c) => c.kill('SIGKILL')));

  /** The CPU milliseconds a busy loop last said it used, by the pid of the process started. */
  const said = new Map<number, number>();
  const busyPids = new Set<number>();

  function start(script: string): number {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    children.push(child);
    if (script !== sleeper) {
      busyPids.add(child.pid!);
    }
    child.stdout!.on('data', (data: Buffer) => {
      const lines = data.toString().trim().split('\n');
      said.set(child.pid!, Number(lines[lines.length - 1]));
    });
    return child.pid!;
  }

  /** CPU and memory of the trees of `pids` over 2 s. */
  async function measure(...pids: number[]) {
    // Every busy loop (a parent's child too) has started and spoken.
    const spins = pids.filter((pid) => busyPids.has(pid));
    for (let i = 0; i < 200 && !spins.every((pid) => said.has(pid)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sample = async () => {
      const forest = new ProcessForest(await table!.read());
      const at = Date.now();
      return (pid: number) => ({ tree: forest.tree(pid), sample: sampleTree(forest.tree(pid), at, table!.pageBytes) });
    };
    const first = await sample();
    const saidFirst = new Map(said);
    const started = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const second = await sample();
    const wall = Date.now() - started;
    return pids.map((pid) => ({
      ...treeUsage(first(pid).sample, second(pid).sample, table!.ticksPerSecond),
      members: second(pid).tree.length,
      /** What the busy loop itself measured, in percent of a core; undefined for others. */
      ownPercent: said.has(pid) ? ((said.get(pid)! - saidFirst.get(pid)!) / wall) * 100 : undefined,
    }));
  }

  // One busy loop at a time: the machine's two cores are shared with other work.
  it('shows a busy process busy (as it measures itself), a sleeping one near 0, and memory for both', async () => {
    const [busy, sleeping] = await measure(start(busyLoop), start(sleeper));
    children.forEach((c) => c.kill('SIGKILL'));
    // Alone on an idle core a busy loop shows ~100%; on this shared, niced machine it may get half a
    // core or less, so the figure is checked against the loop's own measure of its CPU time.
    assert.ok(busy.cpuPercent! > 25, `busy: ${busy.cpuPercent}%`);
    assert.ok(Math.abs(busy.cpuPercent! - busy.ownPercent!) < 15, `busy: ${busy.cpuPercent}%, own ${busy.ownPercent}%`);
    assert.ok(sleeping.cpuPercent! < 5, `sleeping: ${sleeping.cpuPercent}%`);
    assert.ok(busy.rssBytes > 1024 * 1024, 'a node process holds more than 1 MB');
    assert.ok(sleeping.rssBytes > 1024 * 1024);
    assert.deepEqual([busy.members, sleeping.members], [1, 1]);
  });

  it("counts a child's CPU and memory in its parent's tree", async () => {
    const [parent, sleeping] = await measure(start(parentOfBusy), start(sleeper));
    assert.equal(parent.members, 2, 'the parent and its busy child');
    assert.ok(parent.cpuPercent! > 25, `the parent's tree, busy by its child: ${parent.cpuPercent}%`);
    assert.ok(
      Math.abs(parent.cpuPercent! - parent.ownPercent!) < 15,
      `the tree: ${parent.cpuPercent}%, the child's own: ${parent.ownPercent}%`,
    );
    assert.ok(parent.rssBytes > sleeping.rssBytes, 'two processes hold more than one');
    assert.ok(table!.pageBytes >= 4096 && Number.isInteger(Math.log2(table!.pageBytes)), `${table!.pageBytes}`);
  });
});
