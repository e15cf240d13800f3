/**
 * Forecast Conflicts: which live agents' branches would conflict, and in what order to merge them.
 *
 * The approximation: agents are merged one after another into the current branch, and agent B,
 * merged after A, is taken to conflict exactly when the pair (A, B) is forecast to conflict (their
 * work, each merged into the current branch, conflicts: conflictForecast.ts), or when B alone
 * conflicts with the current branch. Under it, order alone never avoids a conflict: whichever agent
 * of a conflicting pair comes second conflicts. So an order is conflict-free only when there is no
 * conflict at all, and otherwise the best order merges a maximum independent set of the conflict
 * graph first. Only committed work is seen: merge-tree compares branch tips, not worktrees.
 */
import type { AgentRecord, AgentStatus } from '../agent';
import type { MergeForecast } from '../git';

export interface MergeSuggestion {
  /** No conflict was forecast, so every order (and `order` in particular) merges cleanly. */
  readonly conflictFree: boolean;
  /** Every id: `clean` first, then `needsResolution`, each in the order the ids were given. */
  readonly order: readonly string[];
  readonly clean: readonly string[];
  /** Each of these conflicts with the current branch or with an agent merged before it. */
  readonly needsResolution: readonly NeedsResolution[];
}

export interface NeedsResolution {
  readonly id: string;
  /** The other agents it conflicts with, in the order the ids were given. */
  readonly conflictsWith: readonly string[];
  readonly conflictsWithBranch: boolean;
}

/** One forecast to ask for: `refs` go to forecastMany as [ours, theirs]. */
export interface ForecastPair {
  readonly refs: readonly [string, string];
  readonly agentId: string;
  /** The other agent; undefined when the agent is forecast against the current branch. */
  readonly otherId?: string;
}

export interface ForecastConflict {
  readonly agentId: string;
  /** undefined: the conflict is with the current branch. */
  readonly otherId?: string;
  readonly files: readonly string[];
}

/** Exact search enumerates 2^n subsets of a connected component; larger ones are solved greedily. */
const exactLimit = 16;

/** Queued and preparing agents may not have their branch yet; merged and discarded ones are done. */
const notForecast: ReadonlySet<AgentStatus> = new Set(['queued', 'preparing', 'merged', 'discarded']);

/** Agents whose branch can be forecast, grouped by repository, each group in the order given. */
export function liveBranchAgents(records: readonly AgentRecord[]): Map<string, AgentRecord[]> {
  const byRepo = new Map<string, AgentRecord[]>();
  for (const record of records) {
    if (record.branch && !notForecast.has(record.status)) {
      byRepo.set(record.repoRoot, [...(byRepo.get(record.repoRoot) ?? []), record]);
    }
  }
  return byRepo;
}

/** Every unordered pair of agents, then each agent against `currentRef`. */
export function forecastPairs(agents: readonly AgentRecord[], currentRef: string): ForecastPair[] {
  const pairs: ForecastPair[] = [];
  agents.forEach((a, i) => {
    for (const b of agents.slice(i + 1)) {
      pairs.push({ refs: [a.branch as string, b.branch as string], agentId: a.id, otherId: b.id });
    }
  });
  for (const a of agents) {
    pairs.push({ refs: [currentRef, a.branch as string], agentId: a.id });
  }
  return pairs;
}

/** The conflicting pairs, given forecastMany's answers in the order of `pairs`. */
export function readForecasts(pairs: readonly ForecastPair[], forecasts: readonly MergeForecast[]): ForecastConflict[] {
  return pairs.flatMap((pair, i) =>
    forecasts[i]?.clean === false
      ? [{ agentId: pair.agentId, otherId: pair.otherId, files: forecasts[i].conflicts }]
      : [],
  );
}

/**
 * `ids` in creation order, which also breaks ties: of the largest conflict-free sets, the one with
 * the earliest agents is merged first. Unknown ids and self-pairs in the conflicts are ignored.
 */
