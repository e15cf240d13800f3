// What a plan run needs on a ManagerFixture's temporary repository: the real git and file system,
// the wall clock, a quiet logger and the demo profile; only the parallelism is the test's choice.
import * as path from 'node:path';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { PlanRunDeps } from '../../src/core/plans/planRun';
import { NodeFileSystem } from '../../src/node/fileSystem';
import type { ManagerFixture } from './managerFixture';

export function planRunDeps(fixture: ManagerFixture, manager: AgentManager, maxParallel: number): PlanRunDeps {
  return {
    manager,
    git: fixture.git,
    fs: new NodeFileSystem(),
    clock: { now: () => Date.now() },
    logger: { info() {}, warn() {}, error() {} },
    settings: () => ({
      branchPrefix: 'agents',
      logDir: path.join(fixture.tmp, 'logs'),
      defaultProfile: 'demo',
      maxParallel,
    }),
  };
}
