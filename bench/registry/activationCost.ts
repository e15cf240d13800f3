// Issue 17, figure 2 (plain Node): what 200 records in the registry add to activation's work with
// it (loadSteps.ts), against an empty registry. Each sample is a fresh process, so the code runs
// cold as at activation; the two cases alternate round by round and are compared in pairs.
import { registryDirSync } from '../../src/node/registry/location';
import { createTempRepo, type TempRepo } from '../../test/harness/tempRepo';
import { median, pairedDifferences, percentile } from '../stats';
import { BenchChild } from './children';
import type { LoadFigures } from './loadSteps';
import { writeSampleRecords } from './window';

export const registryTargetAddedMs = 50;
export const benchRecordCount = 200;
const rounds = 15;

export interface RegistryCostResult {
  readonly records: number;
  readonly rounds: number;
  readonly targetAddedMs: number;
  /** Median ms of each step with the records, and with an empty registry. */
  readonly withRecords: Record<string, number>;
  readonly empty: Record<string, number>;
  /** Paired differences of the totals: what the records added. */
  readonly addedMedianMs: number;
  readonly addedP95Ms: number;
  /** Records the window ended up with (should be `records`). */
  readonly recordsLoaded: number;
}

async function sample(repo: TempRepo): Promise<LoadFigures> {
  const registry = registryDirSync(repo.dir) as string;
  const child = BenchChild.start(['load', registry, repo.dir]);
  const loaded = await child.next('loaded', 60_000);
  await child.stop();
  if (!loaded) {
    throw new Error('the loading process reported nothing');
  }
  return loaded;
}

function medians(samples: readonly LoadFigures[]): Record<string, number> {
  const names = Object.keys(samples[0]?.steps ?? {});
  return Object.fromEntries(names.map((n) => [n, median(samples.map((s) => s.steps[n]))]));
}

export async function measureRegistryCost(): Promise<RegistryCostResult> {
  const empty = await createTempRepo();
  const full = await createTempRepo();
  try {
    await writeSampleRecords(registryDirSync(full.dir) as string, full.dir, benchRecordCount);
    const withRecords: LoadFigures[] = [];
    const without: LoadFigures[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternating which goes first, so neither always follows the other's disk and cache traffic.
      if (round % 2 === 0) {
        without.push(await sample(empty));
        withRecords.push(await sample(full));
      } else {
        withRecords.push(await sample(full));
        without.push(await sample(empty));
      }
    }
    const added = pairedDifferences(
      withRecords.map((s) => s.steps.total),
      without.map((s) => s.steps.total),
    );
    return {
      records: benchRecordCount,
      rounds,
      targetAddedMs: registryTargetAddedMs,
      withRecords: medians(withRecords),
      empty: medians(without),
      addedMedianMs: median(added),
      addedP95Ms: percentile(added, 95),
      recordsLoaded: Math.min(...withRecords.map((s) => s.records)),
    };
  } finally {
    await empty.dispose();
    await full.dispose();
  }
}