export function suggestMergeOrder(
  ids: readonly string[],
  pairConflicts: readonly (readonly [string, string])[],
  branchConflicts: Iterable<string>,
): MergeSuggestion {
  const index = new Map(ids.map((id, i) => [id, i]));
  const neighbours = ids.map(() => new Set<number>());
  for (const [a, b] of pairConflicts) {
    const i = index.get(a);
    const j = index.get(b);
    if (i !== undefined && j !== undefined && i !== j) {
      neighbours[i].add(j);
      neighbours[j].add(i);
    }
  }
  // Stryker disable next-line MethodExpression: blocked is only asked about ids, so unknown ones in it change nothing
  const blocked = new Set([...branchConflicts].filter((id) => index.has(id)));
  const candidates = ids.flatMap((id, i) => (blocked.has(id) ? [] : [i]));
  const chosen = new Set<number>();
  for (const component of components(candidates, neighbours)) {
    const picked =
      component.length <= exactLimit
        ? exactIndependentSet(component, neighbours)
        : greedyIndependentSet(component, neighbours);
    picked.forEach((i) => chosen.add(i));
  }
  const clean = ids.filter((_, i) => chosen.has(i));
  const needsResolution = ids.flatMap((id, i) =>
    chosen.has(i)
      ? []
      : [
          {
            id,
            conflictsWith: [...neighbours[i]].sort((x, y) => x - y).map((j) => ids[j]),
            conflictsWithBranch: blocked.has(id),
          },
        ],
  );
  return {
    conflictFree: needsResolution.length === 0,
    order: [...clean, ...needsResolution.map((n) => n.id)],
    clean,
    needsResolution,
  };
}

/** Connected components of the conflict graph restricted to `vertices`, each sorted ascending. */
function components(vertices: readonly number[], neighbours: readonly ReadonlySet<number>[]): number[][] {
  const inside = new Set(vertices);
  const seen = new Set<number>();
  const result: number[][] = [];
  for (const start of vertices) {
    if (seen.has(start)) {
      continue;
    }
    const component: number[] = [];
    const stack = [start];
    seen.add(start);
    while (stack.length > 0) {
      const v = stack.pop() as number;
      component.push(v);
      for (const w of neighbours[v]) {
        if (inside.has(w) && !seen.has(w)) {
          seen.add(w);
          stack.push(w);
        }
      }
    }
    result.push(component.sort((x, y) => x - y));
  }
  return result;
}

/** Maximum independent set by enumerating subsets; bit k is component[k], so lower bits are older agents. */
function exactIndependentSet(component: readonly number[], neighbours: readonly ReadonlySet<number>[]): number[] {
  const n = component.length;
  const local = new Map(component.map((v, k) => [v, k]));
  const adjacent = component.map((v) =>
    [...neighbours[v]].reduce((mask, w) => (local.has(w) ? mask | (1 << (local.get(w) as number)) : mask), 0),
  );
  const independent = new Uint8Array(1 << n);
  const size = new Uint8Array(1 << n);
  independent[0] = 1;
  let best = 0;
  // Stryker disable next-line EqualityOperator: one pass more reads and writes past the typed arrays, which JS ignores
  for (let mask = 1; mask < 1 << n; mask++) {
    const low = mask & -mask;
    const rest = mask ^ low;
    size[mask] = size[rest] + 1;
    independent[mask] = independent[rest] && (adjacent[31 - Math.clz32(low)] & rest) === 0 ? 1 : 0;
    const differ = mask ^ best;
    // Equal sizes: the set holding the oldest agent where the two differ wins.
    if (
      independent[mask] &&
      (size[mask] > size[best] || (size[mask] === size[best] && (mask & differ & -differ) !== 0))
    ) {
      best = mask;
    }
  }
  return component.filter((_, k) => (best & (1 << k)) !== 0);
}

/** Repeatedly takes the agent with the fewest remaining conflicts (oldest on ties) and drops its neighbours. */
function greedyIndependentSet(component: readonly number[], neighbours: readonly ReadonlySet<number>[]): number[] {
  const remaining = new Set(component);
  // Stryker disable next-line ArrayDeclaration: the caller looks up numbers only; a non-number is never read
  const picked: number[] = [];
  const degree = (v: number) => [...neighbours[v]].filter((w) => remaining.has(w)).length;
  while (remaining.size > 0) {
    // Stryker disable next-line UnaryOperator: the first agent seen always replaces it (degree < Infinity)
    let pick = -1;
    let pickDegree = Infinity;
    // `remaining` iterates in ascending order (components are sorted), so the first of equal degree is the oldest.
    for (const v of remaining) {
      const d = degree(v);
      if (d < pickDegree) {
        pick = v;
        pickDegree = d;
      }
    }
    picked.push(pick);
    remaining.delete(pick);
    neighbours[pick].forEach((w) => remaining.delete(w));
  }
  return picked;
}
