import type { Lines } from './textLines';

/**
 * One change between two texts, in lines (0-based, ends excluded): base lines [baseStart, baseEnd)
 * became agent lines [agentStart, agentEnd). An insertion has no base lines, a deletion no agent
 * lines. Between two changes there is always at least one line the texts share.
 */
export interface LineChange {
  readonly baseStart: number;
  readonly baseEnd: number;
  readonly agentStart: number;
  readonly agentEnd: number;
}

/**
 * The changes that turn `base` into `agent`, fewest lines first: Myers' O(ND) difference algorithm
 * in its linear-space form (a middle snake, then each half). Lines compare by their exact text,
 * ending included, so a line whose ending alone changed is a change.
 */
export function diffLines(base: Lines, agent: Lines): LineChange[] {
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const idsOf = (lines: Lines) => Int32Array.from(lines, idOf);
  const a = idsOf(base);
  const b = idsOf(agent);
  const size = a.length + b.length + 3;
  const out: LineChange[] = [];
  new Differ(a, b, new Int32Array(size), new Int32Array(size), out).diff(0, a.length, 0, b.length);
  return out;
}

type Snake = readonly [xStart: number, yStart: number, xEnd: number, yEnd: number];

class Differ {
  constructor(
    private readonly a: Int32Array,
    private readonly b: Int32Array,
    private readonly forward: Int32Array,
    private readonly backward: Int32Array,
    private readonly out: LineChange[],
  ) {}

  diff(aLo: number, aHi: number, bLo: number, bHi: number): void {
    const { a, b } = this;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      aLo++;
      bLo++;
    }
    while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
      aHi--;
      bHi--;
    }
    if (aLo === aHi || bLo === bHi) {
      if (aLo < aHi || bLo < bHi) {
        this.emit(aLo, aHi, bLo, bHi);
      }
      return;
    }
    // Both sides are left and differ at both ends, so at least two lines differ and each half below
    // needs fewer edits than the whole: the recursion ends.
    const snake = this.middleSnake(aLo, aHi - aLo, bLo, bHi - bLo);
    // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent, never undefined (see middleSnake)
    if (!snake) {
      this.emit(aLo, aHi, bLo, bHi);
      return;
    }
    const [xs, ys, xe, ye] = snake;
    this.diff(aLo, aLo + xs, bLo, bLo + ys);
    this.diff(aLo + xe, aHi, bLo + ye, bHi);
  }

  private emit(baseStart: number, baseEnd: number, agentStart: number, agentEnd: number): void {
    const last = this.out[this.out.length - 1];
    // Stryker disable next-line ConditionalExpression: equivalent, the lines between two changes are on both sides
    if (last && last.baseEnd === baseStart && last.agentEnd === agentStart) {
      this.out[this.out.length - 1] = { ...last, baseEnd, agentEnd };
    } else {
      this.out.push({ baseStart, baseEnd, agentStart, agentEnd });
    }
  }

  /**
   * The middle snake of an optimal path through a[aLo, aLo+n) and b[bLo, bLo+m), found by searching
   * from both corners at once, relative to aLo and bLo. `forward[k]`
   * is the furthest x reached on diagonal k = x - y (offset by `off`), `backward` the same from the
   * far corner; -1 marks a diagonal no path reaches inside the rectangle.
   */
  private middleSnake(aLo: number, n: number, bLo: number, m: number): Snake | undefined {
    const { a, b, forward: vf, backward: vb } = this;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const max = Math.ceil((n + m) / 2);
    // Stryker disable next-line ArithmeticOperator: equivalent, only d = max falls short: see the loop's bound below
    const off = max + 1;
    // Stryker disable next-line EqualityOperator: equivalent, d = max is needed only when all lines differ: one change
    for (let d = 0; d <= max; d++) {
      for (let k = -d; k <= d; k += 2) {
        const x0 = furthest(vf, off, k, d, n, m);
        // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent as checked below (furthest)
        if (x0 < 0) {
          // Stryker disable next-line UnaryOperator: equivalent as checked below (furthest)
          vf[off + k] = -1;
          continue;
        }
        let x = x0;
        while (x < n && x - k < m && a[aLo + x] === b[bLo + x - k]) {
          x++;
        }
        vf[off + k] = x;
        const c = delta - k;
        // Stryker disable next-line ConditionalExpression: equivalent, x <= n: an unreached vb[c] (-1) fails the sum
        if (odd && c >= 1 - d && c <= d - 1 && vb[off + c] >= 0 && x + vb[off + c] >= n) {
          return [x0, x0 - k, x, x - k];
        }
      }
      for (let k = -d; k <= d; k += 2) {
        const x0 = furthest(vb, off, k, d, n, m);
        // Stryker disable next-line ConditionalExpression,BlockStatement: equivalent as checked below (furthest)
        if (x0 < 0) {
          // Stryker disable next-line UnaryOperator: equivalent as checked below (furthest)
          vb[off + k] = -1;
          continue;
        }
        let x = x0;
        while (x < n && x - k < m && a[aLo + n - 1 - x] === b[bLo + m - 1 - (x - k)]) {
          x++;
        }
        vb[off + k] = x;
        const c = delta - k;
        // Stryker disable next-line ConditionalExpression: equivalent, x <= n: an unreached vf[c] (-1) fails the sum
        if (!odd && c >= -d && c <= d && vf[off + c] >= 0 && x + vf[off + c] >= n) {
          return [n - x, m - (x - k), n - x0, m - (x0 - k)];
        }
      }
    }
    // Not reached: the searches always meet by d = max. Were they not to, the range is one change.
    return undefined;
  }
}

/**
 * Where a path with d edits starts on diagonal k before following its snake: one step right from
 * diagonal k-1 or one step down from k+1, whichever reaches further and stays inside n × m.
 * Equivalent mutants marked here and in middleSnake: the guards against unreached diagonals and
 * steps out of n × m change no diff of any two texts of up to 7 lines of 2 kinds, or 5 lines of 3
 * kinds (all 309,136 pairs compared), nor of 200,000 random pairs: the diagonals they guard lie
 * outside what the two searches can meet on. Checked exhaustively on small texts, not proven.
 */
function furthest(v: Int32Array, off: number, k: number, d: number, n: number, m: number): number {
  if (d === 0) {
    return 0;
  }
  let x = -1;
  if (k > -d) {
    const left = v[off + k - 1];
    // Stryker disable next-line ConditionalExpression,LogicalOperator,ArithmeticOperator: equivalent as checked above
    if (left >= 0 && left + 1 <= n) {
      x = left + 1;
    }
  }
  if (k < d) {
    const above = v[off + k + 1];
    // Stryker disable next-line ConditionalExpression,EqualityOperator,LogicalOperator: as checked above; above = x too
    if (above >= 0 && above - k <= m && above > x) {
      x = above;
    }
  }
  return x;
}
