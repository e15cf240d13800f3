// A stacked agent's row says when its parent ran since the agent's last snapshot of it.
import * as assert from 'node:assert/strict';
import type { AgentRecord } from '../../src/core/agent';
import { parentRanSince } from '../../src/core/agents/stacking';
import { record } from './reconcileFixture';

describe('parentRanSince', () => {
  const parent = record('p', 'parent', { status: 'succeeded', endedAt: 1_000 });
  const child = (at?: number, patch: Partial<AgentRecord> = {}) =>
    record('c', 'child', {
      createdAt: 500,
      stackedOn: { id: 'p', title: 'parent', ...(at !== undefined ? { at } : {}) },
      ...patch,
    });

  it('is false for an agent that is not stacked, or without its parent, or given another agent', () => {
    assert.equal(parentRanSince(record('x', 'plain'), parent), false);
    assert.equal(parentRanSince(child(900), undefined), false);
    assert.equal(parentRanSince(child(900), { ...parent, id: 'q' }), false);
  });

  it('is true when a run of the parent ended after the snapshot, false when it ended before or at it', () => {
    assert.equal(parentRanSince(child(900), parent), true);
    assert.equal(parentRanSince(child(1_000), parent), false);
    assert.equal(parentRanSince(child(1_200), parent), false);
    assert.equal(parentRanSince(child(1_200), { ...parent, endedAt: undefined }), false);
  });

  it('is true while the parent runs or prepares, whatever the times', () => {
    for (const status of ['running', 'preparing'] as const) {
      assert.equal(parentRanSince(child(5_000), { ...parent, status, endedAt: undefined }), true, status);
    }
    assert.equal(parentRanSince(child(5_000), { ...parent, status: 'queued', endedAt: undefined }), false);
  });

  it("takes an older record's creation time when it has no snapshot time", () => {
    assert.equal(parentRanSince(child(undefined, { createdAt: 900 }), parent), true);
    assert.equal(parentRanSince(child(undefined, { createdAt: 1_100 }), parent), false);
  });
});
