/**
 * Reads the JSON lines a headless agent CLI prints (claude --output-format stream-json, codex exec
 * --json, gemini --output-format stream-json) into its current step, usage, final answer and
 * permission denials. Formats are those of the real CLIs, recorded in test/fixtures/agentOutput.
 */
import { ownOutput, readOwnEvent, startsOwnRun } from './ownEvents';
import type { ProfileOutput } from './profiles';

export interface AgentProgress {
  /** The last tool the agent used and its main argument, e.g. "Write notes/hello.txt". */
  readonly step?: string;
  readonly turns?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly costUsd?: number;
}

export interface AgentEventsState {
  readonly progress: AgentProgress;
  /** The agent's final answer, capped at resultLimit characters. */
  readonly result?: string;
  /** Tools the CLI refused to run, each with its main argument. */
  readonly denials: readonly string[];
  /** The CLI's own final report says the run failed (claude's result `is_error`). */
  readonly reportedError: boolean;
}

export const resultLimit = 4096;
/** A longer line (a huge tool result) is dropped unread, so one line cannot hold unbounded memory. */
export const lineLimit = 1024 * 1024;
const stepLimit = 120;

type Json = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** The first event each CLI prints for a run. */
function startsRun(format: ProfileOutput, event: Json): boolean {
  switch (format) {
    case 'claude-stream-json':
      return event.type === 'system' && event.subtype === 'init';
    case 'codex-json':
      return event.type === 'thread.started';
    case 'gemini-stream-json':
      return event.type === 'init';
    case ownOutput:
      return startsOwnRun(event);
  }
}

export class AgentEventParser {
  private buffer = '';
  private skipping = false;
  private progress: { -readonly [K in keyof AgentProgress]: AgentProgress[K] } = {};
  private result?: string;
  /** Gemini streams its answer in pieces; a tool call starts a new answer. */
  private answer = '';
  private denials: string[] = [];
  private reportedError = false;

