/**
 * Refresh of every agent: the agents whose folder may have changed since their change set was
 * computed show every change their watcher reported before the command answers (a computation
 * under way joined, the paths named re-examined alone); the others, taken as current (no file
 * event, same index, HEAD and branch ref), and those not recomputed whole, are recomputed whole
 * afterwards, a few at a time in the background, so a change the file watcher missed shows up too.
 */
import type { AgentRecord } from '../../core/agent';

export interface RefreshAllDeps {
  list(): readonly AgentRecord[];
  /** A whole recompute. */
  refreshChanges(id: string): Promise<void>;
  /** What the watcher reported; true when that was a whole recompute. Without it: refreshChanges. */
  refreshSeen?(id: string): Promise<boolean>;
  /** Whether the agent's folder is as it was when its change set was last computed. */
  unchanged(cwd: string, baseSha: string): Promise<boolean>;
}

/** Agents recomputed at once by the background pass. */
const backgroundWidth = 2;

export class RefreshAll {
  /** Bumped by every refresh: an older background pass stops. */
  private pass = 0;
  private background: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RefreshAllDeps) {}

  /** Resolves once every agent that may have changed shows its current change set. */
  async run(): Promise<{ readonly refreshed: number; readonly deferred: number }> {
    const pass = ++this.pass;
    const records = this.deps.list();
    const current = await Promise.all(
      records.map((r) =>
        r.worktreePresent !== false && !r.worktreeMissing && r.baseSha
          ? this.deps.unchanged(r.cwd, r.baseSha).catch(() => false)
          : Promise.resolve(false),
      ),
    );
    const now = records.filter((_, i) => !current[i]).map((r) => r.id);
    const later = records.filter((_, i) => current[i]).map((r) => r.id);
    const seen = this.deps.refreshSeen?.bind(this.deps) ?? ((id) => this.deps.refreshChanges(id).then(() => true));
    const whole = await Promise.all(now.map((id) => seen(id)));
    this.background = this.recomputeLater(pass, [...now.filter((_, i) => !whole[i]), ...later]);
    return { refreshed: now.length, deferred: later.length };
  }

  /** The background pass of the last run (for tests and the bench). */
  settled(): Promise<void> {
    return this.background;
  }

  private async recomputeLater(pass: number, ids: readonly string[]): Promise<void> {
    // After the command has answered: the background never delays what the user waits for.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const queue = [...ids];
    const lane = async () => {
      for (let id = queue.shift(); id !== undefined && pass === this.pass; id = queue.shift()) {
        await this.deps.refreshChanges(id).catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: backgroundWidth }, lane));
  }

  dispose(): void {
    this.pass++;
  }
}
