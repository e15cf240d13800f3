/** Runs tasks one at a time, in order; a failed task does not block the next. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Calls `fn` once `delayMs` after the last trigger; `flush` runs a pending call at once. */
export function debounce(fn: () => void, delayMs: number): { trigger(): void; flush(): void; dispose(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    trigger() {
      if (timer) {
        clearTimeout(timer);
      }
      timer = setTimeout(() => {
        timer = undefined;
        fn();
      }, delayMs);
    },
    flush() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
        fn();
      }
    },
    dispose() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Coalesced saving of state that changes often: at most one save waits at a time, and it writes
 * the state as it is when it runs, so a burst of changes costs one or two writes.
 */
export class CoalescedSave {
  private readonly queue = new SerialQueue();
  private queued = false;

  constructor(
    private readonly save: () => Promise<void>,
    private readonly onError: (e: Error) => void,
  ) {}

  /** A save is queued and has not started yet. */
  get pending(): boolean {
    return this.queued;
  }

  request(): void {
    if (this.queued) {
      return;
    }
    this.queued = true;
    void this.queue
      .run(() => {
        this.queued = false;
        return this.save();
      })
      .catch(this.onError);
  }

  /** Resolves when every save requested so far has been written. */
  flush(): Promise<void> {
    return this.queue.run(async () => undefined);
  }
}
