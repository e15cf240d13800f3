/**
 * The cap on git processes running at once, with a lane for processes run while a repository's
 * write queue is held: those are short (a registration, a ref update) and every other write to
 * the repository waits for them, so they must not wait behind long reads and checkouts. Measured:
 * 16 worktrees added at once took 3–6× longer when each registration waited for a slot behind
 * the checkouts of the worktrees registered before it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Waiter {
  readonly urgent: boolean;
  readonly go: () => void;
}

/** Set while a task holds a repository's write queue (GitRunner.write). */
const holdingWriteQueue = new AsyncLocalStorage<true>();

/** Runs `task` as holding a write queue: the git processes it starts are urgent. */
export function asWriteTask<T>(task: () => Promise<T>): Promise<T> {
  return holdingWriteQueue.run(true, task);
}

export class ProcessLimiter {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  /**
   * @param max processes at once
   * @param reserve more urgent ones allowed beyond `max` (one write queue holder per repository)
   */
  constructor(
    private readonly max: number,
    private readonly reserve = 2,
  ) {}

  /** Runs `task` once a slot is free; an urgent one (started under a write queue) goes first. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const urgent = holdingWriteQueue.getStore() === true;
    if (this.fits(urgent)) {
      this.running++;
    } else {
      // The waker counts the slot for us before we run: no newcomer can take it in between.
      await new Promise<void>((go) => this.enqueue({ urgent, go }));
    }
    try {
      return await task();
    } finally {
      this.running--;
      this.wake();
    }
  }

  private fits(urgent: boolean): boolean {
    return this.running < this.max + (urgent ? this.reserve : 0);
  }

  /** Urgent waiters after the urgent ones already waiting, before every other. */
  private enqueue(waiter: Waiter): void {
    const at = waiter.urgent ? this.waiting.findIndex((w) => !w.urgent) : -1;
    this.waiting.splice(at === -1 ? this.waiting.length : at, 0, waiter);
  }

  private wake(): void {
    for (let i = 0; i < this.waiting.length; ) {
      const waiter = this.waiting[i];
      if (this.fits(waiter.urgent)) {
        this.waiting.splice(i, 1);
        this.running++;
        waiter.go();
      } else {
        i++;
      }
    }
  }
}
