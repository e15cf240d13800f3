/**
 * The messages between the host thread and the git spawn worker (spawnWorker.ts). Types only: the
 * worker's bundle imports nothing of the project at run time.
 */

/** One git process to start: what spawnGit was given, the environment already merged. */
export interface SpawnRequest {
  readonly type: 'spawn';
  readonly id: number;
  readonly binary: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string;
  /** stdout goes back chunk by chunk (onStdout) instead of collected. */
  readonly stream: boolean;
  readonly lowPriority: boolean;
  /** Collected output (stdout unless streamed, and stderr) beyond this kills the process. */
  readonly cap: number;
}

export type ToWorker = SpawnRequest | { readonly type: 'kill'; readonly id: number };

export type FromWorker =
  /** The child exists: if the worker dies now, the child may still be running. */
  | { readonly type: 'pid'; readonly id: number; readonly pid: number }
  /** A streamed chunk; its buffer is transferred, not copied. */
  | { readonly type: 'stdout'; readonly id: number; readonly chunk: ArrayBuffer }
  | {
      readonly type: 'close';
      readonly id: number;
      readonly code: number | null;
      readonly signal: string | null;
      /** Collected stdout, transferred; undefined when empty or streamed. */
      readonly stdout?: ArrayBuffer;
      readonly stderr: string;
      readonly overCap: boolean;
    }
  /** The child's 'error' event (a failed spawn: missing binary or cwd). */
  | { readonly type: 'error'; readonly id: number; readonly message: string; readonly errno?: number }
  /** spawn() threw (bad arguments): the host spawns directly, which throws the same error there. */
  | { readonly type: 'refused'; readonly id: number };
