// Part of the composition root: builds each service once; extension.ts registers them.
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { stateKeys } from './constants';
import { AgentLanding } from './core/landing';
import { AgentManager } from './core/agents';
import type { Logger } from './core/ports';
import { PlanService } from './core/plans';
import { Reconciler } from './core/reconcile';
import type { Config } from './host/config';
import { VscodeFolderWatcher } from './host/folderWatcher';
import { MementoStateStore } from './host/mementoStateStore';
import { TerminalRunner } from './host/terminalRunner';
import { PathExecutableResolver } from './node/executableResolver';
import { NodeFileSystem } from './node/fileSystem';
import { createGit, type NodeGit } from './node/git/createGit';
import { SupervisedRunner } from './node/supervisedRunner';

export interface Services {
  readonly git: NodeGit;
  readonly terminals: TerminalRunner;
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly plans: PlanService;
  readonly reconciler: Reconciler;
}

export function createServices(context: vscode.ExtensionContext, config: Config, logger: Logger): Services {
  const git = createGit({ logger });
  const terminals = new TerminalRunner(logger);
  const storage = context.storageUri ?? context.globalStorageUri;
  const fs = new NodeFileSystem();
  const clock = { now: () => Date.now() };
  const newId = () => randomUUID().slice(0, 8);
  const managerSettings = () => config.managerSettings(path.join(storage.fsPath, 'logs'));
  const manager = new AgentManager({
    git,
    fs,
    worktreeSource: git,
    resolver: new PathExecutableResolver({
      demoAgentScript: context.asAbsolutePath(path.join('dist', 'demoAgent.js')),
      runtime: process.execPath,
    }),
    headlessRunner: new SupervisedRunner({
      supervisorScript: context.asAbsolutePath(path.join('dist', 'supervisor.js')),
      runtime: process.execPath,
      stateDir: path.join(storage.fsPath, 'agents'),
      maxLogBytes: () => config.maxLogMegabytes() * 1024 * 1024,
    }),
    terminalRunner: terminals,
    watcher: new VscodeFolderWatcher(),
    store: new MementoStateStore(context.workspaceState, stateKeys.agents),
    clock,
    logger,
    settings: () => managerSettings(),
    profiles: () => config.profiles(),
    newId,
  });
  const landing = new AgentLanding(manager, git, logger);
  const plans = new PlanService(
    {
      manager,
      git,
      fs,
      clock,
      logger,
      settings: () => ({
        ...managerSettings(),
        defaultProfile: config.defaultProfile(),
        maxParallel: config.maxParallel(),
      }),
    },
    new MementoStateStore(context.workspaceState, stateKeys.plans),
    newId,
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
  });
  return { git, terminals, manager, landing, plans, reconciler };
}

async function workspaceRepositories(git: NodeGit): Promise<string[]> {
  const roots = await Promise.all(
    (vscode.workspace.workspaceFolders ?? []).map((f) => git.repoRoot(f.uri.fsPath).catch(() => undefined)),
  );
  return roots.filter((r): r is string => r !== undefined);
}
