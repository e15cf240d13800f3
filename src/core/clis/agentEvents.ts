/**
 * Reads the JSON lines a headless agent CLI prints into its current step, usage, final answer and
 * permission denials: splits the output into lines, skips what is not JSON, and hands each event
 * to the reader of the CLI's format (eventReaders.ts), which writes the run's state (runState.ts).
 */
import { type EventReader, eventReader } from './eventReaders';
import type { ProfileOutput } from './profiles';
import { type AgentEventsState, type Json, RunState, obj } from './runState';

export type { AgentEventsState, AgentProgress } from './runState';
export { resultLimit } from './runState';

/** A longer line (a huge tool result) is dropped unread, so one line cannot hold unbounded memory. */
export const lineLimit = 1024 * 1024;

export class AgentEventParser {
  private buffer = '';
  private skipping = false;
  private run: RunState;
  private reader: EventReader;

  /** `cwd` makes absolute paths in steps relative to the agent's folder. */
  constructor(
    private readonly format: ProfileOutput,
    private readonly cwd = '',
  ) {
    this.run = new RunState(cwd);
    this.reader = eventReader(format);
  }

  /** Feeds a chunk of output; true when the state changed. */
  push(chunk: string): boolean {
    let changed = false;
    let text = chunk;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
      const line = this.buffer + text.slice(0, nl);
      text = text.slice(nl + 1);
      this.buffer = '';
      if (!this.skipping) {
        changed = this.line(line) || changed;
      }
      this.skipping = false;
    }
    if (!this.skipping) {
      this.buffer += text;
      if (this.buffer.length > lineLimit) {
        this.buffer = '';
        this.skipping = true;
      }
    }
    return changed;
  }

  /** The output ended: a last line without a newline still counts. */
  end(): boolean {
    const line = this.skipping ? '' : this.buffer;
    this.buffer = '';
    this.skipping = false;
    return line !== '' && this.line(line);
  }

  get state(): AgentEventsState {
    return this.run.snapshot;
  }

  private line(line: string): boolean {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) {
      return false; // banners and warnings the CLIs print around their JSON
    }
    let event: Json;
    try {
      event = obj(JSON.parse(trimmed));
    } catch {
      return false;
    }
    const before = this.run.fingerprint();
    if (this.reader.startsRun(event)) {
      // A log holds every run of an agent (first run, follow-ups): the state is that of the last one.
      this.run = new RunState(this.cwd);
      this.reader = eventReader(this.format);
    }
    this.reader.read(event, this.run);
    const after = this.run.fingerprint();
    return after.some((v, i) => v !== before[i]);
  }
}
