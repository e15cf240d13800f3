/**
 * The records of one kind as a repository's registry holds them at this moment, read past any
 * window's memory: what Reconcile checks just before it changes anything, since another window may
 * have written a record a moment ago. Files that cannot be read are left out (the store reports them).
 */
import * as path from 'node:path';
import { registryDirSync } from './location';
import { readRecordFile, recordFileNames } from './recordFiles';
import type { RegistryKind } from './registryStore';

export async function recordsOnDisk<T extends { readonly id: string }>(
  repoRoot: string,
  kind: RegistryKind,
): Promise<T[]> {
  const registry = registryDirSync(repoRoot);
  if (registry === undefined) {
    return [];
  }
  const dir = path.join(registry, kind);
  const reads = await Promise.all(recordFileNames(dir).map((name) => readRecordFile<T>(path.join(dir, name))));
  return reads.flatMap((read) => (read.kind === 'file' ? [read.file.record] : []));
}
