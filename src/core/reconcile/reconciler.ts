import type { AgentRecord } from '../agent';
import { type AgentLanding, savedRefPrefix } from '../landing';
import type { AgentManager } from '../agents';
import { AgentError } from '../errors';
import type { RefGit, SnapshotGit, WorktreeGit } from '../git';
import type { FileSystemPort, LiveRuns, Logger, ManagerSettings } from '../ports';
import { forgetMissing, restoreMissing } from './missingRepairs';
import { type MissingAgent, type Orphan, type OrphanKey, reconcile, samePathKey } from './reconcile';
import { claimedToo, orphanRefusal, withoutLive, withoutUnpruned } from './orphanChecks';
import { WorktreeNames } from '../worktrees';
import { type Disposable, Emitter } from '../../util/event';
import { joinPath, parentDir } from '../../util/paths';

export interface ReconcileReport {
  readonly orphans: readonly Orphan[];
  readonly missing: readonly MissingAgent[];
  /** Stale worktree registrations removed (paths). */
  readonly pruned: readonly string[];
  /** Repositories that could not be looked at, with why. */
  readonly errors: readonly string[];
}

export interface ReconcilerDeps {
  readonly manager: AgentManager;
  readonly landing: AgentLanding;
  readonly git: WorktreeGit & RefGit & SnapshotGit;
  readonly fs: FileSystemPort;
  readonly clock: { now(): number };
  readonly logger: Logger;
  readonly settings: () => ManagerSettings;
  /** The profile an adopted agent's follow-ups use. */
  readonly profile: () => { readonly name: string; readonly mode: 'headless' | 'terminal' };
  /** Repositories of the workspace (the records' repositories are added). */
  readonly repositories: () => Promise<readonly string[]>;
  /** Worktrees and branches in use that are not agents (live plan runs' integration worktrees). */
  readonly inUse: () => { readonly paths: readonly string[]; readonly branches: readonly string[] };
  readonly newId: () => string;
  /** The repository's agent records as its registry on disk has them now (other windows' included). */
  readonly registryRecords: (repoRoot: string) => Promise<readonly AgentRecord[]>;
  /** Live processes working in a folder: a worktree one runs in is no orphan. */
  readonly liveRuns: LiveRuns;
}

/**
 * Reconcile Agents: finds orphaned worktrees and branches, marks agents whose folder is gone as
 * missing and prunes the extension's stale registrations; then adopts, discards (work saved
 * first), restores or forgets what it found. Keeps the last findings in memory for the view.
 */
