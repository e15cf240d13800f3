// Merge order and overlap promises that mergeOrder.test.ts and overlaps.test.ts leave unchecked (found by
// mutation testing): which of two equally large conflict-free sets wins, where the exact search ends and the
// greedy one begins, the greedy choice itself, and forecasts that are missing.
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { forecastPairs, readForecasts, suggestMergeOrder } from '../../src/core/landing/mergeOrder';
import { findOverlaps, sameOverlaps } from '../../src/core/landing/overlaps';
import { agentRecord, modified } from './agentRecords';

type Pair = readonly [string, string];

const names = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`);
const pairsOf = (ids: readonly string[], edges: readonly (readonly [number, number])[]) =>
  edges.map(([i, j]): Pair => [ids[i], ids[j]]);

function agent(id: string, files: string[]): AgentRecord {
  return agentRecord(id, { changedFiles: modified(files) });
}

describe('merge order (promises found by mutation testing)', () => {
  it('of two equally large conflict-free sets, merges first the one with the oldest agent', () => {
    // A ring a0-a1-a3-a2-a0: {a1, a2} is found first, {a0, a3} holds the oldest agent.
    const ids = names(4);
    const result = suggestMergeOrder(
      ids,
      pairsOf(ids, [
        [0, 1],
        [0, 2],
        [1, 3],
        [2, 3],
      ]),
      [],
    );
    assert.deepEqual(result.clean, ['a0', 'a3']);
    assert.deepEqual(result.needsResolution, [
      { id: 'a1', conflictsWith: ['a0', 'a3'], conflictsWithBranch: false },
      { id: 'a2', conflictsWith: ['a0', 'a3'], conflictsWithBranch: false },
    ]);
  });

  it('judges age by creation order, not by the order conflicts were found in', () => {
    const ids = names(5);
    const result = suggestMergeOrder(
      ids,
      pairsOf(ids, [
        [0, 3],
        [0, 4],
        [3, 4],
        [0, 2],
      ]),
      [],
    );
    assert.deepEqual(result.clean, ['a1', 'a2', 'a3']);
  });

  it('searches a conflict graph of 16 agents exactly, where taking the fewest conflicts first finds fewer', () => {
    const ids = names(16);
    const edges: [number, number][] = [
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
      [7, 8],
      ...Array.from({ length: 7 }, (_, k): [number, number] => [8 + k, 9 + k]),
    ];
    assert.equal(suggestMergeOrder(ids, pairsOf(ids, edges), []).clean.length, 8);
  });

  it('beyond 16 agents takes the one with the fewest conflicts first, the oldest of equals', () => {
    // A star: its centre a0 conflicts with all 17 others, each of which conflicts with a0 only.
    const star = names(18);
    const starResult = suggestMergeOrder(
      star,
      star.slice(1).map((b): Pair => ['a0', b]),
      [],
    );
    assert.deepEqual(starResult.clean, star.slice(1));
    // A chain of 18: the oldest end first, then every second one.
    const chain = names(18);
    const chainResult = suggestMergeOrder(
      chain,
      chain.slice(1).map((b, i): Pair => [chain[i], b]),
      [],
    );
    assert.deepEqual(
      chainResult.clean,
      chain.filter((_, i) => i % 2 === 0),
    );
  });

  it('ignores conflicts naming an unknown agent first, and never lists an agent as conflicting with itself', () => {
    const result = suggestMergeOrder(
      ['a', 'b'],
      [
        ['x', 'b'],
        ['a', 'a'],
        ['a', 'b'],
      ],
      ['a'],
    );
    assert.deepEqual(result.clean, ['b']);
    assert.deepEqual(result.needsResolution, [{ id: 'a', conflictsWith: ['b'], conflictsWithBranch: true }]);
  });

  it('reads the forecasts it was given and treats the missing ones as clean', () => {
    const pairs = forecastPairs([agent('a', []), agent('b', [])], 'main');
    assert.equal(pairs.length, 3);
    const conflicts = readForecasts(pairs, [{ clean: false, conflicts: ['f.txt'] }]);
    assert.deepEqual(conflicts, [{ agentId: 'a', otherId: 'b', files: ['f.txt'] }]);
  });
});

describe('overlaps (promises found by mutation testing)', () => {
  it('tells apart indexes of as many agents that differ in who or which file', () => {
    const base = findOverlaps([agent('a', ['x']), agent('b', ['x'])]);
    assert.ok(!sameOverlaps(base, findOverlaps([agent('a', ['x']), agent('c', ['x'])])), 'other agents');
    assert.ok(!sameOverlaps(base, findOverlaps([agent('a', ['y']), agent('b', ['y'])])), 'another file');
    assert.ok(
      !sameOverlaps(base, findOverlaps([agent('a', ['x', 'y']), agent('b', ['x', 'y'])])),
      'more files of the same agents',
    );
  });
});
