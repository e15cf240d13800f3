/**
 * One run of one agent: its process, followed from start (or adoption by a later window) to its
 * end. A Run emits what happens — output, progress, the terminal's pid and input state — and
 * resolves `ended` with how the run ended; it never touches the agent's record. AgentRuns listens
 * and writes the record.
 */
import type { AgentActivity, AgentStatus } from '../agent';
import { ProgressFeed, type ProfileOutput, type QuotaSignal, type Timers, detectQuotaStop } from '../clis';
import { isDiskFull, storedLine } from '../errors';
import type { AgentProcess, Clock, Logger, ProcessExit } from '../ports';
import type { InputState } from './inputState';
import { type Disposable, Emitter } from '../../util/event';
import { TailText } from '../../util/tailText';

/** Characters of a run's last output kept to tell why it failed (a full disk). */
const outputTailChars = 4096;

export interface RunOptions {
  readonly agentId: string;
  readonly cwd: string;
  /** When the run started (an adopted run's record says); the timeout counts from it. */
  readonly startedAt: number;
  /** The CLI's JSON event format, when it prints one: the run then reports progress. */
  readonly output?: ProfileOutput;
  /** Followed from an earlier window: the progress so far is read back from the log. */
  readonly adopted: boolean;
  /** Stops the run after this long; 0: never. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Paces progress reports; tests pass a fake clock. */
  readonly timers?: Timers;
}

/** How a run ended: the fields of the agent's record it sets. */
export interface RunEnd {
  readonly status: AgentStatus;
  readonly exitCode?: number;
  readonly signal?: string;
  readonly error?: string;
  readonly errorReason?: 'diskFull';
  /** The progress at the end; absent when the CLI prints no events. */
  readonly activity?: AgentActivity;
  /** Set with status `paused`: the run failed on a rate or usage limit (core/clis/quotaSignals.ts). */
  readonly quota?: QuotaSignal;
}

export class Run implements Disposable {
  /** Re-emits the process's output, listening to it only while someone listens here. */
  private readonly outputEmitter = new Emitter<string>({
    onFirstListener: () => this.listen(),
    onLastListener: () => this.listen(),
  });
  private readonly progressEmitter = new Emitter<AgentActivity>();
  private readonly pidEmitter = new Emitter<number>();
  private readonly inputEmitter = new Emitter<InputState>();
  private readonly feed?: ProgressFeed;
  /** The output's end, kept here only for a process that does not keep it (AgentProcess.tail). */
  private readonly ownTail?: TailText;
  private subscription?: Disposable;
  private stopRequested = false;
  private timedOut = false;
  private detached = false;

  /** The process's output; listening to it makes the runner read and decode all of it. */
  readonly onDidOutput = this.outputEmitter.event;
  readonly onDidProgress = this.progressEmitter.event;
  /** A terminal's process id, once known: the terminal is found again by it after a reload. */
  readonly onDidFindTerminal = this.pidEmitter.event;
  readonly onDidChangeInput = this.inputEmitter.event;
  /** Resolves once, when the process has ended; never rejects. */
  readonly ended: Promise<RunEnd>;

