import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { forecastPairs, liveBranchAgents, readForecasts, suggestMergeOrder } from '../../src/core/landing/mergeOrder';
import { agentRecord } from './agentRecords';

type Pair = readonly [string, string];

function agent(id: string, extra: Partial<AgentRecord> = {}): AgentRecord {
  return agentRecord(id, { status: 'succeeded', ...extra });
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function conflicting(pairs: readonly Pair[], a: string, b: string): boolean {
  return pairs.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}

/** The largest number of agents that merge without any forecast conflict, by trying every subset. */
function bruteForceBest(ids: readonly string[], pairs: readonly Pair[], blocked: ReadonlySet<string>): number {
  let best = 0;
  for (let mask = 0; mask < 1 << ids.length; mask++) {
    const set = ids.filter((_, i) => mask & (1 << i));
    const ok = set.every((a, i) => !blocked.has(a) && set.slice(i + 1).every((b) => !conflicting(pairs, a, b)));
    best = ok ? Math.max(best, set.length) : best;
  }
  return best;
}

function assertConsistent(
  ids: readonly string[],
  pairs: readonly Pair[],
  blocked: ReadonlySet<string>,
): ReturnType<typeof suggestMergeOrder> {
  const result = suggestMergeOrder(ids, pairs, blocked);
  assert.deepEqual([...result.order].sort(), [...ids].sort());
  assert.deepEqual(result.order, [...result.clean, ...result.needsResolution.map((n) => n.id)]);
  result.clean.forEach((a, i) => {
    assert.ok(!blocked.has(a), `${a} conflicts with the branch`);
    result.clean.slice(i + 1).forEach((b) => assert.ok(!conflicting(pairs, a, b), `${a} and ${b} conflict`));
  });
  for (const n of result.needsResolution) {
    assert.ok(
      n.conflictsWithBranch || n.conflictsWith.some((c) => result.clean.includes(c)),
      `${n.id} could have been clean`,
    );
  }
  return result;
}

describe('merge order', () => {
  it('merges everything cleanly, in creation order, when nothing conflicts', () => {
    const result = suggestMergeOrder(['c', 'a', 'b'], [], []);
    assert.deepEqual(result, {
      conflictFree: true,
      order: ['c', 'a', 'b'],
      clean: ['c', 'a', 'b'],
      needsResolution: [],
    });
  });

  it('merges one agent of a triangle and lists the other two with whom they conflict', () => {
    const result = suggestMergeOrder(
      ['a', 'b', 'c'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
      ],
      [],
    );
    assert.equal(result.conflictFree, false);
    assert.deepEqual(result.clean, ['a']);
    assert.deepEqual(result.needsResolution, [
      { id: 'b', conflictsWith: ['a', 'c'], conflictsWithBranch: false },
      { id: 'c', conflictsWith: ['a', 'b'], conflictsWithBranch: false },
    ]);
  });

  it('merges the ends of a chain first and the middle last', () => {
    assert.deepEqual(
      suggestMergeOrder(
        ['a', 'b', 'c'],
        [
          ['a', 'b'],
          ['c', 'b'],
        ],
        [],
      ).order,
      ['a', 'c', 'b'],
    );
    const four = suggestMergeOrder(
      ['a', 'b', 'c', 'd'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'd'],
      ],
      [],
    );
    assert.deepEqual(four.clean, ['a', 'c']);
    assert.deepEqual(
      four.needsResolution.map((n) => [n.id, n.conflictsWith]),
      [
        ['b', ['a', 'c']],
        ['d', ['c']],
      ],
    );
  });

  it('puts an agent that conflicts with the current branch after the rest', () => {
    const result = suggestMergeOrder(['a', 'b', 'c'], [['a', 'b']], new Set(['a']));
    assert.deepEqual(result.order, ['b', 'c', 'a']);
    assert.deepEqual(result.needsResolution, [{ id: 'a', conflictsWith: ['b'], conflictsWithBranch: true }]);
  });

  it('ignores unknown ids and self-pairs', () => {
    const result = suggestMergeOrder(
      ['a', 'b'],
      [
        ['a', 'a'],
        ['a', 'x'],
      ],
      ['y'],
    );
    assert.equal(result.conflictFree, true);
  });

  it('finds the largest conflict-free set where taking the fewest conflicts first would not', () => {
    // Fewest-conflicts-first takes a2, then a3, then one of the triangle a0, a1, a4: three agents, not four.
    const ids = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'];
    const edges = [
      [0, 1],
      [0, 4],
      [0, 6],
      [0, 7],
      [1, 4],
      [1, 5],
      [1, 6],
      [2, 5],
      [3, 6],
      [3, 7],
      [4, 5],
      [5, 6],
    ];
    const result = assertConsistent(
      ids,
      edges.map(([i, j]): Pair => [ids[i], ids[j]]),
      new Set(),
    );
    assert.deepEqual(result.clean, ['a2', 'a4', 'a6', 'a7']);
  });

  it('finds a largest conflict-free set on random graphs of 12 agents', () => {
    const next = random(42);
    const ids = Array.from({ length: 12 }, (_, i) => `agent${i}`);
    for (let round = 0; round < 60; round++) {
      const density = [0.1, 0.3, 0.6][round % 3];
      const pairs: Pair[] = [];
      ids.forEach((a, i) => ids.slice(i + 1).forEach((b) => (next() < density ? pairs.push([a, b]) : undefined)));
      const blocked = new Set(ids.filter(() => next() < 0.1));
      const result = assertConsistent(ids, pairs, blocked);
      assert.equal(result.clean.length, bruteForceBest(ids, pairs, blocked), `round ${round}`);
    }
  });

  it('keeps a large component conflict-free and maximal with the greedy search', () => {
    const ids = Array.from({ length: 30 }, (_, i) => `agent${i}`);
    const path = ids.slice(1).map((b, i): Pair => [ids[i], b]);
    assert.equal(assertConsistent(ids, path, new Set()).clean.length, 15);
    const next = random(7);
    const pairs: Pair[] = [];
    ids.forEach((a, i) => ids.slice(i + 1).forEach((b) => (next() < 0.2 ? pairs.push([a, b]) : undefined)));
    assertConsistent(ids, pairs, new Set(['agent3']));
  });
});

