import { AgentError } from '../errors';
import { diffLines, type LineChange } from './lineDiff';
import { hasEnding, type Lines } from './textLines';

/**
 * `target` (the workspace's file) with the `picked` changes of the agent (from `base` to `agent`)
 * applied. Each change goes where the base's lines it replaces, or the base lines around the place
 * it inserts at, still stand unchanged and side by side in the target; a change at the end of the
 * base needs the target to end there too. When one does not, nothing is applied and an
 * AgentError('hunkNoLongerApplies') names `path` and the target's lines that differ.
 */
export function applyToTarget(picked: readonly LineChange[], base: Lines, agent: Lines, target: Lines, path: string) {
  const map = baseToTarget(base, target);
  const placed = picked.map((change) => {
    const at = placeOf(change, map, base.length, target.length);
    if (!at) {
      throw new AgentError('hunkNoLongerApplies', { path, lines: linesAround(change, map) });
    }
    return { at, lines: agent.slice(change.agentStart, change.agentEnd) };
  });
  return checked(splice(target, placed), path, () => linesAround(picked[0], map));
}

/** `agent` with the `picked` changes undone: their base lines back in place of their agent lines. */
export function revertInAgent(picked: readonly LineChange[], base: Lines, agent: Lines, path: string): string[] {
  const placed = picked.map((c) => ({
    at: [c.agentStart, c.agentEnd] as const,
    lines: base.slice(c.baseStart, c.baseEnd),
  }));
  return checked(splice(agent, placed), path, () => `${picked[0].agentStart + 1}`);
}

interface Placed {
  readonly at: readonly [start: number, end: number];
  readonly lines: Lines;
}

/** `text` with each placed range replaced by its lines; ranges ordered, never overlapping. */
function splice(text: Lines, placed: readonly Placed[]): string[] {
  const sorted = [...placed].sort((x, y) => x.at[0] - y.at[0]);
  const out: string[] = [];
  let next = 0;
  for (const { at, lines } of sorted) {
    out.push(...text.slice(next, at[0]), ...lines);
    next = at[1];
  }
  out.push(...text.slice(next));
  return out;
}

/** A guard on the invariant the selection rules keep: only a text's last line may lack its line break. */
function checked(lines: string[], path: string, where: () => string): string[] {
  if (lines.some((line, i) => i < lines.length - 1 && !hasEnding(line))) {
    throw new AgentError('hunkNoLongerApplies', { path, lines: where() });
  }
  return lines;
}

/** For each base line, the target line it stands at unchanged, or -1. */
function baseToTarget(base: Lines, target: Lines): Int32Array {
  const map = new Int32Array(base.length).fill(-1);
  let b = 0;
  let t = 0;
  for (const change of diffLines(base, target)) {
    while (b < change.baseStart) {
      map[b++] = t++;
    }
    b = change.baseEnd;
    t = change.agentEnd;
  }
  // Stryker disable next-line EqualityOperator: equivalent, a write past an Int32Array's end is dropped, then it stops
  while (b < base.length) {
    map[b++] = t++;
  }
  return map;
}

function placeOf(change: LineChange, map: Int32Array, baseLength: number, targetLength: number) {
  const { baseStart: s, baseEnd: e } = change;
  let start: number;
  if (s < e) {
    start = map[s];
    for (let i = s + 1; i < e; i++) {
      if (map[i] !== start + (i - s)) {
        return undefined;
      }
    }
  } else {
    start = s === 0 ? 0 : map[s - 1] < 0 ? -1 : map[s - 1] + 1;
    if (s < baseLength && map[s] !== start) {
      return undefined;
    }
  }
  const end = start + (e - s);
  if (start < 0 || (e === baseLength && end !== targetLength)) {
    return undefined;
  }
  return [start, end] as const;
}

/**
 * The target's lines (1-based, "12" or "12–14") where `change` was expected: its base lines, or
 * those around an insertion.
 */
function linesAround(change: LineChange, map: Int32Array): string {
  const near = (i: number) => {
    let j = Math.min(i, map.length - 1);
    // Stryker disable next-line ConditionalExpression: equivalent, map[-1] is undefined, and undefined < 0 is false
    while (j >= 0 && map[j] < 0) {
      j--;
    }
    return j < 0 ? i : map[j] + (i - j);
  };
  const first = change.baseStart === change.baseEnd ? Math.max(0, change.baseStart - 1) : change.baseStart;
  const last = change.baseStart === change.baseEnd ? change.baseStart : change.baseEnd - 1;
  const [from, to] = [near(first) + 1, near(Math.max(first, last)) + 1];
  return from === to ? `${from}` : `${from}–${to}`;
}
