// A RegistryStore opened the way one window opens it: the registry folder of the test's repository
// (or the folder given), records placed by their repository's registry, a quiet logger unless the
// test wants to hear. Tests of several windows make one per window.
import type { AgentRecord } from '../../src/core/agent';
import { registryDirSync } from '../../src/node/registry/location';
import { type RegistryStoreOptions, RegistryStore } from '../../src/node/registry/registryStore';

export const quietLogger = { info() {}, warn() {}, error() {} };

/** The store of one window on `registry`; `options` replace the defaults (kind 'agents'). */
export function openRegistryStore<T extends { readonly id: string; readonly repoRoot: string } = AgentRecord>(
  registry: string,
  options: Partial<RegistryStoreOptions> = {},
): RegistryStore<T> {
  return new RegistryStore<T>({
    kind: 'agents',
    registries: () => [registry],
    registryOf: (root) => registryDirSync(root),
    logger: quietLogger,
    ...options,
  });
}
