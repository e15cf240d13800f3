// Part of the composition root: builds each service once; extension.ts registers them.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { stateKeys } from './constants';
import { AgentLanding } from './core/landing';
import { AgentManager } from './core/agents';
import type { Logger, RecordWriteWarnings } from './core/ports';
import { PlanService } from './core/plans';
import { Reconciler } from './core/reconcile';
import { WorktreePool, WorktreePrep } from './core/worktrees';
import type { Config } from './host/config';
import { agentFolderWatcher } from './host/folderWatcher';
import { MigratingStore } from './host/migratingStore';
import { TerminalRunner } from './host/terminalRunner';
import { PathExecutableResolver } from './node/executableResolver';
import { BubblewrapSandbox } from './node/sandbox/bubblewrap';
import { NodeFileSystem } from './node/fileSystem';
import { NodePoolDisk } from './node/poolDisk';
import { NodePoolGit } from './node/git/worktreePool';
import { createGit, type NodeGit } from './node/git/createGit';
import { useGitSpawnWorker } from './node/git/gitSpawnWorker';
import { LiveProcesses } from './node/liveProcesses';
import { pidAlive } from './supervisor/processIdentity';
import { tcpPortProbe } from './node/portProbe';
import { LandingLocks } from './node/registry/landingLocks';
import { registryDirSync } from './node/registry/location';
import { recordsOnDisk } from './node/registry/recordsOnDisk';
import { type RegistryKind, RegistryStore } from './node/registry/registryStore';
import type { RegistryProblem } from './node/registry/recordFiles';
import type { AgentRecord } from './core/agent';
import type { PlanRunRecord } from './core/plans';
import type { ReviewerDeps } from './core/review';
import { SupervisedRunner } from './node/supervisedRunner';
import { showLandingWait } from './ui/commands/landingWait';
import { NodeWindowPresence } from './node/windowPresence';
import { WriteHealth, writableSync } from './node/registry/writeHealth';

export interface Services {
  readonly git: NodeGit;
  readonly terminals: TerminalRunner;
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly plans: PlanService;
  readonly reconciler: Reconciler;
  /** The registry files the stores could not read at activation. */
  readonly registryProblems: () => readonly RegistryProblem[];
  /** Registry folders that refuse writes, announced once each. */
  readonly writeWarnings: RecordWriteWarnings;
  /** Finds executables on PATH: agent CLIs, and gh for Create Pull Request. */
  readonly resolver: PathExecutableResolver;
  /** Warm worktrees for dispatches (parallelAgents.worktreePool). */
  readonly pool: WorktreePool;
  /** The repositories of the workspace folders. */
  readonly repositories: () => Promise<string[]>;
  /** What Review with Agent runs its reviewer with: the agents' own runner, files and log folders. */
  readonly reviewerRun: Pick<ReviewerDeps, 'runner' | 'fs' | 'settings' | 'sandbox'>;
}

