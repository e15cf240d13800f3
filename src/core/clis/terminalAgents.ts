/**
 * Terminal agents across window reloads, without VS Code: which revived terminal is an agent's
 * (the one whose process id the record kept: a revived terminal keeps its pid but loses the env
 * and options it was created with), and which closes end an agent (not those of a window shutting down).
 */
import type { ProcessExit } from '../ports';
import type { Disposable } from '../../util/event';
import type { Timers } from './agentProgress';

/** How long activation waits for VS Code to revive an agent's terminal before calling it detached. */
export const reviveWaitMs = 15_000;

export interface TerminalSource<T> {
  /** Terminals open now. */
  readonly current: () => readonly T[];
  readonly onDidOpen: (listener: (terminal: T) => void) => Disposable;
  /** The terminal's process id; undefined when it has none. */
  readonly pidOf: (terminal: T) => PromiseLike<number | undefined>;
}

/**
 * Resolves with the terminal whose process id is `pid`, among those open now and those opening
 * within `timeoutMs`; undefined when none comes, or at once when there is no pid to match.
 */
export function findTerminalByPid<T>(
  source: TerminalSource<T>,
  pid: number | undefined,
  timeoutMs: number,
  timers: Timers,
): Promise<T | undefined> {
  if (pid === undefined) {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    let done = false;
    const finish = (terminal: T | undefined) => {
      if (!done) {
        done = true;
        subscription.dispose();
        timers.clearTimeout(timer);
        resolve(terminal);
      }
    };
    const check = (terminal: T) => {
      void Promise.resolve(source.pidOf(terminal)).then(
        (p) => p === pid && finish(terminal),
        () => undefined,
      );
    };
    const subscription = source.onDidOpen(check);
    const timer = timers.setTimeout(() => finish(undefined), timeoutMs);
    source.current().forEach(check);
  });
}

export type CloseReason = 'shutdown' | 'user' | 'process' | 'extension' | 'unknown';

/**
 * What a terminal's close means for its agent: undefined when the window is shutting down (a
 * reload revives the terminal; the next window adopts it), else the agent's exit. A user closing
 * the terminal of a running agent stops it.
 */
export function closeExit(
  reason: CloseReason,
  shuttingDown: boolean,
  exitCode: number | undefined,
): ProcessExit | undefined {
  if (shuttingDown || reason === 'shutdown') {
    return undefined;
  }
  return reason === 'user' && exitCode === undefined ? { exitCode, stopRequested: true } : { exitCode };
}

/** The environment variable naming the agent in its terminal (for the agent's own hooks and for people). */
export const agentIdVariable = 'PARALLEL_AGENTS_AGENT_ID';