describe('forecast pairs', () => {
  it('forecasts live agents with a branch, by repository', () => {
    const groups = liveBranchAgents([
      agent('a', { status: 'running' }),
      agent('q', { status: 'queued' }),
      agent('m', { status: 'merged' }),
      agent('t', { isolation: 'terminal', branch: undefined }),
      agent('o', { repoRoot: '/other' }),
      agent('b'),
    ]);
    assert.deepEqual(
      [...groups].map(([repo, agents]) => [repo, agents.map((a) => a.id)]),
      [
        ['/r/repo', ['a', 'b']],
        ['/other', ['o']],
      ],
    );
  });

  it('pairs every two agents, then each agent against the current branch', () => {
    const pairs = forecastPairs([agent('a'), agent('b'), agent('c')], 'main');
    assert.deepEqual(
      pairs.map((p) => p.refs),
      [
        ['agents/a', 'agents/b'],
        ['agents/a', 'agents/c'],
        ['agents/b', 'agents/c'],
        ['main', 'agents/a'],
        ['main', 'agents/b'],
        ['main', 'agents/c'],
      ],
    );
    const conflicts = readForecasts(
      pairs,
      pairs.map((_, i) =>
        i === 1 || i === 4 ? { clean: false, conflicts: ['x.js'] } : { clean: true, conflicts: [] },
      ),
    );
    assert.deepEqual(conflicts, [
      { agentId: 'a', otherId: 'c', files: ['x.js'] },
      { agentId: 'b', otherId: undefined, files: ['x.js'] },
    ]);
  });
});
