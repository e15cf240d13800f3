/**
 * Pick, for the candidates of a Best of N (core/agents/bestOf.ts): the chosen one lands through the
 * ordinary merge (forecast, strategy, the same refusals); only once it is merged are the others
 * discarded, each with its work saved under refs/parallel-agents/saved/ (Restore Agent brings it back).
 */
import type { AgentRecord } from '../agent';
import { type AgentManager, candidatesOf } from '../agents';
import { AgentError } from '../errors';
import type { MergeStrategy } from '../git';
import type { AgentLanding, MergeResult } from './agentLanding';

export interface PickResult {
  readonly merge: MergeResult;
  /** The other candidates discarded: none unless the merge happened. */
  readonly discarded: readonly string[];
}

/** The candidates of `id`'s Best of N group, `id` included; throws notBestOfCandidate for any other agent. */
export function groupOf(manager: Pick<AgentManager, 'get' | 'list'>, id: string): AgentRecord[] {
  const record = manager.get(id);
  if (!record.bestOf) {
    throw new AgentError('notBestOfCandidate', { title: record.title });
  }
  return candidatesOf(manager.list(), record.bestOf.group);
}

/**
 * Discards every other candidate of `id`'s group that is not merged or discarded already (one still
 * running is stopped first, as Discard does). Returns their ids.
 */
export async function discardOtherCandidates(
  manager: Pick<AgentManager, 'get' | 'list'>,
  landing: Pick<AgentLanding, 'discard'>,
  id: string,
): Promise<string[]> {
  const others = groupOf(manager, id).filter((r) => r.id !== id && !['merged', 'discarded'].includes(r.status));
  for (const other of others) {
    await landing.discard(other.id);
  }
  return others.map((r) => r.id);
}

/** Merges candidate `id`; when (and only when) it is merged, discards the other candidates. */
export async function pickCandidate(
  manager: Pick<AgentManager, 'get' | 'list'>,
  landing: Pick<AgentLanding, 'merge' | 'discard'>,
  id: string,
  strategy: MergeStrategy,
  message: string,
): Promise<PickResult> {
  groupOf(manager, id);
  const merge = await landing.merge(id, strategy, message);
  const discarded = merge.kind === 'merged' ? await discardOtherCandidates(manager, landing, id) : [];
  return { merge, discarded };
}
