/**
 * Review with Agent: a reviewer profile run headless in a finished agent's folder, given the agent's
 * task and diff (reviewerPrompt.ts), its answer read for findings (reviewFindings.ts) that become the
 * agent's pending review comments, written by the reviewer. The reviewer is read-only: the folder is
 * saved before it runs (a snapshot commit on a private ref) and any file it changed is put back;
 * a sandboxed reviewer profile runs with the folder read-only (reviewerCommand.ts).
 */
import type { AgentRecord } from '../agent';
import { isActive } from '../agent';
import { type AgentManager, resolveProfile, reviewRunId } from '../agents';
import type { Profile } from '../clis';
import { AgentError } from '../errors';
import type { ChangeGit, LandingGit, RefGit, SnapshotGit } from '../git';
import type { Sandbox } from '../sandbox';
import type { AgentRunner, ExecutableResolver, FileSystemPort, Logger, ManagerSettings } from '../ports';
import { SetupRun } from '../worktrees';
import { joinPath } from '../../util/paths';
import type { Disposable } from '../../util/event';
import { agentDiff, type FileBytes } from './hunkActions';
import { reviewerCommand } from './reviewerCommand';
import { readFindings } from './reviewFindings';
import { type FileDiff, fileDiffText, placeFindings, reviewerPrompt } from './reviewerPrompt';
import type { ReviewComments } from './reviewService';

/** The end of a reviewer's output that is read for findings. */
const outputBytes = 1024 * 1024;

export interface ReviewerDeps {
  readonly manager: Pick<AgentManager, 'get' | 'isRunning'>;
  readonly comments: Pick<ReviewComments, 'addFromReviewer'>;
  readonly git: Pick<ChangeGit, 'showFile' | 'contentTree' | 'changedBetween'> &
    Pick<SnapshotGit, 'saveWork'> &
    Pick<RefGit, 'deleteRef' | 'repoRoot'> &
    Pick<LandingGit, 'restoreFile'>;
  readonly files: Pick<FileBytes, 'read'>;
  readonly fs: Pick<FileSystemPort, 'readLogTail'>;
  readonly runner: AgentRunner;
  /** Runs a reviewer whose profile has `sandbox` sandboxed, the worktree read-only (reviewerCommand.ts). */
  readonly sandbox?: Sandbox;
  readonly resolver: ExecutableResolver;
  readonly profiles: () => readonly Profile[];
  readonly settings: () => Pick<ManagerSettings, 'logDir' | 'logDirOf'>;
  readonly logger: Logger;
}

export interface ReviewOptions {
  /** The reviewer's profile. */
  readonly profile: string;
  /** What the person asks the reviewer to look at. */
  readonly focus?: string;
}

export interface ReviewOutcome {
  readonly reviewer: string;
  /** Comments added on lines of the diff, and general ones (their place was not in it). */
  readonly onLines: number;
  readonly general: number;
  /** No finding: the reviewer said so (`nothing`), or its output held neither findings nor that (`unreadable`). */
  readonly empty?: 'nothing' | 'unreadable';
  /** The reviewer's process did not exit 0 (its findings, if any, still count). */
  readonly failed: boolean;
  /** Files the reviewer changed, put back as they were before it ran. */
  readonly restored: readonly string[];
  /** The reviewer's log (its whole output); `logOffset` is where this review's begins. */
  readonly logPath: string;
}

export class AgentReviewer implements Disposable {
  private readonly reviewing = new Set<string>();
  /** Reviewer processes running now, by agent. */
  private readonly runs = new Map<string, SetupRun>();

  constructor(private readonly deps: ReviewerDeps) {}

  isReviewing(agentId: string): boolean {
    return this.reviewing.has(agentId);
  }

  /** Runs the reviewer on the agent's diff and adds its findings as pending comments. */
  async review(agentId: string, options: ReviewOptions): Promise<ReviewOutcome> {
    const record = this.deps.manager.get(agentId);
    if (this.deps.manager.isRunning(agentId) || isActive(record.status)) {
      throw new AgentError('agentStillRunning', { title: record.title });
    }
    if (this.reviewing.has(agentId)) {
      throw new AgentError('reviewStillRunning', { title: record.title });
    }
    if (record.worktreePresent === false || record.worktreeMissing) {
      throw new AgentError('nothingToReview', { title: record.title });
    }
    this.reviewing.add(agentId);
    try {
      return await this.run(record, options);
    } finally {
      this.reviewing.delete(agentId);
    }
  }

