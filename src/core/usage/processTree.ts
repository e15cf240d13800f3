/**
 * The arithmetic of an agent's process cost, from a table of every process (Linux's /proc/<pid>/stat):
 * which processes are the agent's (its root, the root's descendants, and whatever stays in a process
 * group one of them leads), and how much CPU and memory they use between two samples.
 */

/** One process, as /proc/<pid>/stat describes it. CPU times in clock ticks, memory in pages. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** Its process group. */
  readonly pgrp: number;
  /** utime + stime + cutime + cstime: its own CPU time and that of the children it has reaped. */
  readonly ticks: number;
  /** Clock ticks after boot at which it started: with the pid, names one process for good. */
  readonly start: number;
  readonly rssPages: number;
}

/**
 * Parses the text of /proc/<pid>/stat. The name (field 2) is in parentheses and may hold spaces or
 * parentheses itself, so the fields are counted from the last ')'. Undefined for anything else.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  const open = text.indexOf('(');
  if (open < 1 || close < open) {
    return undefined;
  }
  // After the name: state(3) ppid(4) pgrp(5) ... utime(14) stime(15) cutime(16) cstime(17) ... starttime(22) rss(24)
  const rest = text.slice(close + 2).split(' ');
  const field = (n: number) => Number(rest[n - 3]);
  const pid = Number(text.slice(0, open).trim());
  const stat: ProcStat = {
    pid,
    ppid: field(4),
    pgrp: field(5),
    ticks: field(14) + field(15) + field(16) + field(17),
    start: field(22),
    rssPages: field(24),
  };
  return Object.values(stat).every((v) => Number.isInteger(v) && v >= 0) && pid > 0 ? stat : undefined;
}

/** The pids of a tree: children by parent, members by group. Build once per sample, ask for many roots. */
export class ProcessForest {
  private readonly children = new Map<number, number[]>();
  private readonly groups = new Map<number, number[]>();
  readonly byPid = new Map<number, ProcStat>();

  constructor(table: readonly ProcStat[]) {
    for (const p of table) {
      this.byPid.set(p.pid, p);
      push(this.children, p.ppid, p.pid);
      push(this.groups, p.pgrp, p.pid);
    }
  }

  /**
   * `root` and every process under it; a process some of them leads a group of is in too (a child
   * left by its parent is adopted by init, yet stays in its group). Empty when `root` is gone.
   */
  tree(root: number): ProcStat[] {
    if (!this.byPid.has(root)) {
      return [];
    }
    const seen = new Set<number>([root]);
    const queue = [root];
    while (queue.length > 0) {
      const pid = queue.pop()!;
      for (const next of [...(this.children.get(pid) ?? []), ...(this.groups.get(pid) ?? [])]) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return [...seen].map((pid) => this.byPid.get(pid)!);
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key);
  if (list) {
    list.push(value);
  } else {
    map.set(key, [value]);
  }
}

/** What one sample of one tree holds: when, its total CPU ticks, its memory. */
export interface TreeSample {
  readonly at: number;
  readonly ticks: number;
  readonly rssBytes: number;
  readonly processes: number;
}

export function sampleTree(members: readonly ProcStat[], at: number, pageBytes: number): TreeSample {
  let ticks = 0;
  let pages = 0;
  for (const p of members) {
    ticks += p.ticks;
    pages += p.rssPages;
  }
  return { at, ticks, rssBytes: pages * pageBytes, processes: members.length };
}

/** A tree's cost now: CPU in percent of one core (200 = two cores busy), memory in bytes. */
export interface ProcessUsage {
  /** Undefined on the first sample: CPU is a rate, it takes two. */
  readonly cpuPercent?: number;
  readonly rssBytes: number;
  readonly processes: number;
}

/**
 * CPU between two samples of one tree. A child that ends is reaped by its parent, whose cutime and
 * cstime then hold its time: the total carries on. A process that leaves the tree otherwise takes
 * its time along, so the total may drop: that interval counts as 0, never negative.
 */
export function treeUsage(previous: TreeSample | undefined, current: TreeSample, ticksPerSecond: number): ProcessUsage {
  const base = { rssBytes: current.rssBytes, processes: current.processes };
  const wallMs = previous ? current.at - previous.at : 0;
  if (!previous || wallMs <= 0) {
    return base;
  }
  const cpuMs = (Math.max(0, current.ticks - previous.ticks) * 1000) / ticksPerSecond;
  return { ...base, cpuPercent: (cpuMs / wallMs) * 100 };
}
