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

/** Nearest-rank percentile (`p` in 0..100): a value that occurred, never an interpolation. NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((Math.min(100, Math.max(0, p)) / 100) * sorted.length);
  return sorted[Math.max(0, rank - 1)];
}

export interface Spread {
  /** Samples that arrived (are in the figures). */
  readonly count: number;
  /** Samples expected that never arrived. */
  readonly missing: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** p50/p95/max of the samples that arrived (undefined: did not), out of all expected. */
export function spread(samples: readonly (number | undefined)[]): Spread {
  const arrived = samples.filter((s): s is number => s !== undefined && !Number.isNaN(s));
  return {
    count: arrived.length,
    missing: samples.length - arrived.length,
    p50: percentile(arrived, 50),
    p95: percentile(arrived, 95),
    max: arrived.length === 0 ? Number.NaN : Math.max(...arrived),
  };
}

/** `with[i] - without[i]` of paired samples (same round), for the cost one case adds to the other. */
export function pairedDifferences(withIt: readonly number[], without: readonly number[]): number[] {
  if (withIt.length !== without.length) {
    throw new Error(`paired samples differ in count: ${withIt.length} and ${without.length}`);
  }
  return withIt.map((w, i) => w - without[i]);
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
