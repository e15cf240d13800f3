// What a plan run needs on a ManagerFixture's temporary repository: the real git and file system,
// the wall clock, a quiet logger and the demo profile; only the parallelism is the test's choice.
// Also the record of a plan's agent as a run leaves it, for tests that register one with the manager.
import * as path from 'node:path';
import type { AgentRecord, AgentStatus } from '../../src/core/agent';
import type { AgentManager } from '../../src/core/agents/agentManager';
import type { PlanRunDeps } from '../../src/core/plans/planRun';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { git, type ManagerFixture } from './managerFixture';

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

/** A finished demo agent's record on the fixture's repository (its worktree gone), of a plan's task if `plan` is given. */
export function planAgentRecord(
  fixture: ManagerFixture,
  id: string,
  status: AgentStatus,
  createdAt: number,
  plan?: AgentRecord['plan'],
  bestOf?: AgentRecord['bestOf'],
): AgentRecord {
  return {
    id,
    title: id,
    prompt: 'print hi',
    profile: 'demo',
    mode: 'headless',
    isolation: 'worktree',
    status,
    repoRoot: fixture.repo,
    cwd: fixture.repo,
    baseSha: git(fixture.repo, 'rev-parse', 'HEAD'),
    createdAt,
    startedAt: createdAt,
    changedFiles: [],
    worktreePresent: false,
    plan,
    ...(bestOf ? { bestOf } : {}),
  };
}
