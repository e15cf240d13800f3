import type * as vscode from 'vscode';
import { type AgentRecord, isActive } from '../core/agent';
import type { AgentManager } from '../core/agents';
import { type ProcessTable, type FolderSizes, UsageSampler, WorktreeSizes, worktreeOnDisk } from '../core/usage';
import { Emitter, mapEvent } from '../util/event';
import type { AgentCosts } from './agentsView/costText';

/** How often the sampler reads the process table while the Agents view is visible. */
export const usageIntervalMs = 3000;

/**
 * The window's one usage sampler and worktree size cache, shown in the Agents view: sampling runs
 * only while the view is visible and an agent of this window is live.
 */
export class WindowAgentCosts implements AgentCosts, vscode.Disposable {
  readonly sampler: UsageSampler;
  readonly sizes: WorktreeSizes;
  private readonly sized = new Emitter<readonly string[]>();
  private readonly subscriptions: { dispose(): void }[] = [];
  private pokeDue = false;
  readonly onDidChange;

  constructor(
    manager: AgentManager,
    table: ProcessTable | undefined,
    folders: FolderSizes,
    view: { readonly visible: boolean; readonly onDidChangeVisibility: vscode.Event<{ readonly visible: boolean }> },
  ) {
    this.sampler = new UsageSampler({
      table,
      roots: () => liveRoots(manager),
      timers: { now: () => Date.now(), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout },
      intervalMs: usageIntervalMs,
    });
    this.sizes = new WorktreeSizes(folders);
    const changes = new Emitter<readonly string[]>();
    this.onDidChange = changes.event;
    this.subscriptions.push(
      this.sampler.onDidChange((ids) => changes.fire(ids)),
      this.sized.event((ids) => changes.fire(ids)),
      mapEvent(view.onDidChangeVisibility, (e) => e.visible)((visible) => this.sampler.setWanted(visible)),
      manager.onDidChangeAgent(() => this.pokeSoon()),
      changes,
      this.sized,
      this.sampler,
    );
    this.sampler.setWanted(view.visible);
  }

  /**
   * After the change event's turn: a run becomes "running" before the manager holds its process, so
   * its root is known only once the update that announced it is over.
   */
  private pokeSoon(): void {
    if (!this.pokeDue) {
      this.pokeDue = true;
      setTimeout(() => {
        this.pokeDue = false;
        this.sampler.poke();
      }, 0);
    }
  }

  usage(id: string) {
    return this.sampler.usage(id);
  }

  diskBytes(record: AgentRecord): number | undefined {
    return this.sizes.known(record);
  }

  async measureWithin(record: AgentRecord, waitMs: number): Promise<void> {
    if (!worktreeOnDisk(record) || this.sizes.known(record) !== undefined) {
      return;
    }
    let late = false;
    const measured = this.sizes.size(record).then(
      () => late && this.sized.fire([record.id]),
      () => undefined,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([measured, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
    clearTimeout(timer);
    late = this.sizes.known(record) === undefined;
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}

/** Each active agent's root process, where this window knows it. */
function liveRoots(manager: AgentManager): Map<string, number> {
  const roots = new Map<string, number>();
  for (const record of manager.list()) {
    const pid = isActive(record.status) ? manager.processOf(record.id) : undefined;
    if (pid !== undefined) {
      roots.set(record.id, pid);
    }
  }
  return roots;
}
