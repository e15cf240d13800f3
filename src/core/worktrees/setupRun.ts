/**
 * The setup command (`parallelAgents.setupCommand`): run headless in a new worktree before its
 * agent starts, its output in the agent's log. A SetupRun emits that output and resolves `ended`
 * with whether the agent may start; it never touches the agent's record. The check command
 * (core/agents/checkRuns.ts) runs through the same class, with its own request and failure text.
 */
import type { AgentRecord } from '../agent';
import { storedLine } from '../errors';
import type { AgentProcess, AgentRunner, LaunchRequest, Logger, ProcessExit } from '../ports';
import { commandText, failureTailChars } from './worktreePrep';
import { type Disposable, Emitter } from '../../util/event';
import { TailText } from '../../util/tailText';

/** Characters of the setup command's last output kept for the agent's error. */
const outputTailChars = 4096;

export type SetupEnd =
  | { readonly outcome: 'succeeded' }
  | { readonly outcome: 'stopped' }
  | { readonly outcome: 'failed'; readonly error: string; readonly exit: ProcessExit };

/** The agent's error for a command that did not succeed; `output` is the end of what it printed. */
export type FailureText = (exit: ProcessExit, output: string) => string;

export class SetupRun implements Disposable {
  /** Re-emits the process's output, listening to it only while someone listens here. */
  private readonly outputEmitter = new Emitter<string>({
    onFirstListener: () => this.listen(),
    onLastListener: () => this.listen(),
  });
  /** The output's end, kept here only for a process that does not keep it (AgentProcess.tail). */
  private readonly ownTail?: TailText;
  private subscription?: Disposable;
  private stopRequested = false;
  private disposed = false;
  readonly onDidOutput = this.outputEmitter.event;
  /** The line the agent's output shows before the command's own. */
  readonly banner: string;
  /** Resolves once, when the command has ended; never rejects. */
  readonly ended: Promise<SetupEnd>;
  /** Log position where the command's own output begins, when the runner tells. */
  readonly logOffset: number | undefined;

  private constructor(
    private readonly process: AgentProcess,
    request: LaunchRequest,
    failure: FailureText,
    logger: Logger,
  ) {
    this.banner = request.banner ?? '';
    this.logOffset = process.startOffset;
    this.ownTail = process.tail === undefined ? new TailText(outputTailChars) : undefined;
    this.listen();
    this.ended = process.exit.then((exit): SetupEnd => {
      const output = (process.tail ?? this.ownTail?.text ?? '').slice(-outputTailChars);
      if (this.stopRequested) {
        return { outcome: 'stopped' };
      }
      if (exit.exitCode === 0 && exit.error === undefined) {
        return { outcome: 'succeeded' };
      }
      logger.warn(
        `[AgentManager] ${request.agentId}: ${request.title} failed (code ${exit.exitCode ?? '-'}, signal ${exit.signal ?? '-'})`,
      );
      return { outcome: 'failed', error: failure(exit, output), exit };
    });
  }

  /** Starts the command; a command that cannot start gives the agent's error instead. */
  static start(runner: AgentRunner, record: AgentRecord, argv: readonly string[], logger: Logger): SetupRun | string {
    return SetupRun.launch(
      runner,
      setupRequest(record, argv),
      (exit, output) => setupFailure(argv, exit, output),
      logger,
    );
  }

  /** Starts any command request the same way; `failure` words its error. */
  static launch(runner: AgentRunner, request: LaunchRequest, failure: FailureText, logger: Logger): SetupRun | string {
    try {
      return new SetupRun(runner.start(request), request, failure, logger);
    } catch (e) {
      return failure({ error: (e as Error).message }, '');
    }
  }

  private listen(): void {
    const needed = !this.disposed && (this.ownTail !== undefined || this.outputEmitter.hasListeners);
    if (needed && !this.subscription) {
      this.subscription = this.process.onDidOutput((text) => {
        this.ownTail?.push(text);
        this.outputEmitter.fire(text);
      });
    } else if (!needed && this.subscription) {
      this.subscription.dispose();
      this.subscription = undefined;
    }
  }

  /** Ends the command's process tree; `ended` then resolves with 'stopped'. */
  stop(): Promise<void> {
    this.stopRequested = true;
    return this.process.stop();
  }

  /** Leaves the command running when its runner can (a later window does not adopt it); else stops it. */
  dispose(): void {
    this.disposed = true;
    this.listen();
    if (this.process.detach) {
      this.process.detach();
    } else {
      void this.process.stop();
    }
    this.outputEmitter.dispose();
  }
}

/**
 * The setup command runs under its own id, so that a later window never takes a setup run that
 * outlived its window for the agent itself (see AgentManager's adoption of 'preparing' agents).
 */
export function setupRunId(agentId: string): string {
  return `${agentId}.setup`;
}

/** The setup command run headless in the agent's worktree; its output goes to the agent's log. */
export function setupRequest(record: AgentRecord, argv: readonly string[]): LaunchRequest {
  return {
    agentId: setupRunId(record.id),
    title: `${record.title} (setup)`,
    file: argv[0],
    args: argv.slice(1),
    cwd: record.cwd,
    env: { ...record.worktreeEnv?.vars },
    logPath: record.logPath ?? '',
    banner: `──── setup: ${commandText(argv)}`,
  };
}

/** The agent's error when its setup command did not succeed; `output` is what it printed last. */
export function setupFailure(argv: readonly string[], exit: ProcessExit, output: string): string {
  const command = commandText(argv);
  const line =
    exit.error !== undefined
      ? storedLine('setupCommandNotStarted', { command, error: exit.error })
      : exit.signal !== undefined
        ? storedLine('setupCommandKilled', { command, signal: exit.signal })
        : storedLine('setupCommandFailed', {
            command,
            ...(exit.exitCode !== undefined ? { exitCode: exit.exitCode } : {}),
          });
  const tail = output.trim().slice(-failureTailChars);
  return `${line}${tail ? `\n${tail}` : ''}`;
}
