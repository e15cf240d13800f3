/**
 * The warm worktree pool (`parallelAgents.worktreePool`): per repository, up to N worktrees kept
 * checked out on a detached HEAD at the main worktree's HEAD, in `<worktree root>/.pool/`, with
 * their `.worktreeinclude` files copied, folders linked, submodules initialised and setup command
 * run. A dispatch takes one when it is exactly at the dispatch's base commit (or, without a setup
 * command or submodules, brings it there touching only changed files) and was prepared with the
 * settings and include files of now; the pool is then refilled in the background, one git step at
 * a time at low priority. Pool entries have no agent record and no branch, so neither the Agents
 * view nor reconcile ever lists them. Size 0 removes them all.
 */
import type { WorktreeSetupGit } from '../git';
import type { Logger } from '../ports';
import { type Disposable, Emitter } from '../../util/event';
import { SerialQueue } from '../../util/async';
import { joinPath } from '../../util/paths';
import type { PoolDisk, PoolEntryInfo, PoolGit, PoolMeta } from './poolPorts';
import { type PoolSettings, poolDirFor, poolSize } from './poolSettings';
import type { WorktreePrep } from './worktreePrep';

export interface PoolDeps {
  readonly git: PoolGit;
  readonly disk: PoolDisk;
  readonly source: Pick<WorktreeSetupGit, 'worktreeIncludes'>;
  readonly prep: Pick<WorktreePrep, 'files' | 'submodules'>;
  readonly logger: Logger;
  readonly settings: () => PoolSettings;
  /** A new entry folder's name (unique across windows). */
  readonly newSlot: () => string;
}

/** What the pools of the known repositories hold now: shown in the Agents view. */
export interface PoolUsage {
  readonly entries: number;
  readonly bytes: number;
}

export class WorktreePool implements Disposable {
  /** Background work, one step at a time for every repository. */
  private readonly queue = new SerialQueue();
  private readonly pending = new Set<string>();
  private readonly watches = new Map<string, Disposable | undefined>();
  private readonly usages = new Map<string, PoolUsage>();
  private readonly usageEmitter = new Emitter<PoolUsage>();
  private disposed = false;
  readonly onDidChangeUsage = this.usageEmitter.event;

  constructor(private readonly deps: PoolDeps) {}

  /** Keeps the pool of each repository filled and follows its HEAD. */
  watch(repoRoots: readonly string[]): void {
    for (const repoRoot of repoRoots) {
      if (!this.watches.has(repoRoot)) {
        this.watches.set(
          repoRoot,
          this.deps.disk.watchHead(repoRoot, () => void this.refresh(repoRoot)),
        );
      }
      void this.refresh(repoRoot);
    }
  }

  /** Refreshes every watched repository's pool (settings changed; size 0 empties them). */
  refreshAll(): Promise<void> {
    return Promise.all([...this.watches.keys()].map((r) => this.refresh(r))).then(() => undefined);
  }

  usage(): PoolUsage {
    let entries = 0;
    let bytes = 0;
    for (const u of this.usages.values()) {
      entries += u.entries;
      bytes += u.bytes;
    }
    return { entries, bytes };
  }

