/**
 * Reads a repository's registry without changing anything and without running git: for a window
 * in Restricted Mode, which may show what is recorded but must not start a process or write. Unlike
 * RegistryStore.load, it creates no folder and watches nothing; a file it cannot read is reported,
 * never touched.
 */
import * as path from 'node:path';
import type { AgentRecord } from '../../core/agent';
import type { PlanRunRecord } from '../../core/plans';
import { gitCommonDirSync, registryFolderName } from './location';
import { type RegistryProblem, readRecordFileSync, recordFileNames } from './recordFiles';

export interface RegistryContents {
  /** The registry folders read, one per repository, in the order of the folders given. */
  readonly registries: readonly string[];
  readonly agents: readonly AgentRecord[];
  readonly plans: readonly PlanRunRecord[];
  /** The files that were skipped, and why. */
  readonly problems: readonly RegistryProblem[];
}

/** The registry folders of the repositories `folders` are in, each once; folders outside a repository have none. */
export function registriesOf(folders: readonly string[]): string[] {
  const dirs = folders
    .map((f) => gitCommonDirSync(f))
    .filter((d): d is string => d !== undefined)
    .map((d) => path.join(d, registryFolderName));
  return [...new Set(dirs)];
}

/** Every agent and plan run recorded in `registries`; a record id seen twice is listed once (its first file). */
export function readRegistries(registries: readonly string[]): RegistryContents {
  const problems: RegistryProblem[] = [];
  const read = <T extends { readonly id: string }>(kind: 'agents' | 'plans'): T[] => {
    const records = new Map<string, T>();
    for (const registry of registries) {
      const dir = path.join(registry, kind);
      for (const name of recordFileNames(dir).sort()) {
        const result = readRecordFileSync<T>(path.join(dir, name));
        if (result.kind === 'problem') {
          problems.push(result.problem);
        } else if (result.kind === 'file' && !records.has(result.file.record.id)) {
          records.set(result.file.record.id, result.file.record);
        }
      }
    }
    return [...records.values()];
  };
  const agents = read<AgentRecord>('agents').sort((a, b) => b.createdAt - a.createdAt);
  const plans = read<PlanRunRecord>('plans');
  return { registries: [...registries], agents, plans, problems };
}
