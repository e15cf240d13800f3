/**
 * Starting one git process: `spawn(binary, argv)`, never a shell, with a minimal environment;
 * stdout collected (capped) or streamed to a callback; cancellation through an AbortSignal. The
 * spawn itself happens in directSpawn.ts or, once enabled, in the git spawn worker (workerSpawner.ts).
 */
import { AgentError } from '../../core/errors';
import { spawnDirect } from './directSpawn';
import { gitSpawnWorker } from './gitSpawnWorker';
import { spawnThroughWorker } from './workerSpawner';

export { lowerPriority } from './childOutput';

// Names compared upper-case, so Windows' "Path" and "SystemRoot" pass too.
const inherited = new Set([
  'PATH',
  'HOME',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'TMPDIR',
  'XDG_CONFIG_HOME',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'USER',
  'USERNAME',
  'LOGNAME',
  'LANG',
  'LC_CTYPE',
]);

/**
 * The environment of every git process: what git needs to find itself, its config and a temp
 * folder. No GIT_* variable of the host leaks in (VS Code sets several). GIT_OPTIONAL_LOCKS=0
 * applies to all commands: it only stops the optional index refresh of reads, never a write's lock.
 * LC_MESSAGES=C: errors.ts and locks.ts read git's messages.
 */
export function gitEnvironment(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined && inherited.has(key.toUpperCase())) {
      env[key] = value;
    }
  }
  env.LC_MESSAGES = 'C';
  env.GIT_OPTIONAL_LOCKS = '0';
  return env;
}

export interface GitExecOptions {
  /** Written to the process's stdin, which is then closed. */
  readonly input?: string;
  /** Added to the environment for this process only (e.g. GIT_INDEX_FILE). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers rather than failures (merge-tree's 1 = conflicts); 'any': all are. Default [0]. */
  readonly okCodes?: readonly number[] | 'any';
  /** Ends the process when aborted; the call then rejects with AgentError 'cancelled'. */
  readonly signal?: AbortSignal;
  /** Streams stdout here instead of collecting it (large results); the result's stdout is then empty. */
  readonly onStdout?: (chunk: Buffer) => void;
  /** Runs the process at the lowest CPU priority (and so, on Linux, the lowest I/O priority of its class). */
  readonly lowPriority?: boolean;
}

export interface GitExecResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A result whose stdout is kept as bytes (file contents). */
export interface GitRawResult {
  readonly exitCode: number;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/**
 * Runs `binary args` in `cwd` once. Resolves with exit code and output when the code is in
 * `okCodes`; rejects with a GitProcessError otherwise (stderr, or stdout when stderr is empty).
 * Every git process of the extension starts here: from the git spawn worker once it is enabled
 * (useGitSpawnWorker), so that the calling thread is not held while the child execs; else directly.
 */
export function spawnGit(
  binary: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
  args: readonly string[],
  options: GitExecOptions = {},
): Promise<GitRawResult> {
  if (options.signal?.aborted) {
    return Promise.reject(new AgentError('cancelled', {}));
  }
  const worker = gitSpawnWorker();
  return worker
    ? spawnThroughWorker(worker, binary, env, cwd, args, options)
    : spawnDirect(binary, env, cwd, args, options);
}
