// What activation does with the registry, as services.ts and trustedActivation.ts do it, minus
// VS Code: the stores (the registry behind the workspaceState migration), the AgentManager's
// restore, the PlanService's restore, and the Agents view's model (top-level rows, plan runs,
// overlaps). Timed step by step in one fresh process (child.ts `load`), so the code runs cold as
// at activation; module loading is not in the figures (it does not depend on the records).
import { pidAlive } from '../../src/supervisor/processIdentity';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { AgentRecord } from '../../src/core/agent';
import { AgentManager } from '../../src/core/agents/agentManager';
import { builtinProfiles } from '../../src/core/clis/profiles';
import { findOverlaps } from '../../src/core/landing';
import type { StateStore } from '../../src/core/ports';
import { PlanService, type PlanRunRecord } from '../../src/core/plans';
import { MigratingStore } from '../../src/host/migratingStore';
import { PathExecutableResolver } from '../../src/node/executableResolver';
import { NodeFileSystem } from '../../src/node/fileSystem';
import { createGit } from '../../src/node/git/createGit';
import { RegistryStore } from '../../src/node/registry/registryStore';
import { SupervisedRunner } from '../../src/node/supervisedRunner';
import { agentStore } from './window';

const quiet = { info() {}, warn() {}, error() {} };

/** workspaceState of a window that never ran an older version: nothing to migrate. */
const emptyMemento = {
  keys: () => [],
  get: (_key: string, fallback?: unknown) => fallback,
  update: async () => undefined,
} as unknown as vscode.Memento;

export interface LoadFigures {
  /** Milliseconds of each step, and `total`. */
  readonly steps: Record<string, number>;
  /** Agent records the window ended up with. */
  readonly records: number;
  /** Top-level rows, plan runs and agents with overlaps: what the view model produced. */
  readonly rows: number;
}

export function timeActivationLoad(registry: string, repoRoot: string): LoadFigures {
  const steps: Record<string, number> = {};
  const started = performance.now();
  let mark = started;
  const step = (name: string) => {
    const t = performance.now();
    steps[name] = (steps[name] ?? 0) + (t - mark);
    mark = t;
  };
  const agents = new MigratingStore<AgentRecord>(agentStore(registry), emptyMemento, 'agents', quiet);
  const planRegistry = new RegistryStore<PlanRunRecord>({
    kind: 'plans',
    registries: () => [registry],
    registryOf: () => registry,
    logger: quiet,
  });
  const plansStore = new MigratingStore<PlanRunRecord>(planRegistry, emptyMemento, 'plans', quiet);
  step('stores');
  // The manager's constructor loads the store, then restores: the load is timed on its own.
  let loadMs = 0;
  const timedStore: StateStore = {
    load: () => {
      const t = performance.now();
      const records = agents.load();
      loadMs = performance.now() - t;
      return records;
    },
    save: (records) => agents.save(records),
    onDidChangeElsewhere: agents.onDidChangeElsewhere,
  };
  const git = createGit({ logger: quiet });
  const settings = () => ({
    branchPrefix: 'agents',
    worktreeRoot: `${repoRoot}.worktrees`,
    logDir: path.join(registry, 'logs'),
    defaultProfile: 'demo',
    maxParallel: 4,
  });
  const manager = new AgentManager({
    git,
    fs: new NodeFileSystem(),
    worktreeSource: git,
    resolver: new PathExecutableResolver({ demoAgentScript: 'demoAgent.js', runtime: process.execPath }),
    headlessRunner: new SupervisedRunner({
      supervisorScript: 'supervisor.js',
      runtime: process.execPath,
      stateDir: path.join(registry, 'runs'),
    }),
    terminalRunner: {
      start: () => {
        throw new Error('the bench starts no agent');
      },
    },
    watcher: { watch: () => ({ dispose() {} }) },
    store: timedStore,
    clock: { now: () => Date.now() },
    logger: quiet,
    settings,
    profiles: () => builtinProfiles,
    newId: () => 'x',
    processAlive: (pid) => pidAlive(pid),
  });
  step('agentManager');
  steps.agentManager -= loadMs;
  steps.registryLoad = loadMs;
  const plans = new PlanService(
    { manager, git, fs: new NodeFileSystem(), clock: { now: () => Date.now() }, logger: quiet, settings },
    plansStore,
    () => 'p',
  );
  step('planService');
  const overlaps = findOverlaps(manager.list());
  const topLevel = manager.list().filter((r) => !r.plan);
  const rows = topLevel.length + plans.list().length + overlaps.size;
  step('viewModel');
  steps.total = performance.now() - started;
  const records = manager.list().length;
  manager.dispose();
  plans.dispose();
  agents.dispose();
  plansStore.dispose();
  return { steps, records, rows };
}