export function createServices(context: vscode.ExtensionContext, config: Config, logger: Logger): Services {
  // Every git process starts from a worker thread, so that none holds this thread while it execs.
  context.subscriptions.push(useGitSpawnWorker(context.asAbsolutePath(path.join('dist', 'gitSpawnWorker.js'))));
  const git = createGit({ logger });
  const terminals = new TerminalRunner(logger);
  const storage = context.storageUri ?? context.globalStorageUri;
  const fs = new NodeFileSystem();
  const clock = { now: () => Date.now() };
  const newId = () => randomUUID().slice(0, 8);
  // Logs and the supervisors' state live in the registry of the agent's repository, where every
  // window on it finds them; the window's own storage is the fallback (and holds what older versions started).
  const health = new WriteHealth();
  context.subscriptions.push(health);
  const inRegistry = (folder: string, sub: string) => {
    const registry = registryDirSync(folder);
    // A registry that refuses writes cannot hold the logs either: they go to the window's storage.
    return registry === undefined || health.refused(registry) || !writableSync(registry)
      ? undefined
      : path.join(registry, sub);
  };
  const managerSettings = () => ({
    ...config.managerSettings(path.join(storage.fsPath, 'logs')),
    logDirOf: (repoRoot: string) => inRegistry(repoRoot, 'logs'),
  });
  const runsDir = path.join(storage.fsPath, 'agents');
  const agentStore = registryStore<AgentRecord>(context, stateKeys.agents, 'agents', logger, health);
  const planStore = registryStore<PlanRunRecord>(context, stateKeys.plans, 'plans', logger, health);
  const resolver = new PathExecutableResolver({
    demoAgentScript: context.asAbsolutePath(path.join('dist', 'demoAgent.js')),
    runtime: process.execPath,
  });
  const sandbox = new BubblewrapSandbox({
    sandboxScript: context.asAbsolutePath(path.join('dist', 'sandbox.js')),
    runtime: process.execPath,
  });
  const pool = new WorktreePool({
    git: new NodePoolGit(
      git.runner,
      (repoRoot, dir, force) => git.removeWorktree(repoRoot, dir, force),
      () => git.whenFilesDeleted(),
    ),
    disk: new NodePoolDisk(),
    source: git,
    prep: new WorktreePrep(fs, git, logger),
    logger,
    settings: () => managerSettings(),
    newSlot: () => randomUUID().slice(0, 8),
  });
  context.subscriptions.push(pool);
  const headlessRunner = new SupervisedRunner({
    supervisorScript: context.asAbsolutePath(path.join('dist', 'supervisor.js')),
    runtime: process.execPath,
    stateDir: runsDir,
    stateDirFor: (cwd) => inRegistry(cwd, 'runs'),
    maxLogBytes: () => config.maxLogMegabytes() * 1024 * 1024,
  });
  const manager = new AgentManager({
    pool,
    git,
    fs,
    worktreeSource: git,
    resolver,
    headlessRunner,
    terminalRunner: terminals,
    // Counted, so that Refresh knows which agents' folders saw no event since their last computation.
    watcher: git.freshness.watching(agentFolderWatcher(logger)),
    store: agentStore,
    clock,
    logger,
    settings: () => managerSettings(),
    profiles: () => config.profiles(),
    newId,
    processAlive: (pid) => pidAlive(pid),
    portProbe: tcpPortProbe,
    sandbox,
  });
  // One lock per repository across windows: a landing waits (showing who holds it) for another's.
  const locks = new LandingLocks({ logger, onWait: showLandingWait });
  const landing = new AgentLanding(manager, git, logger, locks);
  const plans = new PlanService(
    {
      manager,
      git,
      fs,
      clock,
      logger,
      locks,
      discard: (id) => landing.discard(id),
      settings: () => ({
        ...managerSettings(),
        defaultProfile: config.defaultProfile(),
        maxParallel: config.maxParallel(),
      }),
    },
    planStore,
    newId,
    { presence: windowPresence(context) },
  );
  const reconciler = new Reconciler({
    manager,
    landing,
    git,
    fs,
    clock,
    logger,
    settings: () => managerSettings(),
    newId,
    profile: () => config.defaultProfileMode(),
    repositories: () => workspaceRepositories(git),
    inUse: () => ({
      paths: plans.list().map((r) => r.integrationPath),
      branches: plans.list().map((r) => r.integrationBranch),
    }),
    registryRecords: (repoRoot) => recordsOnDisk<AgentRecord>(repoRoot, 'agents'),
    liveRuns: new LiveProcesses({
      statusDirs: (repoRoot) => [inRegistry(repoRoot, 'runs'), runsDir].filter((d): d is string => d !== undefined),
    }),
  });
  const registryProblems = () => [...agentStore.problems(), ...planStore.problems()];
  return {
    git,
    terminals,
    manager,
    landing,
    plans,
    reconciler,
    registryProblems,
    writeWarnings: health,
    resolver,
    pool,
    repositories: () => workspaceRepositories(git),
    reviewerRun: { runner: headlessRunner, fs, settings: managerSettings, sandbox },
  };
}

/**
 * Agents and plan runs are kept in the registry of their repository (`<git common dir>/parallel-agents/`),
 * shared by every window on it; records an earlier version kept in workspaceState move there.
 */
function registryStore<T extends { readonly id: string; readonly repoRoot: string }>(
  context: vscode.ExtensionContext,
  key: string,
  kind: RegistryKind,
  logger: Logger,
  health: WriteHealth,
): MigratingStore<T> {
  const registry = new RegistryStore<T>({
    kind,
    registries: () =>
      (vscode.workspace.workspaceFolders ?? [])
        .map((f) => registryDirSync(f.uri.fsPath))
        .filter((d): d is string => d !== undefined),
    registryOf: (repoRoot) => registryDirSync(repoRoot),
    logger,
    health,
  });
  const store = new MigratingStore<T>(registry, context.workspaceState, key, logger);
  context.subscriptions.push(store);
  return store;
}

/** This window, as the driver of the plan runs it drives (closed with the extension). */
function windowPresence(context: vscode.ExtensionContext): NodeWindowPresence {
  const presence = new NodeWindowPresence();
  context.subscriptions.push(presence);
  return presence;
}

async function workspaceRepositories(git: NodeGit): Promise<string[]> {
  const roots = await Promise.all(
    (vscode.workspace.workspaceFolders ?? []).map((f) => git.repoRoot(f.uri.fsPath).catch(() => undefined)),
  );
  return roots.filter((r): r is string => r !== undefined);
}
