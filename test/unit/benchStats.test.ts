// The bench's pure helpers: percentiles, spreads of samples that may not arrive, paired differences.
import * as assert from 'node:assert/strict';
import { median, pairedDifferences, percentile, spread } from '../../bench/stats';

describe('bench statistics', () => {
  const oneToHundred = Array.from({ length: 100 }, (_, i) => 100 - i);

  it('percentile is nearest-rank over the sorted values, whatever their order', () => {
    assert.equal(percentile(oneToHundred, 50), 50);
    assert.equal(percentile(oneToHundred, 95), 95);
    assert.equal(percentile(oneToHundred, 100), 100);
    assert.equal(percentile(oneToHundred, 0), 1);
    assert.equal(percentile(oneToHundred, 1), 1);
    assert.equal(percentile(oneToHundred, 1.5), 2);
  });

  it('percentile of few values is one of them, never an interpolation', () => {
    assert.equal(percentile([10, 30], 50), 10);
    assert.equal(percentile([10, 30], 51), 30);
    assert.equal(percentile([30, 10, 20], 95), 30);
    assert.equal(percentile([7], 95), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
  });

  it('percentile clamps p to 0..100 and does not sort its input in place', () => {
    const values = [3, 1, 2];
    assert.equal(percentile(values, 250), 3);
    assert.equal(percentile(values, -5), 1);
    assert.deepEqual(values, [3, 1, 2]);
  });

  it('spread counts the samples that never arrived apart and leaves them out of the figures', () => {
    const samples = [...oneToHundred, undefined, undefined, Number.NaN];
    assert.deepEqual(spread(samples), { count: 100, missing: 3, p50: 50, p95: 95, max: 100 });
  });

  it('spread of nothing that arrived has NaN figures and every sample missing', () => {
    const s = spread([undefined, undefined]);
    assert.equal(s.count, 0);
    assert.equal(s.missing, 2);
    assert.ok(Number.isNaN(s.p50) && Number.isNaN(s.p95) && Number.isNaN(s.max));
  });

  it('paired differences subtract round by round, and refuse unpaired samples', () => {
    assert.deepEqual(pairedDifferences([12, 15, 11], [10, 10, 12]), [2, 5, -1]);
    assert.equal(median(pairedDifferences([12, 15, 11], [10, 10, 12])), 2);
    assert.throws(() => pairedDifferences([1, 2], [1]), /differ in count/);
  });
});