  /**
   * Takes a pool entry as the new worktree `target` with branch `branch` at `sha`; false when
   * none fits (the caller then adds the worktree the normal way). True means the worktree exists
   * at exactly `sha`, prepared and set up: the agent may start at once.
   */
  async take(repoRoot: string, target: string, branch: string, sha: string): Promise<boolean> {
    const settings = this.deps.settings();
    if (poolSize(settings) === 0 || this.disposed) {
      return false;
    }
    try {
      const ready = (await this.deps.disk.list(poolDirFor(repoRoot, settings))).filter(
        (e): e is PoolEntryInfo & { meta: PoolMeta } => e.meta?.state === 'ready',
      );
      // Setup output and submodules may depend on the commit: then only an entry made at it will do.
      const movable = (settings.setupCommand ?? []).length === 0 && !settings.initSubmodules;
      const order = [
        ...ready.filter((e) => e.meta.head === sha),
        ...(movable ? ready.filter((e) => e.meta.head !== sha) : []),
      ];
      for (const entry of order) {
        if ((await this.fingerprint(repoRoot, settings, entry.meta.includes)) !== entry.meta.fingerprint) {
          continue;
        }
        if (!(await this.deps.disk.claim(entry.dir))) {
          continue;
        }
        try {
          await this.deps.git.takeInto(repoRoot, entry.dir, target, branch, sha);
          this.deps.logger.info(`[WorktreePool] ${target} taken from the pool (${entry.dir}) at ${sha}`);
          return true;
        } catch (e) {
          this.deps.logger.warn(`[WorktreePool] taking ${entry.dir} failed, adding the worktree instead: ${text(e)}`);
          return false;
        } finally {
          await this.deps.disk.dropMeta(entry.dir).catch(() => undefined);
        }
      }
      return false;
    } finally {
      void this.refresh(repoRoot);
    }
  }

  /** Brings the repository's pool to its size, at HEAD, with the settings of now (in the background queue). */
  refresh(repoRoot: string): Promise<void> {
    if (this.pending.has(repoRoot)) {
      return Promise.resolve();
    }
    this.pending.add(repoRoot);
    return this.queue.run(async () => {
      this.pending.delete(repoRoot);
      if (this.disposed) {
        return;
      }
      try {
        await this.refreshNow(repoRoot);
      } catch (e) {
        this.deps.logger.warn(`[WorktreePool] ${repoRoot}: ${text(e)}`);
      }
      await this.measure(repoRoot).catch(() => undefined);
    });
  }

  /** Resolves once the background work queued so far is done. */
  settled(): Promise<void> {
    return this.queue.run(() => Promise.resolve());
  }

  dispose(): void {
    this.disposed = true;
    for (const w of this.watches.values()) {
      w?.dispose();
    }
    this.watches.clear();
    this.usageEmitter.dispose();
  }

  private async refreshNow(repoRoot: string): Promise<void> {
    const settings = this.deps.settings();
    const size = poolSize(settings);
    const poolDir = poolDirFor(repoRoot, settings);
    const entries = await this.deps.disk.list(poolDir);
    const head = size > 0 ? await this.deps.git.head(repoRoot) : '';
    let kept = 0;
    for (const entry of entries) {
      if (this.disposed) {
        // A window closing keeps its pool: the next one finds it.
        return;
      }
      if (entry.claimed || (entry.meta?.state === 'filling' && entry.fillerAlive)) {
        continue;
      }
      const meta = entry.meta;
      const fresh =
        meta?.state === 'ready' &&
        kept < size &&
        meta.fingerprint === (await this.fingerprint(repoRoot, settings, meta.includes));
      if (!fresh) {
        await this.remove(repoRoot, entry.dir);
        continue;
      }
      if (meta.head === head || (await this.bringForward(repoRoot, entry.dir, head, settings))) {
        kept++;
      }
    }
    if (size === 0) {
      // The folder goes once empty: wait for the removed entries' files, deleted in the background.
      await (entries.length > 0 ? this.deps.git.whenRemoved() : undefined);
      await this.deps.disk.remember(repoRoot, poolDir, false);
      return;
    }
    await this.deps.disk.remember(repoRoot, poolDir, true);
    // A fill that fails ends this refresh: the next one (a dispatch, HEAD moving) tries again.
    while (
      kept < size &&
      !this.disposed &&
      (await this.fill(repoRoot, joinPath(poolDir, this.deps.newSlot()), head, settings))
    ) {
      kept++;
    }
  }

