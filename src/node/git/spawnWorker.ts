/**
 * The git spawn worker (dist/gitSpawnWorker.js): a worker thread that starts git processes for the
 * host thread, so that the host's thread is never held while a child execs (Node's spawn waits for
 * that: 12-40 ms a process here). Its bundle holds Node built-ins only (childOutput.ts imports
 * nothing else, spawnProtocol.ts is types); workerSpawner.ts is its other end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parentPort } from 'node:worker_threads';
import { CappedOutput, feedInput, lowerPriority } from './childOutput';
import type { FromWorker, SpawnRequest, ToWorker } from './spawnProtocol';

const port = parentPort;
const children = new Map<number, ChildProcess>();

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

/** The bytes of `chunk` in an ArrayBuffer of their own, to transfer: its own buffer when it has one. */
function ownBuffer(chunk: Buffer): ArrayBuffer {
  const buffer = chunk.buffer;
  if (buffer instanceof ArrayBuffer && chunk.byteOffset === 0 && chunk.byteLength === buffer.byteLength) {
    return buffer;
  }
  const copy = new ArrayBuffer(chunk.length);
  new Uint8Array(copy).set(chunk);
  return copy;
}

/** The collected chunks as one transferable buffer (one copy at most, none for a single chunk). */
function joined(chunks: readonly Buffer[]): ArrayBuffer | undefined {
  if (chunks.length <= 1) {
    return chunks.length === 1 && chunks[0].length > 0 ? ownBuffer(chunks[0]) : undefined;
  }
  const all = new Uint8Array(new ArrayBuffer(chunks.reduce((sum, chunk) => sum + chunk.length, 0)));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.length;
  }
  return all.buffer;
}

function start(request: SpawnRequest): ChildProcess | undefined {
  try {
    return spawn(request.binary, request.args, {
      cwd: request.cwd,
      env: request.env,
      stdio: [request.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch {
    post({ type: 'refused', id: request.id });
    return undefined;
  }
}

/** Runs one request as process.ts's direct spawn would, reporting its end instead of judging it. */
function run(request: SpawnRequest): void {
  const { id } = request;
  const child = start(request);
  if (!child) {
    return;
  }
  children.set(id, child);
  if (child.pid !== undefined) {
    if (request.lowPriority) {
      lowerPriority(child.pid);
    }
    post({ type: 'pid', id, pid: child.pid });
  }
  const output = new CappedOutput(child, request.cap);
  let settled = false;
  child.stdout?.on(
    'data',
    request.stream
      ? (chunk: Buffer) => {
          const buffer = ownBuffer(chunk);
          post({ type: 'stdout', id, chunk: buffer }, [buffer]);
        }
      : output.collect(output.stdout),
  );
  child.stderr?.on('data', output.collect(output.stderr));
  // Only the first of 'error' and 'close' answers, as in the direct spawn.
  const settle = (end: () => void) => {
    if (!settled) {
      settled = true;
      children.delete(id);
      end();
    }
  };
  child.on('error', (error: NodeJS.ErrnoException) =>
    settle(() => post({ type: 'error', id, message: error.message, errno: error.errno })),
  );
  child.on('close', (code, signal) =>
    settle(() => {
      const out = joined(output.stdout);
      post(
        { type: 'close', id, code, signal, stdout: out, stderr: output.stderrText, overCap: output.overCap },
        out ? [out] : [],
      );
    }),
  );
  feedInput(child, request.input);
}

port?.on('message', (message: ToWorker) => {
  if (message.type === 'spawn') {
    run(message);
  } else {
    children.get(message.id)?.kill();
  }
});
