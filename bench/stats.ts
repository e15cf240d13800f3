// Small helpers shared by the bench sections: timing, medians, formatting, the result table.

export function now(): number {
  return performance.now();
}

export async function timed<T>(body: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = now();
  const value = await body();
  return { ms: now() - started, value };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function ms(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) {
    return 'n/a';
  }
  return value >= 10_000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
}

export function sleep(msToWait: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, msToWait));
}

export async function waitUntil(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(20);
  }
}

export interface Row {
  readonly figure: string;
  readonly value: string;
  readonly target?: string;
  /** undefined: context only, no target. */
  readonly pass?: boolean;
}

export function printTable(rows: readonly Row[]): void {
  const headers = ['Figure', 'Value', 'Target', 'Result'];
  const cells = rows.map((r) => [
    r.figure,
    r.value,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'pass' : 'MISS',
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) =>
    c
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  cells.forEach((c) => console.log(line(c)));
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
