/** An event source with vscode.Event's shape, so core code needs no vscode import. */
export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void) => Disposable;

/** Lets an emitter start its work when the first listener comes and stop it when the last one goes. */
export interface EmitterHooks {
  onFirstListener?(): void;
  onLastListener?(): void;
}

export class Emitter<T> {
  private readonly listeners = new Set<(e: T) => void>();

  constructor(private readonly hooks: EmitterHooks = {}) {}

  readonly event: Event<T> = (listener) => {
    const wrapped = (e: T) => listener(e);
    this.listeners.add(wrapped);
    if (this.listeners.size === 1) {
      this.hooks.onFirstListener?.();
    }
    return {
      dispose: () => {
        if (this.listeners.delete(wrapped) && this.listeners.size === 0) {
          this.hooks.onLastListener?.();
        }
      },
    };
  };

  /** True while someone listens: what nobody listens to need not be computed. */
  get hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (e) {
        // A failing listener must not stop the others; surface it asynchronously.
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}

export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  add<T extends Disposable>(item: T): T {
    if (this.disposed) {
      item.dispose();
    } else {
      this.items.add(item);
    }
    return item;
  }

  dispose(): void {
    this.disposed = true;
    for (const item of [...this.items].reverse()) {
      item.dispose();
    }
    this.items.clear();
  }
}

export function toDisposable(fn: () => void): Disposable {
  return { dispose: fn };
}

/**
 * One event over sources that come and go (each agent's run, by key): it listens to its sources
 * only while it has listeners itself, so that what nobody listens to is never produced.
 */
export class EventFanIn<T> implements Disposable {
  private readonly sources = new Map<string, Event<T>>();
  private readonly subscriptions = new Map<string, Disposable>();
  private readonly emitter = new Emitter<T>({
    onFirstListener: () => this.sources.forEach((source, key) => this.listen(key, source)),
    onLastListener: () => this.unlistenAll(),
  });
  readonly event: Event<T> = this.emitter.event;

  /** Replaces the source under `key`. */
  add(key: string, source: Event<T>): void {
    this.remove(key);
    this.sources.set(key, source);
    if (this.emitter.hasListeners) {
      this.listen(key, source);
    }
  }

  /** Removes the source under `key`; only when it is still `source`, when given. */
  remove(key: string, source?: Event<T>): void {
    if (source === undefined || this.sources.get(key) === source) {
      this.sources.delete(key);
      this.subscriptions.get(key)?.dispose();
      this.subscriptions.delete(key);
    }
  }

  /** Fires a value of no source (e.g. a line the owner writes itself). */
  fire(value: T): void {
    this.emitter.fire(value);
  }

  dispose(): void {
    this.unlistenAll();
    this.sources.clear();
    this.emitter.dispose();
  }

  private listen(key: string, source: Event<T>): void {
    this.subscriptions.set(
      key,
      source((value) => this.emitter.fire(value)),
    );
  }

  private unlistenAll(): void {
    this.subscriptions.forEach((s) => s.dispose());
    this.subscriptions.clear();
  }
}

/** `event` with each value mapped; subscribing to it subscribes to `event`. */
export function mapEvent<T, U>(event: Event<T>, map: (value: T) => U): Event<U> {
  return (listener) => event((value) => listener(map(value)));
}