  /** `cwd` makes absolute paths in steps relative to the agent's folder. */
  constructor(
    private readonly format: ProfileOutput,
    private readonly cwd = '',
  ) {}

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
    const result = this.result ?? (this.answer.trim() !== '' ? this.answer.trim().slice(0, resultLimit) : undefined);
    const progress = Object.fromEntries(
      Object.entries(this.progress).filter(([, v]) => v !== undefined),
    ) as AgentProgress;
    return { progress, result, denials: [...this.denials], reportedError: this.reportedError };
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
    const before = this.fingerprint();
    if (startsRun(this.format, event)) {
      this.reset();
    }
    if (this.format === 'claude-stream-json') {
      this.claude(event);
    } else if (this.format === 'codex-json') {
      this.codex(event);
    } else if (this.format === ownOutput) {
      this.own(event);
    } else {
      this.gemini(event);
    }
    const after = this.fingerprint();
    return after.some((v, i) => v !== before[i]);
  }

  /** What the state is made of, compared per line instead of serialising the state twice. */
  private fingerprint(): unknown[] {
    const p = this.progress;
    return [
      p.step,
      p.turns,
      p.inputTokens,
      p.outputTokens,
      p.costUsd,
      this.result,
      this.answer,
      this.denials.join('\n'),
      this.reportedError,
    ];
  }

  /** A log holds every run of an agent (first run, follow-ups): the state is that of the last one. */
  private reset(): void {
    this.progress = {};
    this.result = undefined;
    this.answer = '';
    this.denials = [];
    this.reportedError = false;
  }

  private claude(event: Json): void {
    if (event.type === 'assistant') {
      for (const block of list(obj(event.message).content).map(obj)) {
        if (block.type === 'tool_use') {
          this.step(str(block.name), obj(block.input));
        }
      }
    } else if (event.type === 'system' && event.subtype === 'permission_denied') {
      this.deny(str(event.tool_name), {});
    } else if (event.type === 'result') {
      const usage = obj(event.usage);
      this.usage(num(usage.input_tokens), num(usage.output_tokens), num(event.num_turns));
      this.progress.costUsd = num(event.total_cost_usd) ?? this.progress.costUsd;
      this.setResult(str(event.result));
      // The result lists every denial with its input: it replaces the bare announcements.
      const denied = list(event.permission_denials).map(obj);
      if (denied.length > 0) {
        this.denials = [];
        denied.forEach((d) => this.deny(str(d.tool_name), obj(d.tool_input)));
      }
      this.reportedError = event.is_error === true;
    }
  }

  private codex(event: Json): void {
    const item = obj(event.item);
    if ((event.type === 'item.started' || event.type === 'item.completed') && item.type === 'file_change') {
      const changes = list(item.changes).map(obj);
      const verb = changes.every((c) => c.kind === 'add')
        ? 'Add'
        : changes.every((c) => c.kind === 'delete')
          ? 'Delete'
          : 'Edit';
      this.setStep(verb, changes.map((c) => this.relative(str(c.path) ?? '')).join(', '));
    } else if (event.type === 'item.started' && item.type === 'command_execution') {
      this.setStep('Run', str(item.command) ?? '');
    } else if (event.type === 'item.started' && item.type === 'mcp_tool_call') {
      this.setStep(str(item.tool) ?? 'Tool', '');
    } else if (event.type === 'item.started' && item.type === 'web_search') {
      this.setStep('Search', str(item.query) ?? '');
    } else if (event.type === 'item.completed' && item.type === 'agent_message') {
      this.setResult(str(item.text));
    } else if (event.type === 'turn.completed') {
      const usage = obj(event.usage);
      const add = (a: number | undefined, b: number | undefined) => (b === undefined ? a : (a ?? 0) + b);
      this.usage(
        add(this.progress.inputTokens, num(usage.input_tokens)),
        add(this.progress.outputTokens, num(usage.output_tokens)),
        (this.progress.turns ?? 0) + 1,
      );
    }
  }

  private gemini(event: Json): void {
    if (event.type === 'tool_use') {
      this.step(str(event.tool_name), obj(event.parameters));
      this.answer = '';
    } else if (event.type === 'message' && event.role === 'assistant') {
      const content = str(event.content) ?? '';
      this.answer = event.delta === true ? `${this.answer}${content}`.slice(0, resultLimit * 2) : content;
    } else if (event.type === 'result') {
      const stats = obj(event.stats);
      this.usage(num(stats.input_tokens), num(stats.output_tokens), undefined);
    }
  }

  private own(event: Json): void {
    const { step, result, isError, ...usage } = readOwnEvent(event);
    Object.assign(this.progress, usage, step !== undefined ? { step } : {});
    this.setResult(result);
    this.reportedError = isError ?? this.reportedError;
  }

  private usage(input: number | undefined, output: number | undefined, turns: number | undefined): void {
    this.progress.inputTokens = input ?? this.progress.inputTokens;
    this.progress.outputTokens = output ?? this.progress.outputTokens;
    this.progress.turns = turns ?? this.progress.turns;
  }

  private setResult(text: string | undefined): void {
    if (text !== undefined && text.trim() !== '') {
      this.result = text.trim().slice(0, resultLimit);
    }
  }

  private step(tool: string | undefined, input: Json): void {
    if (tool !== undefined) {
      this.setStep(tool, this.mainArgument(input));
    }
  }

  private deny(tool: string | undefined, input: Json): void {
    if (tool !== undefined) {
      this.denials.push(`${tool} ${this.mainArgument(input)}`.trim());
    }
  }

  private setStep(verb: string, argument: string): void {
    const step = `${verb} ${argument.replace(/\s+/g, ' ')}`.trim();
    this.progress.step = step.length > stepLimit ? `${step.slice(0, stepLimit - 1)}…` : step;
  }

  /** The argument that says what a tool call does: its file, command, pattern or address. */
  private mainArgument(input: Json): string {
    const value =
      ['file_path', 'path', 'notebook_path', 'command', 'pattern', 'url', 'query', 'description', 'dir_path']
        .map((k) => str(input[k]))
        .find((v) => v !== undefined) ?? '';
    return this.relative(value);
  }

  private relative(p: string): string {
    const base = this.cwd.replace(/\/+$/, '');
    return base !== '' && p.startsWith(`${base}/`) ? p.slice(base.length + 1) : p;
  }
}
