import * as assert from 'node:assert/strict';
import type { ChangedFile } from '../../src/core/agent';
import { ChangeTracker } from '../../src/core/agents/changeTracker';
import { Limiter } from '../../src/util/limiter';

const quiet = { info() {}, warn() {}, error() {} };

describe('ChangeTracker', () => {
  function setup(debounceMs = 20) {
    let version = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    let computations = 0;
    const published: string[][] = [];
    const triggers = new Map<string, () => void>();
    const tracker = new ChangeTracker(
      { watch: (folder, onChange) => (triggers.set(folder, onChange), { dispose: () => triggers.delete(folder) }) },
      async () => {
        computations++;
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        const seen = version;
        await new Promise((r) => setTimeout(r, 30));
        concurrent--;
        return [{ path: `v${seen}`, kind: 'modified', binary: false } satisfies ChangedFile];
      },
      (_id, files) => published.push(files.map((f) => f.path)),
      quiet,
      debounceMs,
    );
    return { tracker, published, triggers, bump: () => version++, stats: () => ({ computations, maxConcurrent }) };
  }

  it('never runs two computations at once and reflects a change made mid-run', async () => {
    const t = setup();
    t.tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    const first = t.tracker.refresh('a');
    t.bump();
    const second = t.tracker.refresh('a');
    const third = t.tracker.refresh('a');
    await Promise.all([first, second, third]);
    assert.equal(t.stats().maxConcurrent, 1);
    assert.equal(t.stats().computations, 2, 'three requests, one rerun');
    assert.deepEqual(t.published.at(-1), ['v1']);
  });

  it('debounces file events into one refresh', async () => {
    const t = setup(20);
    t.tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    const fire = t.triggers.get('/w/a')!;
    for (let i = 0; i < 10; i++) {
      fire();
    }
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(t.stats().computations, 1);
  });

  it('stops watching and publishing after untrack', async () => {
    const t = setup();
    t.tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    const pending = t.tracker.refresh('a');
    t.tracker.untrack('a');
    await pending;
    assert.equal(t.triggers.size, 0);
    assert.deepEqual(t.published, []);
    await t.tracker.refresh('a');
    assert.equal(t.stats().computations, 1);
  });

  it('re-examines only the paths the watcher names, and the whole folder when they are unknown', async () => {
    const calls: string[] = [];
    let onChange: ((paths?: readonly string[]) => void) | undefined;
    const tracker = new ChangeTracker(
      { watch: (_f, c) => ((onChange = c), { dispose() {} }) },
      async () => (calls.push('full'), [{ path: 'old/gone.txt', kind: 'deleted', binary: false }]),
      () => undefined,
      quiet,
      10,
      {
        computePaths: async (_f, paths) => (calls.push(`paths ${[...paths].sort().join(',')}`), []),
        limiter: new Limiter(2),
      },
    );
    tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    await tracker.refresh('a');
    onChange!(['src/x.ts']);
    onChange!(['src/y.ts']);
    await new Promise((r) => setTimeout(r, 60));
    onChange!(undefined);
    await new Promise((r) => setTimeout(r, 60));
    // The deleted file is a rename candidate, so it is re-examined with the written ones.
    assert.deepEqual(calls, ['full', 'paths old/gone.txt,src/x.ts,src/y.ts', 'full']);
    tracker.dispose();
  });

  it("runs at most the limiter's number of computations at once when many folders refresh together", async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    const published: string[] = [];
    const tracker = new ChangeTracker(
      { watch: () => ({ dispose() {} }) },
      async () => {
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        await new Promise((r) => setTimeout(r, 10));
        concurrent--;
        return [];
      },
      (id) => published.push(id),
      quiet,
      10,
      { limiter: new Limiter(3) },
    );
    const ids = Array.from({ length: 16 }, (_, i) => `a${i}`);
    ids.forEach((id) => tracker.track(id, { cwd: `/w/${id}`, baseSha: 'x' }));
    await Promise.all(ids.map((id) => tracker.refresh(id)));
    assert.equal(maxConcurrent, 3);
    assert.deepEqual([...published].sort(), [...ids].sort());
    tracker.dispose();
  });

  it('recomputes the whole folder when the paths to re-examine would not fit one command line', async () => {
    const calls: string[] = [];
    let onChange: ((paths?: readonly string[]) => void) | undefined;
    const added = Array.from({ length: 250 }, (_, i) => ({
      path: `new/f${i}.ts`,
      kind: 'added' as const,
      binary: false,
    }));
    const tracker = new ChangeTracker(
      { watch: (_f, c) => ((onChange = c), { dispose() {} }) },
      async () => (calls.push('full'), added),
      () => undefined,
      quiet,
      10,
      { computePaths: async () => (calls.push('paths'), []), limiter: new Limiter(2), maxPaths: 200 },
    );
    tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    await tracker.refresh('a');
    onChange!(['src/x.ts']); // 1 path, but 250 rename candidates with it
    await new Promise((r) => setTimeout(r, 60));
    assert.deepEqual(calls, ['full', 'full']);
    tracker.dispose();
  });

  it('refreshSeen joins the pass under way, re-examines only the paths reported, and says when it was whole', async () => {
    const calls: string[] = [];
    let onChange: ((paths?: readonly string[]) => void) | undefined;
    const state: { complete?: boolean } = {};
    const slow = () => new Promise((r) => setTimeout(r, 40));
    const tracker = new ChangeTracker(
      {
        watch: (_f, c) => {
          onChange = c;
          return {
            get complete() {
              return state.complete;
            },
            dispose() {},
          };
        },
      },
      async () => (calls.push('full'), await slow(), []),
      () => undefined,
      quiet,
      10,
      { computePaths: async (_f, paths) => (calls.push(`paths ${paths.join(',')}`), await slow(), []) },
    );
    tracker.track('a', { cwd: '/w/a', baseSha: 'x' });
    assert.equal(await tracker.refreshSeen('a'), true, 'never computed: a whole pass');
    // Nothing reported since a whole pass (Refresh asks because of a stage or a commit): a whole pass again.
    assert.equal(await tracker.refreshSeen('a'), true);
    assert.deepEqual(calls, ['full', 'full']);
    onChange!(['src/x.ts']); // its settle not over yet: the Refresh starts the pass
    assert.equal(await tracker.refreshSeen('a'), false);
    assert.deepEqual(calls.slice(2), ['paths src/x.ts']);
    assert.equal(await tracker.refreshSeen('a'), false, 'nothing reported since a pass of paths: none now');
    assert.equal(calls.length, 3);
    onChange!(['src/y.ts']);
    await new Promise((r) => setTimeout(r, 25)); // the watcher's own pass has started
    assert.equal(calls.length, 4);
    const joined = tracker.refreshSeen('a');
    assert.equal(await joined, false);
    assert.deepEqual(calls.slice(3), ['paths src/y.ts'], 'joined: no second pass');
    onChange!(['src/z.ts']);
    await new Promise((r) => setTimeout(r, 25));
    const during = tracker.refreshSeen('a');
    onChange!(['src/w.ts']); // an event during the pass: exactly one more
    assert.equal(await during, false);
    assert.deepEqual(calls.slice(4), ['paths src/z.ts', 'paths src/w.ts']);
    onChange!(undefined); // paths unknown: a whole pass, which also sees what no event shows
    assert.equal(await tracker.refreshSeen('a'), true);
    assert.deepEqual(calls.slice(6), ['full']);
    state.complete = false; // part of the folder unwatched: what was reported is not all
    onChange!(['src/v.ts']);
    assert.equal(await tracker.refreshSeen('a'), true);
    assert.deepEqual(calls.slice(7), ['full']);
    tracker.dispose();
  });
});
