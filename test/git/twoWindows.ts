// One window of several on one repository, as an extension host builds it: its own RegistryStore on
// the repository's registry and its own SupervisedRunner, whose runs live in the registry of the
// folder they run in, so that every window follows them. Tests of several windows make one per window.
import * as path from 'node:path';
import type { AgentRecord } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { Logger, ManagerSettings } from '../../src/core/ports';
import { registryDirSync } from '../../src/node/registry/location';
import type { RegistryStore } from '../../src/node/registry/registryStore';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { type ManagerFixture, supervisorScript } from './managerFixture';
import { openRegistryStore } from './registryFixture';

export interface WindowOptions {
  /** Settings besides the branch prefix and the window's own log folder. */
  readonly settings?: Partial<ManagerSettings>;
  readonly logger?: Logger;
}

/** The agents' store of a window on the fixture's repository; `keep` gets it, to dispose of it after the test. */
function windowStore(fx: ManagerFixture, keep: { dispose(): void }[]): RegistryStore<AgentRecord> {
  const store = openRegistryStore(registryDirSync(fx.repo) as string);
  keep.push(store);
  return store;
}

/**
 * The AgentManager of window `name`: the registry's store (handed to `keep`), a runner whose own
 * state lives in `<name>-storage`, logs in `<name>-logs`, ids starting with `name`.
 */
export function windowManager(
  fx: ManagerFixture,
  name: string,
  keep: { dispose(): void }[],
  options: WindowOptions = {},
): AgentManager {
  let n = 0;
  return fx.manager({
    store: windowStore(fx, keep),
    headlessRunner: new SupervisedRunner({
      supervisorScript,
      runtime: process.execPath,
      stateDir: path.join(fx.tmp, `${name}-storage`),
      stateDirFor: (cwd) => {
        const own = registryDirSync(cwd);
        return own && path.join(own, 'runs');
      },
      graceMs: 1000,
      pollMs: 100,
    }),
    settings: () => ({ branchPrefix: 'agents', logDir: path.join(fx.tmp, `${name}-logs`), ...options.settings }),
    newId: () => `${name}${Date.now().toString(36)}${n++}`,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}
