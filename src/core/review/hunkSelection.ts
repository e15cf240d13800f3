import type { LineChange } from './lineDiff';
import { hasEnding, type Lines } from './textLines';

/** Lines picked in a diff editor: a selection, or a cursor (`whole`), on one side of the diff. */
export interface LineSelection {
  /** First and last line (0-based, both included). */
  readonly start: number;
  readonly end: number;
  /** The side whose lines these are: the agent's file (default) or the base version. */
  readonly side?: 'agent' | 'base';
  /** A cursor rather than a selection: the whole change under it, not its lines. */
  readonly whole?: boolean;
}

/** A selection's lines within [start, end) on its side, or its touching of the gap at `start` when start = end. */
function touches(sel: LineSelection, start: number, end: number): boolean {
  return start < end ? sel.start < end && sel.end >= start : sel.start <= start && sel.end >= start - 1;
}

function endsOpen(lines: Lines, end: number): boolean {
  // Stryker disable next-line ConditionalExpression: equivalent, only a text's last line can lack its break
  return end === lines.length && end > 0 && !hasEnding(lines[end - 1]);
}

/**
 * The parts of `changes` (from base to agent) that `selections` pick, like Source Control's Stage
 * Selected Ranges. A cursor, a selection on the base side, a deletion (it has no agent lines to
 * pick) or a change at a file's end that has no final line break (its lines cannot be split without
 * gluing two lines together) is taken whole. Otherwise only the selected agent lines are taken: each
 * run of them alone from an insertion; paired line for line with the base's when a change replaces
 * as many lines as it adds; in place of all the change's base lines when the counts differ (from the
 * first selected line to the last). The result is ordered by position and never overlaps.
 */
export function selectChanges(
  changes: readonly LineChange[],
  selections: readonly LineSelection[],
  base: Lines,
  agent: Lines,
): LineChange[] {
  const picked: LineChange[] = [];
  for (const change of changes) {
    const onBase = selections.filter((s) => s.side === 'base' && touches(s, change.baseStart, change.baseEnd));
    const onAgent = selections.filter((s) => s.side !== 'base' && touches(s, change.agentStart, change.agentEnd));
    if (onBase.length === 0 && onAgent.length === 0) {
      continue;
    }
    const whole =
      onBase.length > 0 ||
      onAgent.some((s) => s.whole) ||
      // Stryker disable next-line ConditionalExpression: equivalent, selections at a deletion clamp to its whole gap
      change.agentStart === change.agentEnd ||
      endsOpen(base, change.baseEnd) ||
      endsOpen(agent, change.agentEnd);
    picked.push(...(whole ? [change] : partOf(change, runsOf(onAgent, change))));
  }
  return picked;
}

/** The selected agent lines of `change` as sorted, separate runs [start, end). */
function runsOf(selections: readonly LineSelection[], change: LineChange): [number, number][] {
  const spans = selections
    .map((s): [number, number] => [Math.max(s.start, change.agentStart), Math.min(s.end + 1, change.agentEnd)])
    .sort((x, y) => x[0] - y[0]);
  const runs: [number, number][] = [];
  for (const [start, end] of spans) {
    const last = runs[runs.length - 1];
    if (last && start <= last[1]) {
      last[1] = Math.max(last[1], end);
    } else {
      runs.push([start, end]);
    }
  }
  return runs;
}

function partOf(change: LineChange, runs: readonly [number, number][]): LineChange[] {
  const { baseStart, baseEnd, agentStart, agentEnd } = change;
  if (baseStart === baseEnd) {
    return runs.map(([start, end]) => ({ baseStart, baseEnd, agentStart: start, agentEnd: end }));
  }
  if (baseEnd - baseStart === agentEnd - agentStart) {
    return runs.map(([start, end]) => ({
      baseStart: baseStart + (start - agentStart),
      baseEnd: baseStart + (end - agentStart),
      agentStart: start,
      agentEnd: end,
    }));
  }
  return [{ baseStart, baseEnd, agentStart: runs[0][0], agentEnd: runs[runs.length - 1][1] }];
}
