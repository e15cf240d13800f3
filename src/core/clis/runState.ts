/**
 * What the JSON events of one run of an agent CLI have told so far: its step, usage, final answer,
 * denied tools and whether the CLI reported a failure. The readers of each CLI's events
 * (eventReaders.ts) write it through these methods; AgentEventParser hands out snapshots.
 */
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
  /** The CLI's own final report says the run failed (claude's result `is_error`, copilot's exitCode). */
  readonly reportedError: boolean;
  /** The CLI ended the run itself at the budget it was given (claude's `error_max_budget_usd`). */
  readonly budgetReached?: boolean;
}

export const resultLimit = 4096;
const stepLimit = 120;

export type Json = Record<string, unknown>;

/** A step as a row shows it: one line of whitespace collapsed, at most stepLimit characters. */
export function stepLine(text: string): string {
  const step = text.replace(/\s+/g, ' ').trim();
  return step.length > stepLimit ? `${step.slice(0, stepLimit - 1)}…` : step;
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
export const obj = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Adds a count to a total that may not exist yet; an absent count leaves the total as it is. */
export const add = (total: number | undefined, n: number | undefined): number | undefined =>
  n === undefined ? total : (total ?? 0) + n;

/** Input keys that say what a tool call does: its file, command, pattern or address. */
const mainKeys = [
  'file_path',
  'filePath',
  'path',
  'notebook_path',
  'command',
  'pattern',
  'url',
  'query',
  'description',
  'dir_path',
];

export class RunState {
  progress: { -readonly [K in keyof AgentProgress]: AgentProgress[K] } = {};
  result?: string;
  /** An answer streamed in pieces (Gemini); the result, when there is none. */
  answer = '';
  denials: string[] = [];
  reportedError = false;
  budgetReached = false;

  /** `cwd` makes absolute paths in steps relative to the agent's folder. */
  constructor(private readonly cwd: string) {}

  get snapshot(): AgentEventsState {
    const result = this.result ?? (this.answer.trim() !== '' ? this.answer.trim().slice(0, resultLimit) : undefined);
    const progress = Object.fromEntries(
      Object.entries(this.progress).filter(([, v]) => v !== undefined),
    ) as AgentProgress;
    const { reportedError, budgetReached } = this;
    return { progress, result, denials: [...this.denials], reportedError, ...(budgetReached ? { budgetReached } : {}) };
  }

  /** What the state is made of, compared per line instead of serialising the state twice. */
  fingerprint(): unknown[] {
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
      this.budgetReached,
    ];
  }

  usage(input: number | undefined, output: number | undefined, turns: number | undefined): void {
    this.progress.inputTokens = input ?? this.progress.inputTokens;
    this.progress.outputTokens = output ?? this.progress.outputTokens;
    this.progress.turns = turns ?? this.progress.turns;
  }

  /** One model turn ended: its tokens are added to the totals (absent counts leave them) and the turn counted. */
  addTurn(input: number | undefined, output: number | undefined): void {
    const { inputTokens, outputTokens, turns } = this.progress;
    this.usage(add(inputTokens, input), add(outputTokens, output), (turns ?? 0) + 1);
  }

  setResult(text: string | undefined): void {
    if (text !== undefined && text.trim() !== '') {
      this.result = text.trim().slice(0, resultLimit);
    }
  }

  step(tool: string | undefined, input: Json): void {
    if (tool !== undefined) {
      this.setStep(tool, this.mainArgument(input));
    }
  }

  deny(tool: string | undefined, input: Json): void {
    if (tool !== undefined) {
      this.denials.push(`${tool} ${this.mainArgument(input)}`.trim());
    }
  }

  setStep(verb: string, argument: string): void {
    this.progress.step = stepLine(`${verb} ${argument}`);
  }

  relative(p: string): string {
    const base = this.cwd.replace(/\/+$/, '');
    return base !== '' && p.startsWith(`${base}/`) ? p.slice(base.length + 1) : p;
  }

  private mainArgument(input: Json): string {
    return this.relative(mainKeys.map((k) => str(input[k])).find((v) => v !== undefined) ?? '');
  }
}