  private async run(record: AgentRecord, options: ReviewOptions): Promise<ReviewOutcome> {
    const diffs = await this.diffs(record);
    const lineCounts = new Map(diffs.filter((d) => d.kind !== 'deleted').map((d) => [d.path, d.agent.length]));
    if (lineCounts.size === 0) {
      throw new AgentError('nothingToReview', { title: record.title });
    }
    const binary = record.changedFiles.filter((f) => f.binary).map((f) => `Binary file ${f.path} (${f.kind})`);
    const diff = [...diffs.map(fileDiffText), ...binary].join('\n');
    const prompt = reviewerPrompt({
      task: [record.prompt, ...(record.followUps ?? [])].join('\n\n'),
      diff,
      ...options,
    });
    const executable = await resolveProfile(this.deps.profiles(), options.profile, this.deps.resolver);
    const command = await reviewerCommand(this.deps.sandbox, record, executable, prompt);
    const top = await this.deps.git.repoRoot(record.cwd);
    const ref = `refs/parallel-agents/review/${record.id}`;
    const snapshot = await this.deps.git.saveWork(record.cwd, ref, 'parallel-agents: before a review');
    const settings = this.deps.settings();
    const logPath = joinPath(settings.logDirOf?.(record.repoRoot) ?? settings.logDir, `${record.id}.review.log`);
    const profile = executable.profile;
    const run = SetupRun.launch(
      this.deps.runner,
      {
        agentId: reviewRunId(record.id),
        title: `${record.title} (review by ${profile.name})`,
        ...command,
        cwd: record.cwd,
        logPath,
        banner: `──── review by ${profile.name}`,
        ...(profile.promptVia === 'stdin' ? { stdin: prompt } : {}),
      },
      (exit) =>
        exit.error ??
        // Stryker disable next-line StringLiteral,LogicalOperator: equivalent, a failed run's text is never read here
        `exit ${exit.exitCode ?? exit.signal ?? '?'}`,
      this.deps.logger,
    );
    if (typeof run === 'string') {
      await this.deps.git.deleteRef(top, ref).catch(() => undefined);
      throw new AgentError('reviewerNotStarted', { profile: profile.name, error: run });
    }
    this.runs.set(record.id, run);
    const end = await run.ended;
    // What the reviewer left running could write the folder after it is put back: it ends first.
    // Stryker disable next-line ArrowFunction: equivalent, a run left in runs is stopped; a second stop() does nothing
    await run.stop().finally(() => this.runs.delete(record.id));
    const restored = await this.putBack(record, top, snapshot.sha, ref);
    const output = await this.deps.fs.readLogTail(logPath, run.logOffset ?? 0, outputBytes);
    const answer = readFindings(output);
    const placed = placeFindings(answer.findings, lineCounts);
    if (placed.length > 0) {
      await this.deps.comments.addFromReviewer(record.id, placed, profile.name);
    }
    this.deps.logger.info(
      `[Review] ${record.id}: ${profile.name} ended (${end.outcome}), ${placed.length} finding(s), ${restored.length} file(s) put back`,
    );
    const general = placed.filter((p) => p.general).length;
    return {
      reviewer: profile.name,
      onLines: placed.length - general,
      general,
      ...(placed.length === 0 ? { empty: answer.nothingFound ? ('nothing' as const) : ('unreadable' as const) } : {}),
      failed: end.outcome !== 'succeeded',
      restored,
      logPath,
    };
  }

  /** A reviewer still running is stopped: no window would check what it did to the folder. */
  dispose(): void {
    for (const run of this.runs.values()) {
      void run.stop();
    }
    this.runs.clear();
  }

  /** Each changed text file's diff; binary files are named in the prompt without one. */
  private async diffs(record: AgentRecord): Promise<FileDiff[]> {
    const files = this.deps.files;
    const reads = {
      read: (p: string) => files.read(p),
      // Stryker disable next-line ArrowFunction: equivalent, agentDiff only reads (write is never called)
      write: () => Promise.resolve(),
    };
    const deps = { git: this.deps.git, files: reads };
    const out: FileDiff[] = [];
    for (const file of record.changedFiles.filter((f) => !f.binary)) {
      try {
        out.push({ path: file.path, kind: file.kind, ...(await agentDiff(deps, record, file)) });
      } catch (e) {
        // Not UTF-8 after all: no lines to review or comment on.
        if (!AgentError.is(e) || e.code !== 'binaryHunks') {
          throw e;
        }
      }
    }
    return out;
  }

  /**
   * Puts back every file the reviewer changed, as the snapshot has it; the snapshot's ref is
   * dropped once nothing is left to take from it (else it stays, for the work's sake).
   */
  private async putBack(record: AgentRecord, top: string, snapshot: string, ref: string): Promise<string[]> {
    const now = await this.deps.git.contentTree(record.cwd);
    const current = this.deps.manager.get(record.id);
    if (this.deps.manager.isRunning(record.id) || current.startedAt !== record.startedAt) {
      // The agent itself ran meanwhile (a follow-up): its own edits are not the reviewer's to undo.
      this.deps.logger.warn(`[Review] ${record.id}: the agent ran during the review; nothing put back (${ref} kept)`);
      return [];
    }
    const changed = await this.deps.git.changedBetween(top, snapshot, now);
    for (const path of changed) {
      await this.deps.git.restoreFile(top, snapshot, path);
    }
    if (changed.length > 0) {
      this.deps.logger.warn(`[Review] ${record.id}: the reviewer changed ${changed.join(', ')}; put back`);
    }
    await this.deps.git.deleteRef(top, ref).catch(() => undefined);
    return changed;
  }
}
