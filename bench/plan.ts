// The speedup a plan really obtains: a plan of `width` independent demo-agent tasks, each working
// for `taskMs`, and one task that depends on all of them, run by a real PlanService (real git,
// real processes, merges into the integration worktree). The figures are the timeline's own
// (core/plans/timeline.ts computeFigures over the tasks' agents), as Show Timeline reports them.
import * as path from 'node:path';
import { NodeFileSystem } from '../src/node/fileSystem';
import { PlanService } from '../src/core/plans/planService';
import { barsFromAgents, computeFigures, type TimelineFigures } from '../src/core/timeline/timeline';
import type { Plan, PlanRunRecord } from '../src/core/plans/planTypes';
import type { PlanStore } from '../src/core/ports';
import type { BenchManager } from './manager';
import type { BenchRepo } from './repo';
import { waitUntil } from './stats';

class MemoryPlanStore implements PlanStore {
  private records: readonly PlanRunRecord[] = [];
  load(): readonly PlanRunRecord[] {
    return this.records;
  }
  async save(records: readonly PlanRunRecord[]): Promise<void> {
    this.records = records;
  }
}

export interface PlanFigures extends TimelineFigures {
  readonly width: number;
  readonly taskMs: number;
  readonly maxParallel: number;
  /** The plan's run from start() until every task merged. */
  readonly elapsedMs: number;
  /** Tasks that did not end merged (0 when the run went as planned). */
  readonly notMerged: number;
}

export async function measurePlan(
  bench: BenchManager,
  repo: BenchRepo,
  width = 4,
  taskMs = 3000,
): Promise<PlanFigures> {
  const maxParallel = width;
  const plans = new PlanService(
    {
      manager: bench.manager,
      git: bench.git,
      fs: new NodeFileSystem(),
      clock: { now: () => Date.now() },
      logger: { info() {}, warn() {}, error() {} },
      settings: () => ({
        branchPrefix: 'agents',
        worktreeRoot: repo.worktreeRoot,
        logDir: path.join(repo.parent, 'logs'),
        defaultProfile: 'demo',
        maxParallel,
      }),
    },
    new MemoryPlanStore(),
    () => 'bench-plan',
  );
  const seconds = Math.max(1, Math.round(taskMs / 1000));
  const parts = Array.from({ length: width }, (_, i) => `part${i + 1}`);
  const plan: Plan = {
    title: 'Bench plan',
    maxParallel,
    tasks: [
      ...parts.map((id) => ({
        id,
        title: `Part ${id}`,
        prompt: `print working on ${id}\nsleep ${seconds}\ncreate bench-plan/${id}.txt: ${id}`,
      })),
      { id: 'join', title: 'Join', prompt: 'create bench-plan/join.txt: joined', dependsOn: parts },
    ],
  };
  try {
    const started = Date.now();
    const run = await plans.start(plan, repo.dir);
    await waitUntil('the bench plan to finish', () => run.scheduler.finished, 600_000);
    const elapsedMs = Date.now() - started;
    const agents = plan.tasks.map((t) => run.agentOf(t.id)).filter((a): a is string => a !== undefined);
    const records = agents.map((id) => bench.manager.get(id));
    const dependsOn = new Map<string, string[]>();
    for (const task of plan.tasks) {
      const agent = run.agentOf(task.id);
      if (agent) {
        dependsOn.set(
          agent,
          (task.dependsOn ?? []).map((d) => run.agentOf(d)).filter((a): a is string => !!a),
        );
      }
    }
    const now = Date.now();
    const figures = computeFigures(barsFromAgents(records, now, { dependsOn }), now, maxParallel);
    const notMerged = plan.tasks.length - records.filter((r) => r.status === 'merged').length;
    return { ...figures, width, taskMs: seconds * 1000, maxParallel, elapsedMs, notMerged };
  } finally {
    await plans.flush().catch(() => undefined);
    plans.dispose();
  }
}
