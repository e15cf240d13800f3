/** An event source with vscode.Event's shape, so core code needs no vscode import. */
export interface Disposable {
  dispose(): void;
}

export type Event<T> = (listener: (e: T) => void) => Disposable;

export class Emitter<T> {
  private readonly listeners = new Set<(e: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

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
