import type { AgentRecord } from '../../core/agent';
import { type AgentManager, planCost } from '../../core/agents';
import type { PlanRun } from '../../core/plans';
import { type PlanService, taskCandidates } from '../../core/plans';
import type { Orphan } from '../../core/reconcile';
import type { Event } from '../../util/event';
import type { OverlapModel } from '../overlapModel';
import type { AgentCosts } from './costText';

/** Reconcile Agents' last findings, held in memory. */
export interface OrphanSource {
  orphans(): readonly Orphan[];
  readonly onDidChange: Event<void>;
}

/** The record of agent `id`, or undefined when there is none (removed meanwhile). */
export function findAgent(manager: Pick<AgentManager, 'get'>, id: string): AgentRecord | undefined {
  try {
    return manager.get(id);
  } catch {
    return undefined;
  }
}

/**
 * What the Agents view shows, read from memory on every call: the manager's records, the plan
 * runs, Reconcile's orphans and the overlaps between agents. Nodes hold keys only (ids), never a
 * copy of a record, so a row always shows the record as it is now.
 */
export class AgentsViewModel {
  constructor(
    private readonly manager: AgentManager,
    private readonly overlaps: OverlapModel,
    private readonly plans: PlanService,
    private readonly orphanSource?: OrphanSource,
    /** Each agent's CPU, memory and disk, when the window measures them. */
    readonly costs?: AgentCosts,
  ) {}

  /** One map lookup: rows ask for their record on every read, and a list is a sorted copy. */
  agent(id: string): AgentRecord | undefined {
    return findAgent(this.manager, id);
  }

  /** Agents shown at the top level: those that are not a plan's task. */
  standaloneAgents(): AgentRecord[] {
    return this.manager.list().filter((r) => !r.plan);
  }

  planRuns(): PlanRun[] {
    return this.plans.list();
  }

  planRun(runId: string): PlanRun | undefined {
    return this.plans.find(runId);
  }

  /** What the plan's agents have spent together (US dollars, from the costs their CLIs reported). */
  planSpent(runId: string): number {
    return planCost(this.manager.list(), runId);
  }

  /** Another open window drives the run: its rows say so and offer no Start, Retry or Skip here. */
  planDrivenElsewhere(runId: string): boolean {
    return this.plans.drivenElsewhere(runId);
  }

  /** The agent that runs (or ran) a plan's task, if any. */
  taskAgent(runId: string, taskId: string): AgentRecord | undefined {
    const agentId = this.plans.find(runId)?.agentOf(taskId);
    return agentId ? this.agent(agentId) : undefined;
  }

  /** A Best of N task's candidates still there (not discarded), in the order they were made. */
  taskCandidates(runId: string, taskId: string): AgentRecord[] {
    return taskCandidates(this.manager.list(), runId, taskId).filter((r) => r.status !== 'discarded');
  }

  /** 1 for the queued agent that starts next; undefined when it is not queued. */
  queuePosition(id: string): number | undefined {
    return this.manager.queuePosition(id);
  }

  orphans(): readonly Orphan[] {
    return this.orphanSource?.orphans() ?? [];
  }

  /** Titles of the agents changing at least one of the same files as agent `id`. */
  agentsOverlapping(id: string): string[] {
    return this.overlaps.agentsOverlapping(id);
  }

  /** Titles of the other agents changing `path` of agent `id`. */
  othersFor(id: string, path: string): string[] {
    return this.overlaps.othersFor(id, path);
  }

  now(): number {
    return Date.now();
  }
}
