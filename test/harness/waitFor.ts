// Polling shared by every kind of test (plain Node, git, extension host): no vscode import here.

export interface WaitOptions {
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** Poll interval (default 100 ms). */
  everyMs?: number;
}

type Maybe<T> = T | undefined | false | null;

/**
 * Polls `probe` (awaited when it returns a promise) until it gives something truthy and resolves
 * with it; rejects naming `what` on timeout.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Maybe<T> | Promise<Maybe<T>>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 100));
  }
}
