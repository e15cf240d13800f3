// A real AgentManager in plain Node (real git, real demo agent process), as the extension builds
// it, minus VS Code: state in memory, no file watcher.
import * as path from 'node:path';
import type { AgentRecord } from '../src/core/agent';
import { AgentManager, type AgentManagerDeps } from '../src/core/agents/agentManager';
import type { FolderWatcher, Logger, StateStore } from '../src/core/ports';
import { builtinProfiles, type Profile } from '../src/core/clis/profiles';
import { PathExecutableResolver } from '../src/node/executableResolver';
import { NodeFileSystem } from '../src/node/fileSystem';
import { createGit, type NodeGit } from '../src/node/git/createGit';
import { SupervisedRunner } from '../src/node/supervisedRunner';
import { pidAlive } from '../src/supervisor/processIdentity';
import type { BenchRepo } from './repo';
import { now, waitUntil } from './stats';

class MemoryStore implements StateStore {
  private records: readonly AgentRecord[] = [];
  load(): readonly AgentRecord[] {
    return this.records;
  }
  async save(records: readonly AgentRecord[]): Promise<void> {
    this.records = JSON.parse(JSON.stringify(records)) as AgentRecord[];
  }
}

/** The git the manager takes, forwarding to `git` (its methods stay on the prototype chain), with overrides. */
export type ManagerGit = AgentManagerDeps['git'];
export function delegateGit(git: ManagerGit, overrides: Partial<ManagerGit> = {}): ManagerGit {
  return Object.assign(Object.create(git) as ManagerGit, overrides);
}

/** What-if: no change-set refresh at all (what skipping the one right after launch could save at most). */
export function withoutChangeSets(deps: AgentManagerDeps): AgentManagerDeps {
  return { ...deps, git: delegateGit(deps.git, { changeSet: async () => [] }) };
}

const quietWatcher: FolderWatcher = { watch: () => ({ dispose() {} }) };

export interface BenchManager {
  readonly manager: AgentManager;
  readonly git: NodeGit;
  readonly logger: Logger;
  /** performance.now() of each agent's first output, by agent id. */
  readonly firstOutput: ReadonlyMap<string, number>;
  /** Waits for the agent's process to end and for the change-set refresh that follows. */
  ended(id: string): Promise<void>;
  /** Waits for the agent's process to end, then removes its worktree and branch. */
  discard(id: string): Promise<void>;
  dispose(): void;
}

export interface BenchManagerOptions {
  /** Profiles besides the built-in ones. */
  readonly profiles?: readonly Profile[];
  /**
   * Records each agent's first output (firstOutput) by listening to every agent's output, which
   * makes the host read and decode all of it. Default true.
   */
  readonly firstOutput?: boolean;
  /** Agent ids are this and a counter: managers on one repository need different ones. Default 'b'. */
  readonly idPrefix?: string;
}

export function createBenchManager(
  repo: BenchRepo,
  demoScript: string,
  wrap: (deps: AgentManagerDeps) => AgentManagerDeps = (d) => d,
  options: BenchManagerOptions = {},
): BenchManager {
  let n = 0;
  const git = createGit();
  const logger: Logger = { info() {}, warn() {}, error() {} };
  const manager = new AgentManager(
    wrap({
      git,
      fs: new NodeFileSystem(),
      worktreeSource: git,
      resolver: new PathExecutableResolver({ demoAgentScript: demoScript, runtime: process.execPath }),
      // As the extension runs headless agents: under dist/supervisor.js, built next to the demo agent.
      headlessRunner: new SupervisedRunner({
        supervisorScript: path.join(path.dirname(demoScript), 'supervisor.js'),
        runtime: process.execPath,
        stateDir: path.join(repo.parent, 'agents'),
        graceMs: 1000,
      }),
      terminalRunner: {
        start: () => {
          throw new Error('the bench runs no terminal agents');
        },
      },
      watcher: quietWatcher,
      store: new MemoryStore(),
      clock: { now: () => Date.now() },
      logger,
      settings: () => ({
        branchPrefix: 'agents',
        worktreeRoot: repo.worktreeRoot,
        logDir: path.join(repo.parent, 'logs'),
      }),
      profiles: () => [...builtinProfiles, ...(options.profiles ?? [])],
      newId: () => `${options.idPrefix ?? 'b'}${n++}`,
      processAlive: (pid) => pidAlive(pid),
    }),
  );
  const firstOutput = new Map<string, number>();
  const subscription =
    options.firstOutput === false
      ? undefined
      : manager.onDidOutput(({ id }) => {
          if (!firstOutput.has(id)) {
            firstOutput.set(id, now());
          }
        });
  const ended = async (id: string) => {
    await waitUntil(`agent ${id} to end`, () => !['queued', 'preparing', 'running'].includes(manager.get(id).status));
    // The change-set refresh that follows the exit reads the worktree: let it finish first.
    await manager.refreshChanges(id).catch(() => undefined);
  };
  return {
    manager,
    git,
    logger,
    firstOutput,
    ended,
    discard: async (id) => {
      await ended(id);
      const record = manager.get(id);
      manager.forget(id);
      await git.removeWorktree(record.repoRoot, record.worktreePath!, true);
      // Its files go in the background: gone before the next timed step.
      await git.whenFilesDeleted();
      await git.deleteBranch(record.repoRoot, record.branch!, true);
    },
    dispose: () => {
      subscription?.dispose();
      manager.dispose();
    },
  };
}