  constructor(
    private readonly process: AgentProcess,
    private readonly options: RunOptions,
  ) {
    this.feed = options.output
      ? new ProgressFeed(options.output, options.cwd, (a) => this.progressEmitter.fire(a), options.timers)
      : undefined;
    const replayed = options.adopted ? this.replay(process.startOffset) : Promise.resolve();
    this.ownTail = process.tail === undefined ? new TailText(outputTailChars) : undefined;
    this.listen();
    void process.whenPid?.then((pid) => {
      if (pid !== undefined && !this.detached) {
        this.pidEmitter.fire(pid);
      }
    });
    process.onDidChangeInput?.((state) => {
      if (!this.detached) {
        this.inputEmitter.fire(state);
      }
    });
    const timer = this.startTimeout();
    this.ended = process.exit.then(async (exit) => {
      clearTimeout(timer);
      await replayed;
      // An adopted run that had ended before this window came showed no live output: all of it is in the log.
      if (options.adopted && this.feed && !this.feed.sawOutput && process.startOffset !== undefined) {
        await this.replay(undefined, process.startOffset);
      }
      return this.end(exit, (process.tail ?? this.ownTail?.text ?? '').slice(-outputTailChars));
    });
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  /** Listens to the process's output only while it is needed: events to parse, a tail to keep, listeners. */
  private listen(): void {
    const needed =
      !this.detached && (this.feed !== undefined || this.ownTail !== undefined || this.outputEmitter.hasListeners);
    if (needed && !this.subscription) {
      this.subscription = this.process.onDidOutput((text) => {
        this.ownTail?.push(text);
        this.outputEmitter.fire(text);
        this.feed?.push(text);
      });
    } else if (!needed && this.subscription) {
      this.subscription.dispose();
      this.subscription = undefined;
    }
  }

  /** Ends the run's process tree; `ended` then resolves with status 'stopped'. */
  stop(): Promise<void> {
    this.stopRequested = true;
    return this.process.stop();
  }

  /**
   * Stops following the run and leaves its process running for the next window to adopt; a process
   * that cannot be left running is stopped.
   */
  dispose(): void {
    this.detached = true;
    this.listen();
    this.feed?.dispose();
    if (this.process.detach) {
      this.process.detach();
    } else {
      void this.process.stop();
    }
    this.outputEmitter.dispose();
    this.progressEmitter.dispose();
    this.pidEmitter.dispose();
    this.inputEmitter.dispose();
  }

  private startTimeout(): ReturnType<typeof setTimeout> | undefined {
    const limit = this.options.timeoutMs;
    if (limit <= 0) {
      return undefined;
    }
    const left = limit - (this.options.clock.now() - this.options.startedAt);
    return setTimeout(
      () => {
        this.timedOut = true;
        this.options.logger.warn(
          `[AgentManager] ${this.options.agentId} ran longer than ${Math.round(limit / 60000)} min: stopping it`,
        );
        void this.process.stop();
      },
      Math.max(left, 0),
    );
  }

  private end(exit: ProcessExit, tail: string): RunEnd {
    const activity = this.feed?.finish();
    const status = this.endStatus(exit, activity);
    this.options.logger.info(
      `[AgentManager] ${this.options.agentId} ended: ${status} (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`,
    );
    const full = status === 'failed' && exit.error === undefined && isDiskFull(tail);
    // A failure whose output says the provider's limit was hit: paused, to resume when it resets.
    const quota =
      status === 'failed' && !full && exit.error === undefined
        ? detectQuotaStop(`${tail}\n${activity?.result ?? ''}`, this.options.clock.now())
        : undefined;
    if (quota) {
      this.options.logger.info(`[AgentManager] ${this.options.agentId} hit a limit: ${quota.message}`);
      return {
        status: 'paused',
        exitCode: exit.exitCode,
        signal: exit.signal,
        quota,
        ...(activity ? { activity } : {}),
      };
    }
    const reported = status === 'failed' && activity?.reportedError ? activity.result : undefined;
    return {
      status,
      exitCode: exit.exitCode,
      signal: exit.signal,
      // The error of a run that failed because the disk filled up under it.
      error: full ? storedLine('agentDiskFull', { cwd: this.options.cwd }) : (exit.error ?? reported),
      errorReason: full ? 'diskFull' : undefined,
      ...(activity ? { activity } : {}),
    };
  }

  /**
   * A clean exit whose CLI reports denied tools did not do all it was asked: it needs permission,
   * not a review as a success; one whose CLI reports an error failed (its result text becomes the error).
   */
  private endStatus(exit: ProcessExit, activity: AgentActivity | undefined): AgentStatus {
    if (exit.detached) {
      return 'detached';
    }
    if (this.timedOut) {
      return 'timed-out';
    }
    if (this.stopRequested || exit.stopRequested) {
      return 'stopped';
    }
    if (exit.exitCode !== 0 || exit.error || activity?.reportedError) {
      return 'failed';
    }
    return (activity?.denials?.length ?? 0) > 0 ? 'needs-permission' : 'succeeded';
  }

  /**
   * Rebuilds an adopted run's progress from its log; live output waits meanwhile. A log that cannot
   * be read leaves the saved progress.
   */
  private async replay(to: number | undefined, from?: number): Promise<void> {
    const read = this.process.readLogFrom?.bind(this.process);
    if (!this.feed || !read || (to !== undefined && to <= 0)) {
      return;
    }
    await this.feed
      .replay((offset, end) => read(offset, { end }), to, from)
      .catch((e: Error) =>
        this.options.logger.warn(`[AgentManager] ${this.options.agentId}: reading back its log failed: ${e.message}`),
      );
  }
}
