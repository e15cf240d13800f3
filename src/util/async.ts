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

interface Waiter<V> {
  resolve(value: V): void;
  reject(e: unknown): void;
}

/**
 * Gathers single reads into batches, per group: the first read of a group starts a load on the
 * next turn of the event loop with every key asked for by then; keys asked for while a load of
 * their group runs wait for it and go together into the next. A key asked for twice is loaded once
 * per batch. `load` answers with one value per key, in order; its failure fails that batch's reads.
 */
export class Batcher<V> {
  private readonly waiting = new Map<string, Map<string, Waiter<V>[]>>();
  private readonly busy = new Set<string>();

  constructor(private readonly load: (group: string, keys: string[]) => Promise<readonly V[]>) {}

  get(group: string, key: string): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      let batch = this.waiting.get(group);
      if (!batch) {
        batch = new Map();
        this.waiting.set(group, batch);
      }
      batch.set(key, [...(batch.get(key) ?? []), { resolve, reject }]);
      if (!this.busy.has(group)) {
        this.busy.add(group);
        setTimeout(() => this.next(group), 0);
      }
    });
  }

  private next(group: string): void {
    const batch = this.waiting.get(group);
    this.waiting.delete(group);
    if (!batch) {
      this.busy.delete(group);
      return;
    }
    const keys = [...batch.keys()];
    Promise.resolve()
      .then(() => this.load(group, keys))
      .then(
        (values) => keys.forEach((key, i) => batch.get(key)?.forEach((w) => w.resolve(values[i]))),
        (e: unknown) => batch.forEach((waiters) => waiters.forEach((w) => w.reject(e))),
      )
      .finally(() => this.next(group));
  }
}
