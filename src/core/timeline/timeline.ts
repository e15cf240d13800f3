/**
 * The timeline's model: each agent or plan task as a bar of timed segments, and the figures that
 * say how well the parallel run went. Plain data in and out, so the figures can be checked
 * without a clock or a window.
 */
import type { AgentRecord, AgentStatus } from '../agent';

/**
 * queued: created, waiting for a slot or being prepared (worktree); running: the agent's process
 * works; waiting-for-input: alive but waiting for the user; done | failed | stopped: zero-length
 * markers at the end of a bar.
 */
export type BarState = 'queued' | 'running' | 'waiting-for-input' | 'done' | 'failed' | 'stopped';

export interface BarSegment {
  readonly state: BarState;
  /** Epoch milliseconds. */
  readonly start: number;
  /** Undefined while the segment lasts: it ends at `now`. */
  readonly end?: number;
}

export interface TimelineBar {
  readonly id: string;
  readonly title: string;
  /** In time order; they may touch but never overlap. */
  readonly segments: readonly BarSegment[];
  /** Ids of the bars this one waited for (a plan's `dependsOn`); unknown ids are ignored. */
  readonly dependsOn?: readonly string[];
}

export interface TimelineFigures {
  /** Time during which at least one bar was queued, running or waiting; gaps with nothing going on are left out. */
  readonly wallMs: number;
  /** First segment start to last segment end (or now), gaps included: the width of the time axis. */
  readonly spanMs: number;
  /** Sum over the bars of their running time (waiting for input is the user's time, not the agent's). */
  readonly sumMs: number;
  /** sumMs ÷ wallMs: how many agents worked at once on average; 0 when wallMs is 0. */
  readonly speedup: number;
  /** Running time of the longest chain along dependsOn; without dependencies, the longest bar. */
  readonly criticalPathMs: number;
  /** The chain's bar ids, first to last. */
  readonly criticalPath: readonly string[];
  /** slots × wallMs − sumMs, never below 0: slot time no agent ran in. */
  readonly idleSlotMs: number;
  /** The slots idleSlotMs counts: the maxParallel given, else peakConcurrency. */
  readonly slots: number;
  readonly slotsFrom: 'maxParallel' | 'peak';
  /** Most bars running or waiting for input at the same moment. */
  readonly peakConcurrency: number;
  /** Some segment is still open: the figures grow with `now`. */
  readonly live: boolean;
}

const activeStates: ReadonlySet<BarState> = new Set(['queued', 'running', 'waiting-for-input']);
/** The states that hold one of maxParallel's slots. */
const slotStates: ReadonlySet<BarState> = new Set(['running', 'waiting-for-input']);

function segmentEnd(segment: BarSegment, now: number): number {
  return Math.max(segment.start, segment.end ?? now);
}

function duration(segment: BarSegment, now: number): number {
  return segmentEnd(segment, now) - segment.start;
}

/** Milliseconds a bar spent running. */
export function runningMs(bar: TimelineBar, now: number): number {
  return bar.segments.reduce((sum, s) => (s.state === 'running' ? sum + duration(s, now) : sum), 0);
}

export interface BarsFromAgentsOptions {
  /** When each agent waiting for input started waiting: a record keeps no such time. */
  readonly waitingSince?: ReadonlyMap<string, number>;
  /** Dependencies between agents, e.g. a plan's tasks mapped to their agents' ids. */
  readonly dependsOn?: ReadonlyMap<string, readonly string[]>;
}

function terminalState(record: AgentRecord): BarState | undefined {
  const status: AgentStatus =
    record.status === 'discarded' ? (record.statusBeforeDiscard ?? 'succeeded') : record.status;
  switch (status) {
    case 'succeeded':
    case 'reviewed':
    case 'merged':
      return 'done';
    case 'failed':
      return 'failed';
    case 'stopped':
    case 'interrupted':
    case 'detached':
    case 'timed-out':
    case 'needs-permission':
    case 'paused':
      return 'stopped';
    default:
      return undefined;
  }
}

/**
 * queued = createdAt → startedAt (or now, or the end of a run that never started); running =
 * startedAt → endedAt (or now); then a zero-length done | failed | stopped marker at endedAt.
 * An agent waiting for input runs until it started waiting (when known) and waits from then on.
 */
export function barFromAgent(record: AgentRecord, now: number, options: BarsFromAgentsOptions = {}): TimelineBar {
  const terminal = terminalState(record);
  const segments: BarSegment[] = [];
  const created = record.createdAt;
  const started = record.startedAt === undefined ? undefined : Math.max(created, record.startedAt);
  const ended = record.endedAt ?? (terminal ? (started ?? created) : undefined);
  if (started === undefined) {
    segments.push({ state: 'queued', start: created, end: ended });
  } else {
    if (started > created) {
      segments.push({ state: 'queued', start: created, end: started });
    }
    if (record.status === 'waiting-for-input') {
      const since = Math.min(Math.max(options.waitingSince?.get(record.id) ?? now, started), now);
      segments.push({ state: 'running', start: started, end: since });
      segments.push({ state: 'waiting-for-input', start: since });
    } else {
      segments.push({ state: 'running', start: started, end: ended });
    }
  }
  if (terminal && ended !== undefined) {
    segments.push({ state: terminal, start: ended, end: ended });
  }
  const dependsOn = options.dependsOn?.get(record.id);
  return { id: record.id, title: record.title, segments, ...(dependsOn ? { dependsOn } : {}) };
}