export class Reconciler implements Disposable {
  private orphanList: Orphan[] = [];
  private running?: Promise<ReconcileReport>;
  private readonly emitter = new Emitter<void>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly deps: ReconcilerDeps) {}

  orphans(): readonly Orphan[] {
    return this.orphanList;
  }

  /** One pass over every repository; a pass asked for while one runs shares it. */
  run(): Promise<ReconcileReport> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async adopt(key: OrphanKey): Promise<AgentRecord> {
    const orphan = this.find(key);
    // The record first: a branch that cannot be shown is refused before a worktree is made for it.
    const record = await this.recordFor(orphan, {});
    await this.recheck(orphan);
    if (orphan.kind === 'branch') {
      await this.deps.fs.mkdirp(parentDir(orphan.path));
      await this.deps.git.checkoutWorktree(orphan.repoRoot, orphan.path, orphan.branch);
    }
    this.deps.manager.register(record);
    await this.deps.fs
      .appendText(
        record.logPath!,
        `Adopted by Reconcile Agents: worktree ${orphan.path} on ${orphan.branch}, base ${record.baseSha.slice(0, 12)}.\n`,
      )
      .catch(() => undefined);
    this.dropOrphan(orphan);
    this.deps.logger.info(`[Reconcile] adopted ${orphan.branch} (${orphan.path}) as agent ${record.id}`);
    return record;
  }

  /**
   * Saves the orphan's work under refs/parallel-agents/saved/, removes it, and lists it as a
   * discarded agent that Restore Agent brings back.
   */
  async discardOrphan(key: OrphanKey): Promise<AgentRecord> {
    const orphan = this.find(key);
    if (orphan.kind === 'worktree') {
      const record = await this.recordFor(orphan, {});
      await this.recheck(orphan);
      this.deps.manager.register(record);
      await this.deps.landing.discard(record.id);
      this.dropOrphan(orphan);
      return this.deps.manager.get(record.id);
    }
    const record = await this.recordFor(orphan, {
      status: 'discarded',
      statusBeforeDiscard: 'stopped',
      worktreePresent: false,
    });
    await this.recheck(orphan);
    const saved = await this.deps.git.saveBranch(
      orphan.repoRoot,
      orphan.branch,
      `${savedRefPrefix}${record.id}`,
      `Parallel Agents: branch ${orphan.branch} saved before deleting it`,
    );
    await this.deps.git.deleteBranch(orphan.repoRoot, orphan.branch, true);
    this.deps.manager.register({ ...record, savedRef: saved.ref });
    this.dropOrphan(orphan);
    return this.deps.manager.get(record.id);
  }

  /** Brings a missing agent's worktree back: from its saved work when that is newest, else on its branch. */
  restoreMissing(id: string): Promise<void> {
    return restoreMissing(this.deps, id);
  }

  /**
   * Drops a missing agent: its registration and branch go; commits the branch had are kept under
   * refs/parallel-agents/saved/<id>.
   */
  forget(id: string): Promise<void> {
    return forgetMissing(this.deps, id);
  }

  dispose(): void {
    this.emitter.dispose();
  }

  private async pass(): Promise<ReconcileReport> {
    const roots = new Map<string, string>();
    const add = (root: string) => roots.set(samePathKey(root), roots.get(samePathKey(root)) ?? root);
    (await this.deps.repositories().catch(() => [])).forEach(add);
    this.deps.manager.list().forEach((r) => add(r.repoRoot));
    const orphans: Orphan[] = [];
    const missing: MissingAgent[] = [];
    const pruned: string[] = [];
    const errors: string[] = [];
    for (const repoRoot of roots.values()) {
      try {
        const found = await this.repository(repoRoot);
        orphans.push(...found.orphans);
        missing.push(...found.missing);
        pruned.push(...found.pruned);
      } catch (e) {
        errors.push(`${repoRoot}: ${(e as Error).message}`);
        this.deps.logger.warn(`[Reconcile] ${repoRoot}: ${(e as Error).message}`);
      }
    }
    this.orphanList = orphans;
    this.emitter.fire();
    this.deps.logger.info(
      `[Reconcile] ${roots.size} repositories: ${orphans.length} orphaned, ${missing.length} missing, ${pruned.length} pruned`,
    );
    return { orphans, missing, pruned, errors };
  }

  private async repository(repoRoot: string): Promise<Omit<ReconcileReport, 'errors'>> {
    const settings = this.deps.settings();
    const records = this.deps.manager.list();
    const [worktrees, refs] = await Promise.all([
      this.deps.git.listWorktrees(repoRoot),
      // Stryker disable next-line ArrayDeclaration: equivalent, every ref read is a branch or under savedRefPrefix
      this.deps.git.listRefs(repoRoot, ['refs/heads/', savedRefPrefix]),
    ]);
    const existingFolders = new Set<string>();
    for (const r of records) {
      if (
        // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, exists(undefined) is false
        r.worktreePath &&
        // Stryker disable next-line ConditionalExpression: equivalent, a folder exists or not whichever record names it
        samePathKey(r.repoRoot) === samePathKey(repoRoot) &&
        (await this.deps.fs.exists(r.worktreePath))
      ) {
        existingFolders.add(r.worktreePath);
      }
    }
    const input = {
      repoRoot,
      worktreeRoot: WorktreeNames.rootFor(repoRoot, settings),
      branchPrefix: settings.branchPrefix,
      records,
      worktrees,
      refs,
      existingFolders,
      inUse: this.deps.inUse(),
    };
    let findings = reconcile(input);
    // Records another window wrote that this one has not heard of yet claim their worktrees too; they
    // can only take orphans away or prune more, so the registry is read only when there are either.
    if (findings.orphans.length > 0 || worktrees.some((w) => w.prunable !== undefined)) {
      const onDisk = await this.deps.registryRecords(repoRoot);
      findings = reconcile({ ...input, inUse: claimedToo(input.inUse, onDisk) });
    }
    const pruned: string[] = [];
    for (const dir of findings.prune) {
      await this.deps.git.pruneWorktree(repoRoot, dir).then(
        () => pruned.push(dir),
        (e: Error) => this.deps.logger.warn(`[Reconcile] pruning ${dir} failed: ${e.message}`),
      );
    }
    for (const { id } of findings.missing) {
      if (!this.deps.manager.get(id).worktreeMissing) {
        this.deps.manager.setTracked(id, false);
        this.deps.manager.annotate(id, { worktreeMissing: true, changedFiles: [] });
      }
    }
    for (const id of findings.reappeared) {
      this.deps.manager.annotate(id, { worktreeMissing: false });
      this.deps.manager.setTracked(id, true);
    }
    const unpruned = findings.prune.filter((d) => !pruned.includes(d));
    const orphans = withoutUnpruned(findings.orphans, worktrees, unpruned);
    // Stryker disable next-line MethodExpression,ConditionalExpression: equivalent, liveIn ignores branch orphans
    const folders = orphans.filter((o) => o.kind === 'worktree').map((o) => o.path);
    // Stryker disable next-line ConditionalExpression,ArrayDeclaration: equivalent, liveIn ignores branch orphans
    const live = folders.length === 0 ? [] : await this.deps.liveRuns.inFolders(repoRoot, folders);
    return { orphans: withoutLive(orphans, live), missing: [...findings.missing], pruned };
  }

  private async recordFor(orphan: Orphan, patch: Partial<AgentRecord>): Promise<AgentRecord> {
    const base = await this.deps.git.mergeBase(orphan.repoRoot, 'HEAD', `refs/heads/${orphan.branch}`);
    if (!base) {
      throw new AgentError('unrelatedHistory', { branch: orphan.branch, repoRoot: orphan.repoRoot });
    }
    const id = patch.id ?? this.deps.newId();
    const profile = this.deps.profile();
    const now = this.deps.clock.now();
    const slug = orphan.branch.slice(orphan.branch.lastIndexOf('/') + 1);
    return {
      id,
      title: slug,
      prompt: '',
      profile: profile.name,
      mode: profile.mode,
      isolation: 'worktree',
      status: 'stopped',
      repoRoot: orphan.repoRoot,
      cwd: orphan.path,
      branch: orphan.branch,
      worktreePath: orphan.path,
      baseSha: base,
      createdAt: now,
      endedAt: now,
      logPath: joinPath(logDirFor(this.deps.settings(), orphan.repoRoot), `${id}.log`),
      changedFiles: [],
      adopted: true,
      ...patch,
    };
  }

  /**
   * Refuses, leaving everything as it is, when the orphan is no orphan any more: a record claims it
   * (the registry is read again: another window may have written one since) or a process works in it.
   */
  private async recheck(orphan: Orphan): Promise<void> {
    const [onDisk, live] = await Promise.all([
      this.deps.registryRecords(orphan.repoRoot),
      // Stryker disable next-line ConditionalExpression,ArrayDeclaration: equivalent, liveIn ignores branch orphans
      orphan.kind === 'worktree' ? this.deps.liveRuns.inFolders(orphan.repoRoot, [orphan.path]) : [],
    ]);
    const refusal = orphanRefusal(orphan, [...this.deps.manager.list(), ...onDisk], live);
    if (refusal) {
      this.dropOrphan(orphan);
      this.deps.logger.info(`[Reconcile] ${orphan.branch} (${orphan.path}) is no orphan now: ${refusal.message}`);
      throw refusal;
    }
  }

  private find(key: OrphanKey): Orphan {
    const orphan = this.orphanList.find(
      (o) => (key.path !== undefined && samePathKey(o.path) === samePathKey(key.path)) || o.branch === key.branch,
    );
    if (!orphan) {
      throw new AgentError('noMatchingOrphan', { key: key.path ?? key.branch });
    }
    return orphan;
  }

  private dropOrphan(orphan: Orphan): void {
    this.orphanList = this.orphanList.filter((o) => o !== orphan);
    this.emitter.fire();
  }
}

function logDirFor(settings: ManagerSettings, repoRoot: string): string {
  return settings.logDirOf?.(repoRoot) ?? settings.logDir;
}
