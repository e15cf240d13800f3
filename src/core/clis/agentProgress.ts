/**
 * Follows the JSON events of one agent run (AgentEventParser) and reports its activity to the
 * agent record at most every few hundred milliseconds: a CLI may print hundreds of lines a second,
 * and every report refreshes the tree and saves the state.
 */
import type { AgentActivity } from '../agent';
import { AgentEventParser, type AgentEventsState } from './agentEvents';
import type { ProfileOutput } from './profiles';

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const progressIntervalMs = 250;
/** How much of the log before an adopted run's live output is read back to rebuild its progress. */
export const replayLimit = 8 * 1024 * 1024;

/** Calls `fn` at most once every `intervalMs`; a trigger inside the interval is served at its end. */
export class Throttle {
  private last = Number.NEGATIVE_INFINITY;
  private timer: unknown;

  constructor(
    private readonly fn: () => void,
    private readonly intervalMs: number,
    private readonly timers: Timers = systemTimers,
  ) {}

  trigger(): void {
    if (this.timer !== undefined) {
      return; // the pending call will see the newest state
    }
    const wait = this.last + this.intervalMs - this.timers.now();
    if (wait <= 0) {
      this.fire();
    } else {
      this.timer = this.timers.setTimeout(() => {
        this.timer = undefined;
        this.fire();
      }, wait);
    }
  }

  /** Drops a pending call. */
  dispose(): void {
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private fire(): void {
    this.last = this.timers.now();
    this.fn();
  }
}

/** The record's form of the parser's state: only what is known. */
export function activityOf(state: AgentEventsState): AgentActivity {
  return {
    ...state.progress,
    ...(state.result !== undefined ? { result: state.result } : {}),
    ...(state.denials.length > 0 ? { denials: state.denials } : {}),
    ...(state.reportedError ? { reportedError: true as const } : {}),
    ...(state.budgetReached ? { budgetReached: true as const } : {}),
  };
}

/** Reads an agent's log between positions (AgentProcess.readLogFrom). */
export type LogRead = (
  offset: number,
  end: number | undefined,
) => Promise<{ readonly text: string; readonly next: number; readonly end: number }>;

export class ProgressFeed {
  private readonly parser: AgentEventParser;
  private readonly throttle: Throttle;
  /** Live output that arrived while the log was being read back; fed after it, in order. */
  private held?: string[];
  private live = false;

  constructor(
    format: ProfileOutput,
    cwd: string,
    report: (activity: AgentActivity) => void,
    timers: Timers = systemTimers,
    intervalMs = progressIntervalMs,
  ) {
    this.parser = new AgentEventParser(format, cwd);
    this.throttle = new Throttle(() => report(this.activity), intervalMs, timers);
  }

  get activity(): AgentActivity {
    return activityOf(this.parser.state);
  }

  /** True once live output arrived. */
  get sawOutput(): boolean {
    return this.live;
  }

  push(text: string): void {
    this.live = true;
    if (this.held) {
      this.held.push(text);
    } else if (this.parser.push(text)) {
      this.throttle.trigger();
    }
  }

  /**
   * Feeds what the log holds before `to` (undefined: its end), at most replayLimit and from no
   * earlier than `from`: what an adopted run printed before this window followed it. The parser
   * keeps the state of the last run it saw, so reading back earlier runs of the agent is harmless.
   */
  async replay(read: LogRead, to: number | undefined, from = 0): Promise<void> {
    this.held = [];
    let changed = false;
    try {
      const end = to ?? (await read(from, from)).end;
      for (let offset = Math.max(from, end - replayLimit); offset < end; ) {
        const slice = await read(offset, end);
        if (slice.text === '' || slice.next <= offset) {
          break;
        }
        changed = this.parser.push(slice.text) || changed;
        offset = slice.next;
      }
    } finally {
      const held = this.held;
      this.held = undefined;
      held.forEach((text) => {
        changed = this.parser.push(text) || changed;
      });
      if (changed) {
        this.throttle.trigger();
      }
    }
  }

  /** The run ended: its final activity, for the caller to record with the end (a pending report is dropped). */
  finish(): AgentActivity {
    this.parser.end();
    this.throttle.dispose();
    return this.activity;
  }

  dispose(): void {
    this.throttle.dispose();
  }
}