/** One bar per agent, in the order of the records. */
export function barsFromAgents(
  records: readonly AgentRecord[],
  now: number,
  options: BarsFromAgentsOptions = {},
): TimelineBar[] {
  return records.map((r) => barFromAgent(r, now, options));
}

interface Interval {
  readonly start: number;
  readonly end: number;
}

function intervals(bars: readonly TimelineBar[], now: number, states: ReadonlySet<BarState>): Interval[] {
  return bars
    .flatMap((bar) =>
      bar.segments.filter((s) => states.has(s.state)).map((s) => ({ start: s.start, end: segmentEnd(s, now) })),
    )
    .filter((i) => i.end > i.start);
}

/** Total length of the union of the intervals. */
function unionMs(list: readonly Interval[]): number {
  const sorted = [...list].sort((a, b) => a.start - b.start);
  let total = 0;
  let current: { start: number; end: number } | undefined;
  for (const i of sorted) {
    if (current && i.start <= current.end) {
      current.end = Math.max(current.end, i.end);
    } else {
      total += current ? current.end - current.start : 0;
      current = { ...i };
    }
  }
  return total + (current ? current.end - current.start : 0);
}

/** Most intervals open at one moment; one ending where another starts does not overlap it. */
function peakOverlap(list: readonly Interval[]): number {
  const events = list.flatMap((i) => [
    { t: i.start, d: 1 },
    { t: i.end, d: -1 },
  ]);
  events.sort((a, b) => a.t - b.t || a.d - b.d);
  let open = 0;
  let peak = 0;
  for (const e of events) {
    open += e.d;
    peak = Math.max(peak, open);
  }
  return peak;
}

/**
 * The longest chain of running durations along dependsOn: the least wall time any number of slots
 * could have taken. A cycle (which plan validation forbids) is cut where it closes.
 */
export function criticalPath(bars: readonly TimelineBar[], now: number): { ms: number; ids: string[] } {
  const byId = new Map(bars.map((b) => [b.id, b]));
  const best = new Map<string, { ms: number; ids: string[] }>();
  const visiting = new Set<string>();
  const longestTo = (bar: TimelineBar): { ms: number; ids: string[] } => {
    const known = best.get(bar.id);
    if (known) {
      return known;
    }
    visiting.add(bar.id);
    let before: { ms: number; ids: string[] } = { ms: 0, ids: [] };
    for (const dep of bar.dependsOn ?? []) {
      const prerequisite = byId.get(dep);
      if (prerequisite && !visiting.has(dep)) {
        const chain = longestTo(prerequisite);
        if (chain.ms > before.ms || before.ids.length === 0) {
          before = chain;
        }
      }
    }
    visiting.delete(bar.id);
    const result = { ms: before.ms + runningMs(bar, now), ids: [...before.ids, bar.id] };
    best.set(bar.id, result);
    return result;
  };
  let longest: { ms: number; ids: string[] } = { ms: 0, ids: [] };
  for (const bar of bars) {
    const chain = longestTo(bar);
    if (chain.ms > longest.ms) {
      longest = chain;
    }
  }
  return longest;
}

/** The figures of a set of bars at `now`; `slots` is the run's maxParallel when there is one. */
export function computeFigures(bars: readonly TimelineBar[], now: number, slots?: number): TimelineFigures {
  const all = bars.flatMap((b) => b.segments);
  const first = Math.min(...all.map((s) => s.start));
  const last = Math.max(...all.map((s) => segmentEnd(s, now)));
  const spanMs = all.length > 0 ? Math.max(0, last - first) : 0;
  const wallMs = unionMs(intervals(bars, now, activeStates));
  const sumMs = bars.reduce((sum, b) => sum + runningMs(b, now), 0);
  const peakConcurrency = peakOverlap(intervals(bars, now, slotStates));
  const slotsFrom = slots !== undefined && slots > 0 ? 'maxParallel' : 'peak';
  const slotCount = slotsFrom === 'maxParallel' ? (slots as number) : peakConcurrency;
  const path = criticalPath(bars, now);
  return {
    wallMs,
    spanMs,
    sumMs,
    speedup: wallMs > 0 ? sumMs / wallMs : 0,
    criticalPathMs: path.ms,
    criticalPath: path.ids,
    idleSlotMs: Math.max(0, slotCount * wallMs - sumMs),
    slots: slotCount,
    slotsFrom,
    peakConcurrency,
    live: all.some((s) => s.end === undefined),
  };
}
