/** At most `limit` tasks at once, the others waiting in arrival order; a failed task frees its slot too. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) {
        next(); // the slot passes straight to the next task
      } else {
        this.active--;
      }
    }
  }
}

/** Lets timers, I/O and other callbacks run before going on (a macrotask, unlike awaiting a resolved promise). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
