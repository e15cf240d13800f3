/**
 * Starting one git process: `spawn(binary, argv)`, never a shell, with a minimal environment;
 * stdout collected (capped) or streamed to a callback; cancellation through an AbortSignal.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { AgentError } from '../../core/errors';
import { GitProcessError } from './errors';

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

/** Collected output beyond this is a runaway process, not an answer. */
const maxCollectedOutput = 64 * 1024 * 1024;

async function spawnFailure(error: NodeJS.ErrnoException, cwd: string): Promise<GitProcessError> {
  // Node reports a missing cwd exactly like a missing binary ("spawn git ENOENT").
  const cwdExists = await stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!cwdExists) {
    return new GitProcessError(128, `fatal: not a git repository: ${cwd} does not exist`);
  }
  return new GitProcessError(typeof error.errno === 'number' && error.errno < 0 ? error.errno : -1, error.message);
}

/**
 * Runs `binary args` in `cwd` once. Resolves with exit code and output when the code is in
 * `okCodes`; rejects with a GitProcessError otherwise (stderr, or stdout when stderr is empty).
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
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, {
      cwd,
      env: { ...env, ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    if (options.lowPriority) {
      lowerPriority(child.pid);
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxCollectedOutput) {
        child.kill();
        return;
      }
      into.push(chunk);
    };
    const onStdout = options.onStdout;
    child.stdout?.on('data', onStdout ?? collect(stdout));
    child.stderr?.on('data', collect(stderr));
    const abort = () => child.kill();
    options.signal?.addEventListener('abort', abort, { once: true });
    const settle = (finish: () => void) => {
      if (!settled) {
        settled = true;
        options.signal?.removeEventListener('abort', abort);
        finish();
      }
    };
    child.on('error', (error) => settle(() => void spawnFailure(error, cwd).then(reject)));
    child.on('close', (code, signal) =>
      settle(() => {
        const out = Buffer.concat(stdout);
        const err = Buffer.concat(stderr).toString('utf8');
        if (options.signal?.aborted) {
          reject(new AgentError('cancelled', {}));
        } else if (size > maxCollectedOutput) {
          reject(new GitProcessError(-1, `git ${args[0]} wrote more than ${maxCollectedOutput} bytes; stopped`));
        } else if (code === null) {
          reject(new GitProcessError(-1, `git ${args[0]} was ended by ${signal ?? 'a signal'}`));
        } else if (options.okCodes !== 'any' && !(options.okCodes ?? [0]).includes(code)) {
          reject(new GitProcessError(code, err.trim() ? err : out.toString('utf8')));
        } else {
          resolve({ exitCode: code, stdout: out, stderr: err });
        }
      }),
    );
    if (options.input !== undefined && child.stdin) {
      // A git that exits before reading everything closes the pipe: its exit code tells why.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** Gives a child process the lowest priority (nice 19); a process already gone or a refusal is ignored. */
export function lowerPriority(pid: number | undefined): void {
  if (pid !== undefined) {
    try {
      setPriority(pid, 19);
    } catch {
      // Not allowed here, or already ended: it runs at normal priority.
    }
  }
}
