/** The process ports of core: how agents and commands start, are followed and end; node/ and host/ implement them. */
import type { Event } from '../util/event';
import type { InputState } from './agents';
import type { SandboxLaunch } from './sandbox';

export interface LaunchRequest {
  readonly agentId: string;
  readonly title: string;
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Headless runners write all output here. */
  readonly logPath: string;
  /** A line written to the log (and output) before the agent's own output, e.g. a follow-up's prompt. */
  readonly banner?: string;
  /**
   * Written to the agent's standard input, which is then closed (a profile with `promptVia: "stdin"`);
   * without it the input is empty. Headless runners only.
   */
  readonly stdin?: string;
  /** A sandboxed command's outside part (its private folder, the filtering proxy): headless runners only. */
  readonly sandbox?: SandboxLaunch;
}

export interface ProcessExit {
  readonly exitCode?: number;
  readonly signal?: string;
  /** Set when the process could not be started at all. */
  readonly error?: string;
  /** Stop was asked for, possibly by an earlier window (supervised runs remember it). */
  readonly stopRequested?: boolean;
  /** An adopted terminal agent whose terminal did not come back: its process may still run, unseen. */
  readonly detached?: boolean;
}

export interface AgentProcess {
  readonly pid?: number;
  /** For runners that learn the pid later (a terminal's process id): resolves with it, once. */
  readonly whenPid?: Promise<number | undefined>;
  /** Whether the runner can tell when the agent waits for input ('waiting-for-input'); fired on each change. */
  readonly onDidChangeInput?: Event<InputState>;
  /**
   * Its output as it comes. A runner may read output only while someone listens, so listen only
   * when the text is needed (a parser, a view), not to learn that output came or how it ended.
   */
  readonly onDidOutput: Event<string>;
  /**
   * Runners that keep a log: the end of the output, set before `exit` resolves, so that nobody has
   * to listen to all of it for a failure message. Defined (empty) from the start when supported.
   */
  readonly tail?: string;
  /** Resolves once, when the process (tree) has ended; never rejects. */
  readonly exit: Promise<ProcessExit>;
  /** Ends the whole process tree: a polite signal first, then a forced kill. */
  stop(): Promise<void>;
  /** Stops watching and leaves the agent running, to be adopted by the next window. */
  detach?(): void;
  /** Log position where onDidOutput begins (what came before is in the log only). */
  readonly startOffset?: number;
  /** Reads the log between positions; an adopted run's progress is rebuilt from it. */
  readLogFrom?(
    offset: number,
    options?: { readonly end?: number },
  ): Promise<{ readonly text: string; readonly next: number; readonly end: number }>;
}

/** Where a run was started: its folder (whose repository keeps its state) and a terminal's pid. */
export interface RunLocation {
  readonly cwd?: string;
  readonly terminalPid?: number;
}

export interface AgentRunner {
  start(request: LaunchRequest): AgentProcess;
  /** Re-attaches to an agent an earlier window started, if it can; a terminal is matched by `where.terminalPid`. */
  adopt?(agentId: string, where?: RunLocation): AgentProcess | undefined;
  /** Drops what the runner keeps about a finished agent. */
  forget?(agentId: string, where?: RunLocation): void;
  /**
   * Ends what a run that has ended left running in its process tree (a server its agent started);
   * a run still going is left alone. Resolves once nothing of it is left, at once when nothing was.
   */
  endLeftovers?(agentId: string, where?: RunLocation): Promise<void>;
  /** Readies the process of a run about to start in `cwd` (while its folder is made); start() takes it. */
  prepare?(agentId: string, cwd: string): void;
  /** Lets go of what prepare() readied when start() will not come. */
  release?(agentId: string): void;
}

/** A live process working in a folder: an agent's (its supervisor says) or any whose current folder is there. */
export interface LiveProcess {
  readonly pid: number;
  /** Its working folder: one of the folders asked about, or a folder inside one. */
  readonly cwd: string;
}

/** Finds live processes working in folders; a source it cannot read (permissions, another OS) is skipped. */
export interface LiveRuns {
  /** Live processes working in one of `folders` or inside one: the repository's runs and, where the OS tells, any. */
  inFolders(repoRoot: string, folders: readonly string[]): Promise<readonly LiveProcess[]>;
}
