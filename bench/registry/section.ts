// The `registry` section: what 200 records cost at activation, in plain Node (activationCost.ts)
// and, when code-server can be provisioned, in a real VS Code: the activation bench launched
// alternately on a sample repository with an empty registry and with 200 records written into it.
import { registryDirSync } from '../../src/node/registry/location';
import { type ActivationResult, measureActivation } from '../activation/measure';
import { median } from '../stats';
import { benchRecordCount, measureRegistryCost, type RegistryCostResult } from './activationCost';
import { writeSampleRecords } from './window';

/** Launches of each case: every launch is a new VS Code (20-60 s here), one figure each. */
const launchPairs = 2;

export type VscodeCase =
  | {
      readonly available: true;
      readonly launches: number;
      readonly medianActivationMs: number;
      readonly medianViewSnapshotMs: number;
      readonly medianViewSnapshotWarmMs: number;
      readonly agentCount: number;
      readonly samples: readonly number[];
    }
  | { readonly available: false; readonly reason: string };

export interface RegistrySection extends RegistryCostResult {
  readonly vscode: { readonly empty: VscodeCase; readonly withRecords: VscodeCase };
}

const withRecords = async (repoDir: string) =>
  writeSampleRecords(registryDirSync(repoDir) as string, repoDir, benchRecordCount);

function summarize(results: readonly ActivationResult[]): VscodeCase {
  const ok = results.flatMap((r) => (r.available ? [r] : []));
  if (ok.length === 0) {
    const reason = results.map((r) => (r.available ? '' : r.reason)).find((r) => r) ?? 'no launch';
    return { available: false, reason };
  }
  return {
    available: true,
    launches: ok.length,
    medianActivationMs: median(ok.map((r) => r.activationMs)),
    medianViewSnapshotMs: median(ok.map((r) => r.viewSnapshotMs)),
    medianViewSnapshotWarmMs: median(ok.map((r) => r.viewSnapshotWarmMs)),
    agentCount: Math.min(...ok.map((r) => r.agentCount)),
    samples: ok.map((r) => r.activationMs),
  };
}

export async function measureRegistry(): Promise<RegistrySection> {
  const node = await measureRegistryCost();
  const empty: ActivationResult[] = [];
  const full: ActivationResult[] = [];
  for (let i = 0; i < launchPairs; i++) {
    console.log(`[bench] registry: VS Code launch pair ${i + 1} of ${launchPairs}...`);
    empty.push(await measureActivation());
    if (!empty[empty.length - 1].available) {
      break; // code-server cannot be provisioned: the second case would say the same
    }
    full.push(await measureActivation({ prepare: withRecords }));
  }
  return { ...node, vscode: { empty: summarize(empty), withRecords: summarize(full) } };
}