  /** A new entry at `head`; false when it failed (it is removed again). */
  private async fill(repoRoot: string, dir: string, head: string, settings: PoolSettings): Promise<boolean> {
    await this.deps.disk.writeMeta(dir, { state: 'filling', head, fingerprint: '', includes: [] });
    try {
      await this.deps.git.addDetached(repoRoot, dir, head);
      if (await this.prepare(repoRoot, dir, head, settings, true)) {
        this.deps.logger.info(`[WorktreePool] ${dir} ready at ${head}`);
        return true;
      }
    } catch (e) {
      this.deps.logger.warn(`[WorktreePool] ${dir}: ${text(e)}`);
    }
    await this.remove(repoRoot, dir);
    return false;
  }

  /**
   * An entry behind HEAD moves there; its setup command runs again, since its output may depend on
   * the files. False when it is gone (taken meanwhile, or failed and removed).
   */
  private async bringForward(repoRoot: string, dir: string, head: string, settings: PoolSettings): Promise<boolean> {
    // Claimed like a dispatch claims it, so no dispatch takes it while it moves.
    if (!(await this.deps.disk.claim(dir))) {
      return false;
    }
    try {
      await this.deps.git.moveDetached(dir, head);
      if (await this.prepare(repoRoot, dir, head, settings, false)) {
        return true;
      }
    } catch (e) {
      this.deps.logger.warn(`[WorktreePool] ${dir}: ${text(e)}`);
    }
    await this.remove(repoRoot, dir);
    return false;
  }

  private async prepare(
    repoRoot: string,
    dir: string,
    head: string,
    settings: PoolSettings,
    first: boolean,
  ): Promise<boolean> {
    const includes = await this.deps.source.worktreeIncludes(repoRoot);
    if (first && settings.initSubmodules) {
      await this.deps.prep.submodules(dir);
    }
    if (first) {
      await this.deps.prep.files(repoRoot, dir, settings.symlinkFolders ?? []);
    }
    const setup = settings.setupCommand ?? [];
    if (setup.length > 0 && !(await this.deps.disk.runSetup(setup, dir, `${dir}.setup.log`))) {
      const log = await this.deps.disk.readSetupLog(dir);
      this.deps.logger.warn(`[WorktreePool] the setup command failed in ${dir}; the entry is removed\n${log}`);
      return false;
    }
    const fingerprint = await this.fingerprint(repoRoot, settings, includes);
    const bytes = await this.deps.disk.bytes(dir).catch(() => undefined);
    await this.deps.disk.writeMeta(dir, { state: 'ready', head, fingerprint, includes, bytes });
    return true;
  }

  private async remove(repoRoot: string, dir: string): Promise<void> {
    try {
      await this.deps.git.removeEntry(repoRoot, dir);
    } catch (e) {
      this.deps.logger.warn(`[WorktreePool] removing ${dir}: ${text(e)}`);
    }
    await this.deps.disk.dropMeta(dir).catch(() => undefined);
  }

  /**
   * What an entry was prepared with: the setup command, linked folders, submodules, and the size
   * and time of `.worktreeinclude` and of each file it copied. An entry whose fingerprint is not
   * today's is never taken.
   */
  private async fingerprint(repoRoot: string, settings: PoolSettings, includes: readonly string[]): Promise<string> {
    const stamp = await this.deps.disk.stamp(repoRoot, ['.worktreeinclude', ...includes]);
    return JSON.stringify([
      settings.setupCommand ?? [],
      settings.symlinkFolders ?? [],
      settings.initSubmodules ?? false,
      stamp,
    ]);
  }

  private async measure(repoRoot: string): Promise<void> {
    const entries = await this.deps.disk.list(poolDirFor(repoRoot, this.deps.settings()));
    const ready = entries.filter((e) => e.meta?.state === 'ready');
    const usage = { entries: ready.length, bytes: ready.reduce((sum, e) => sum + (e.meta?.bytes ?? 0), 0) };
    this.usages.set(repoRoot, usage);
    if (!this.disposed) {
      this.usageEmitter.fire(this.usage());
    }
  }
}

function text(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
