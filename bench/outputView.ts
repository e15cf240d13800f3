// The `output` section: what opening an agent's output view costs with a 20 KB and a 20 MB log. The
// view's own steps (src/ui/outputViews.ts through node/logTail.ts): read the log's tail, then start
// following the log from where the tail ended (its first read). Interleaved rounds, medians. For
// context, what the view did before: read the whole file and decode it (the output channel's own
// cost of taking that text, the freeze users saw, comes on top and is not in this figure).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { defaultTailBytes, LogFollower, readLogTail } from '../src/node/logTail';
import { median, now } from './stats';

export interface OutputViewResult {
  readonly smallBytes: number;
  readonly largeBytes: number;
  readonly rounds: number;
  readonly tailBytes: number;
  /** Median time to the view's content (tail read + first follow read), per log. */
  readonly smallMs: number;
  readonly largeMs: number;
  /** largeMs / smallMs. */
  readonly ratio: number;
  /** Median of the per-round ratios (each round reads both logs back to back). */
  readonly pairedRatio: number;
  /** What the large log's view shows, and says is hidden. */
  readonly shownChars: number;
  readonly hiddenBytes: number;
  /** The whole file read and decoded (the view before), per log. */
  readonly wholeSmallMs: number;
  readonly wholeLargeMs: number;
  readonly targetRatio: number;
}

export const outputTargetRatio = 2;
const rounds = 60;

/** A log like an agent's: lines of varied length with some non-ASCII text, `bytes` long. */
function writeLog(file: string, bytes: number): void {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `[${i}] ${i % 5 === 0 ? 'résumé · ünïcode → ✓ ' : ''}${'output text '.repeat(1 + (i % 9))}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  fs.writeFileSync(file, lines.join(''));
}

/** What the view does when it opens: the tail, then the follower's first read (nothing new here). */
async function openView(file: string): Promise<{ ms: number; shown: number; hidden: number }> {
  const started = now();
  const tail = await readLogTail(file);
  const follower = new LogFollower(file, tail?.end ?? 0, () => undefined);
  await follower.pump();
  const ms = now() - started;
  follower.dispose();
  return { ms, shown: tail?.text.length ?? 0, hidden: tail?.hiddenBytes ?? 0 };
}

async function wholeFile(file: string): Promise<number> {
  const started = now();
  new TextDecoder().decode(await fs.promises.readFile(file));
  return now() - started;
}

export async function measureOutputView(): Promise<OutputViewResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pa-bench-output-'));
  try {
    const small = path.join(dir, 'small.log');
    const large = path.join(dir, 'large.log');
    writeLog(small, 20 * 1024);
    writeLog(large, 20 * 1024 * 1024);
    for (let i = 0; i < 5; i++) {
      await openView(small);
      await openView(large);
    }
    const smallMs: number[] = [];
    const largeMs: number[] = [];
    let last = { ms: 0, shown: 0, hidden: 0 };
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so neither always reads a cache the other warmed.
      const order = i % 2 === 0 ? [small, large] : [large, small];
      for (const file of order) {
        const run = await openView(file);
        (file === small ? smallMs : largeMs).push(run.ms);
        if (file === large) {
          last = run;
        }
      }
    }
    const wholeSmall: number[] = [];
    const wholeLarge: number[] = [];
    for (let i = 0; i < 5; i++) {
      wholeSmall.push(await wholeFile(small));
      wholeLarge.push(await wholeFile(large));
    }
    return {
      smallBytes: fs.statSync(small).size,
      largeBytes: fs.statSync(large).size,
      rounds,
      tailBytes: defaultTailBytes,
      smallMs: median(smallMs),
      largeMs: median(largeMs),
      ratio: median(largeMs) / median(smallMs),
      pairedRatio: median(largeMs.map((l, i) => l / smallMs[i])),
      shownChars: last.shown,
      hiddenBytes: last.hidden,
      wholeSmallMs: median(wholeSmall),
      wholeLargeMs: median(wholeLarge),
      targetRatio: outputTargetRatio,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
