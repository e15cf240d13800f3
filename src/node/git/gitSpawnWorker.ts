/**
 * The host's end of the git spawn worker (spawnWorker.ts): one worker thread per process starts
 * the git processes, so that the host's thread is not held while each child execs. Started lazily,
 * unref'd while idle (it never keeps a process alive) and ref'd while a call is pending. A worker
 * that cannot start or dies fails its pending calls over (see workerSpawner.ts); later calls start a
 * new one, up to a limit, then every call spawns directly.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FromWorker, SpawnRequest } from './spawnProtocol';

/** What the worker reports about one call. */
export interface WorkerCall {
  pid(pid: number): void;
  stdout(chunk: Buffer): void;
  end(message: Extract<FromWorker, { type: 'close' | 'error' | 'refused' }>): void;
  /** The worker stopped before the call ended: a child it started may still be running. */
  lost(): void;
}

interface Running {
  readonly worker: Worker;
  readonly calls: Map<number, WorkerCall>;
  stopped: boolean;
}

/** One spawn worker thread and its pending calls, restarted on demand. */
export class GitSpawnWorker {
  private running?: Running;
  private starts = 0;
  private nextId = 1;
  private disposed = false;
  /** Calls the worker answered. */
  served = 0;
  /** Workers that stopped unasked (could not start, died, or were terminated). */
  losses = 0;

  /** `script`: dist/gitSpawnWorker.js; `maxStarts`: workers started at most, then every call spawns directly. */
  constructor(
    readonly script: string,
    readonly maxStarts = 3,
  ) {}

  /** Whether calls now spawn directly (disposed, or no worker left to start). */
  get direct(): boolean {
    return this.disposed || (!this.running && this.starts >= this.maxStarts);
  }

  /** Sends one process to the worker; returns how to kill it, or undefined when no worker runs (spawn directly). */
  send(request: Omit<SpawnRequest, 'type' | 'id'>, call: WorkerCall): (() => void) | undefined {
    const running = this.worker();
    if (!running) {
      return undefined;
    }
    const id = this.nextId++;
    running.calls.set(id, call);
    if (running.calls.size === 1) {
      running.worker.ref();
    }
    running.worker.postMessage({ ...request, type: 'spawn', id });
    return () => {
      if (running.calls.has(id)) {
        running.worker.postMessage({ type: 'kill', id });
      }
    };
  }

  /** Ends the worker now, as if it died: its pending calls fail over to direct spawns. */
  async terminate(): Promise<void> {
    await this.running?.worker.terminate();
  }

  /** No more calls go to a worker; the current one ends once its pending calls have. */
  dispose(): void {
    this.disposed = true;
    if (this.running?.calls.size === 0) {
      void this.running.worker.terminate();
    }
  }

  private worker(): Running | undefined {
    if (this.running || this.direct) {
      return this.running;
    }
    this.starts++;
    let worker: Worker;
    try {
      worker = new Worker(path.resolve(this.script));
    } catch {
      this.losses++;
      return undefined;
    }
    const running: Running = { worker, calls: new Map(), stopped: false };
    worker.on('message', (message: FromWorker) => this.receive(running, message));
    worker.on('error', () => this.lose(running));
    worker.on('exit', () => this.lose(running));
    // After the listeners: a 'message' listener refs the worker's port again.
    worker.unref();
    this.running = running;
    return running;
  }

  private receive(running: Running, message: FromWorker): void {
    const call = running.calls.get(message.id);
    if (!call) {
      return;
    }
    if (message.type === 'pid') {
      call.pid(message.pid);
    } else if (message.type === 'stdout') {
      call.stdout(Buffer.from(message.chunk));
    } else {
      running.calls.delete(message.id);
      if (running.calls.size === 0) {
        running.worker.unref();
        if (this.disposed) {
          void running.worker.terminate();
        }
      }
      this.served++;
      call.end(message);
    }
  }

  private lose(running: Running): void {
    if (running.stopped) {
      return;
    }
    running.stopped = true;
    if (this.running === running) {
      this.running = undefined;
    }
    if (!this.disposed) {
      this.losses++;
    }
    const calls = [...running.calls.values()];
    running.calls.clear();
    for (const call of calls) {
      call.lost();
    }
  }
}

const slot: unique symbol = Symbol.for('parallelAgents.gitSpawnWorker');
/** On globalThis, so that bundles built apart (each test file's) share one worker per process. */
const shared = globalThis as typeof globalThis & { [slot]?: GitSpawnWorker };

/**
 * Starts every later git process of this process (spawnGit) from a worker thread running `script`
 * (dist/gitSpawnWorker.js). Disposing goes back to direct spawns.
 */
export function useGitSpawnWorker(script: string): { dispose(): void } {
  const worker = new GitSpawnWorker(script);
  shared[slot]?.dispose();
  shared[slot] = worker;
  return {
    dispose: () => {
      if (shared[slot] === worker) {
        delete shared[slot];
      }
      worker.dispose();
    },
  };
}

/** The spawn worker enabled in this process, if any. */
export function gitSpawnWorker(): GitSpawnWorker | undefined {
  return shared[slot];
}
