/**
 * spawnGit through the git spawn worker (gitSpawnWorker.ts), with the semantics of a direct spawn;
 * a call whose worker stopped runs again directly, without overlapping the child it had started.
 */
import { readFile } from 'node:fs/promises';
import { AgentError } from '../../core/errors';
import { finishGit, maxCollectedOutput, spawnDirect, spawnFailure } from './directSpawn';
import { GitProcessError } from './errors';
import type { GitExecOptions, GitRawResult } from './process';
import type { GitSpawnWorker, WorkerCall } from './gitSpawnWorker';

/**
 * spawnGit through `worker`, with exactly the semantics of a direct spawn (spawnDirect); `cap` is
 * the collected-output limit (maxCollectedOutput; a parameter for tests only).
 */
export function spawnThroughWorker(
  worker: GitSpawnWorker,
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
  const direct = () => spawnDirect(binary, env, cwd, args, options, cap);
  return new Promise((resolve, reject) => {
    let pid: number | undefined;
    let streamed = false;
    const abort = () => kill?.();
    const done = (outcome: Promise<GitRawResult>) => {
      options.signal?.removeEventListener('abort', abort);
      outcome.then(resolve, reject);
    };
    const request = {
      binary,
      args,
      cwd,
      env: { ...env, ...options.env },
      input: options.input,
      stream: options.onStdout !== undefined,
      lowPriority: options.lowPriority === true,
      cap,
    };
    const kill = worker.send(request, {
      pid: (started) => (pid = started),
      stdout: (chunk) => {
        streamed = true;
        options.onStdout?.(chunk);
      },
      end: (message) => done(ended(message, cwd, args, options, cap, direct)),
      lost: () => done(afterLoss(pid, streamed, args, options, direct)),
    });
    if (!kill) {
      done(direct());
      return;
    }
    options.signal?.addEventListener('abort', abort, { once: true });
  });
}

async function ended(
  message: Parameters<WorkerCall['end']>[0],
  cwd: string,
  args: readonly string[],
  options: GitExecOptions,
  cap: number,
  direct: () => Promise<GitRawResult>,
): Promise<GitRawResult> {
  if (message.type === 'refused') {
    return direct();
  }
  if (message.type === 'error') {
    throw await spawnFailure({ errno: message.errno, message: message.message }, cwd);
  }
  const stdout = message.stdout ? Buffer.from(message.stdout) : Buffer.alloc(0);
  return finishGit({ ...message, stdout }, args, options, cap);
}

/**
 * A call whose worker stopped runs again directly, once the child the worker started (if any) has
 * ended, so that the two never overlap. One that already streamed output cannot be run again
 * without repeating it to its callback: its child is ended and it fails.
 */
async function afterLoss(
  pid: number | undefined,
  streamed: boolean,
  args: readonly string[],
  options: GitExecOptions,
  direct: () => Promise<GitRawResult>,
): Promise<GitRawResult> {
  if (streamed) {
    endProcess(pid);
    throw new GitProcessError(-1, `git ${args[0]} was ended: the thread that started it stopped`);
  }
  if (pid !== undefined) {
    await processEnded(pid, options.signal);
  }
  return direct();
}

function endProcess(pid: number | undefined): void {
  try {
    if (pid !== undefined) {
      process.kill(pid);
    }
  } catch {
    // Already gone.
  }
}

/** Longest wait for an orphaned child where its end cannot be seen exactly (not Linux: zombies answer kill 0). */
const orphanWaitMs = 5 * 60_000;

/** Resolves once process `pid` has exited (a zombie counts: nobody reaps it now), or ends it when `signal` aborts. */
async function processEnded(pid: number, signal: AbortSignal | undefined): Promise<void> {
  const deadline = Date.now() + orphanWaitMs;
  while (Date.now() < deadline) {
    if (signal?.aborted) {
      endProcess(pid);
      return;
    }
    if (!(await alive(pid))) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function alive(pid: number): Promise<boolean> {
  if (process.platform === 'linux') {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    const state = stat?.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== undefined && state !== 'Z' && state !== 'X';
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
