/**
 * Starting one git process on the calling thread (`spawn(binary, argv)`, never a shell), and what
 * every start shares, directly or through the spawn worker: judging how a process ended.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { AgentError } from '../../core/errors';
import { CappedOutput, feedInput, lowerPriority } from './childOutput';
import { GitProcessError } from './errors';
import type { GitExecOptions, GitRawResult } from './process';

/** Collected output beyond this is a runaway process, not an answer. */
export const maxCollectedOutput = 64 * 1024 * 1024;

/** How a git process ended, however it was started: finishGit reads it into a result or an error. */
export interface GitProcessEnd {
  readonly code: number | null;
  readonly signal: string | null;
  /** Collected stdout; empty when it was streamed to onStdout. */
  readonly stdout: Buffer;
  readonly stderr: string;
  /** It wrote more than the cap and was killed. */
  readonly overCap: boolean;
}

export async function spawnFailure(
  error: Pick<NodeJS.ErrnoException, 'errno' | 'message'>,
  cwd: string,
): Promise<GitProcessError> {
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
 * The result of a process that ended as `end` says when its code is in `okCodes`; else the
 * error: cancelled, over the cap, ended by a signal, or a GitProcessError (stderr, else stdout).
 */
export function finishGit(
  end: GitProcessEnd,
  args: readonly string[],
  options: GitExecOptions,
  cap = maxCollectedOutput,
): GitRawResult {
  if (options.signal?.aborted) {
    throw new AgentError('cancelled', {});
  }
  if (end.overCap) {
    throw new GitProcessError(-1, `git ${args[0]} wrote more than ${cap} bytes; stopped`);
  }
  if (end.code === null) {
    throw new GitProcessError(-1, `git ${args[0]} was ended by ${end.signal ?? 'a signal'}`);
  }
  if (options.okCodes !== 'any' && !(options.okCodes ?? [0]).includes(end.code)) {
    throw new GitProcessError(end.code, end.stderr.trim() ? end.stderr : end.stdout.toString('utf8'));
  }
  return { exitCode: end.code, stdout: end.stdout, stderr: end.stderr };
}

/** Runs `binary args` in `cwd` once, spawned from this thread (see spawnGit). */
export function spawnDirect(
  binary: string,
  env: Readonly<Record<string, string>>,
  cwd: string,
  args: readonly string[],
  options: GitExecOptions = {},
  cap = maxCollectedOutput,
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
    const output = new CappedOutput(child, cap);
    let settled = false;
    child.stdout?.on('data', options.onStdout ?? output.collect(output.stdout));
    child.stderr?.on('data', output.collect(output.stderr));
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
        const end = {
          code,
          signal,
          stdout: Buffer.concat(output.stdout),
          stderr: output.stderrText,
          overCap: output.overCap,
        };
        try {
          resolve(finishGit(end, args, options, cap));
        } catch (e) {
          reject(e);
        }
      }),
    );
    feedInput(child, options.input);
  });
}
