/**
 * Picks ports and indexes for agents' worktreeEnv. A port is free when no live agent holds it (the
 * records of every window on the registry) and it can be listened on right now (PortProbe); ports
 * and indexes handed out but not yet in a record stay reserved, so simultaneous dispatches never
 * pick the same one.
 */
import type { AgentRecord } from '../agent';
import { AgentError } from '../errors';
import type { PortProbe } from '../ports';
import { type AgentEnv, holdsEnv } from './worktreeEnv';

export interface PortRange {
  readonly from: number;
  readonly to: number;
}

export const defaultPortRange: PortRange = { from: 3100, to: 3999 };

/** `"3100-3999"` (or one port, `"3100"`), within 1024–65535; undefined or '' gives the default. */
export function parsePortRange(text: unknown): PortRange {
  const trimmed = typeof text === 'string' ? text.trim() : text === undefined || text === null ? '' : String(text);
  if (trimmed === '') {
    return defaultPortRange;
  }
  const m = /^(\d{1,5})(?:\s*-\s*(\d{1,5}))?$/.exec(trimmed);
  const from = m ? Number(m[1]) : NaN;
  const to = m ? Number(m[2] ?? m[1]) : NaN;
  if (!m || from < 1024 || to > 65535 || from > to) {
    throw new AgentError('invalidPortRange', { range: trimmed });
  }
  return { from, to };
}

export function rangeText(range: PortRange): string {
  return range.from === range.to ? String(range.from) : `${range.from}-${range.to}`;
}

/** A reservation: the index and ports picked, held until `release` (once the record holds them). */
export interface EnvReservation {
  readonly index: number;
  readonly ports: Readonly<Record<string, number>>;
  release(): void;
}

export class PortAllocator {
  private readonly pendingPorts = new Set<number>();
  private readonly pendingIndexes = new Map<string, Set<number>>();

  /** `probe` undefined: only the records and reservations count (tests of the bookkeeping alone). */
  constructor(private readonly probe: PortProbe | undefined) {}

  /**
   * The lowest free index among `repoRoot`'s live agents and one free port per key, scanning the
   * range from its start; throws portRangeExhausted (reserving nothing) when too few are free.
   */
  async reserve(
    repoRoot: string,
    keys: readonly string[],
    range: PortRange,
    records: readonly AgentRecord[],
  ): Promise<EnvReservation> {
    const live = records.filter((r) => holdsEnv(r)).map((r) => r.worktreeEnv as AgentEnv);
    const index = this.takeIndex(
      repoRoot,
      records.filter((r) => r.repoRoot === repoRoot && holdsEnv(r)).map((r) => r.worktreeEnv?.index ?? 0),
    );
    const held = new Set(live.flatMap((env) => Object.values(env.ports)));
    const ports: Record<string, number> = {};
    const picked: number[] = [];
    const release = () => {
      picked.forEach((p) => this.pendingPorts.delete(p));
      this.pendingIndexes.get(repoRoot)?.delete(index);
    };
    let port = range.from;
    for (const key of keys) {
      for (; port <= range.to; port++) {
        if (held.has(port) || this.pendingPorts.has(port)) {
          continue;
        }
        // Reserved before the probe's await: a dispatch probing at the same time skips it.
        this.pendingPorts.add(port);
        if (!this.probe || (await this.probe.isFree(port))) {
          picked.push(port);
          ports[key] = port++;
          break;
        }
        this.pendingPorts.delete(port);
      }
      if (ports[key] === undefined) {
        release();
        throw new AgentError('portRangeExhausted', {
          range: rangeText(range),
          needed: keys.length,
          free: picked.length,
        });
      }
    }
    return { index, ports, release };
  }

  private takeIndex(repoRoot: string, live: readonly number[]): number {
    const pending = this.pendingIndexes.get(repoRoot) ?? new Set<number>();
    this.pendingIndexes.set(repoRoot, pending);
    const used = new Set(live);
    let index = 1;
    while (used.has(index) || pending.has(index)) {
      index++;
    }
    pending.add(index);
    return index;
  }
}
