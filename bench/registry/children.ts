// Starts child.ts processes (fork: an IPC channel, argv arrays, no shell) and waits for what they report.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../test/harness/paths';
import type { ChildMessage } from './child';

/** A message with when this process received it (performance.timeOrigin + now). */
type Received = ChildMessage & { readonly receivedAt: number };

const childScript = join(repoRoot, 'out', 'bench', 'registry', 'child.js');

export class BenchChild {
  private readonly waiters: { match: (m: ChildMessage) => boolean; resolve: (m: Received) => void }[] = [];
  private readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: ChildMessage) => {
      const receivedAt = performance.timeOrigin + performance.now();
      for (const w of this.waiters.filter((x) => x.match(m))) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve({ ...m, receivedAt });
      }
    });
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  static start(args: readonly string[]): BenchChild {
    return new BenchChild(fork(childScript, [...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  /** The first message from now on that matches, or undefined after `timeoutMs`. */
  next<K extends ChildMessage['kind']>(
    kind: K,
    timeoutMs: number,
    match: (m: Extract<ChildMessage, { kind: K }>) => boolean = () => true,
  ): Promise<(Extract<ChildMessage, { kind: K }> & { receivedAt: number }) | undefined> {
    return new Promise((resolve) => {
      const waiter = {
        match: (m: ChildMessage) => m.kind === kind && match(m as Extract<ChildMessage, { kind: K }>),
        resolve: (m: Received) => {
          clearTimeout(timer);
          resolve(m as Extract<ChildMessage, { kind: K }> & { receivedAt: number });
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.push(waiter);
      void this.exited.then(() => {
        clearTimeout(timer);
        resolve(undefined); // no-op when a message came first
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.connected) {
      // A child that is leaving on its own may close the channel meanwhile (EPIPE): it stops anyway.
      this.child.send({ kind: 'stop' }, () => undefined);
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** `count` processes that keep a core busy each, until the returned function is called. */
export function spinCpus(count: number): () => Promise<void> {
  const spinners = Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  return async () => {
    await Promise.all(
      spinners.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.exitCode !== null || s.signalCode !== null) {
              resolve();
              return;
            }
            s.once('exit', () => resolve());
            s.kill('SIGKILL');
          }),
      ),
    );
  };
}
