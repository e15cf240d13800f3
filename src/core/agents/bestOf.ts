/**
 * Best of N: one task given to N agents at once (N copies of one profile, or one per chosen
 * profile), each a candidate in a worktree of its own at the same base. Pick (core/landing) merges
 * one and discards the others with their work saved.
 */
import type { AgentRecord } from '../agent';
import { AgentError } from '../errors';
import { titleFromPrompt } from '../naming';
import { checkPrompt, resolveProfile } from './dispatchChecks';
import type { AgentManagerDeps, DispatchOptions } from './managerDeps';

/** How many candidates a Best of N may have: below 2 there is nothing to compare; above 10, little to gain. */
export const bestOfLimits = { min: 2, max: 10 } as const;

export interface BestOfOptions extends Omit<DispatchOptions, 'profile' | 'isolation' | 'inTerminal' | 'bestOf'> {
  /** One profile per candidate, in order: N copies of one profile, or one per chosen profile. */
  readonly profiles: readonly string[];
}

/** Throws bestOfCount unless `count` is a whole number of candidates within bestOfLimits. */
export function checkBestOfCount(count: number): void {
  if (!Number.isInteger(count) || count < bestOfLimits.min || count > bestOfLimits.max) {
    throw new AgentError('bestOfCount', { count, min: bestOfLimits.min, max: bestOfLimits.max });
  }
}

/**
 * Checks the count, the task and every profile before anything is created, then dispatches the
 * candidates one after the other, titled "<title> (i/N)". The first one's base is every other's, so
 * all start from the same commit even when HEAD moves meanwhile. Candidates beyond
 * parallelAgents.maxConcurrentAgents are queued like any agent. A candidate whose worktree cannot be
 * made (a git failure, a full disk) ends the dispatch with its error; those made before it stay listed.
 */
export async function dispatchBestOf(
  deps: Pick<AgentManagerDeps, 'profiles' | 'resolver' | 'newId'>,
  dispatch: (options: DispatchOptions) => Promise<AgentRecord>,
  options: BestOfOptions,
): Promise<AgentRecord[]> {
  const of = options.profiles.length;
  checkBestOfCount(of);
  checkPrompt(options.prompt, 'task');
  for (const name of new Set(options.profiles)) {
    await resolveProfile(deps.profiles(), name, deps.resolver);
  }
  const group = deps.newId();
  const title = options.title?.trim() || titleFromPrompt(options.prompt);
  const candidates: AgentRecord[] = [];
  for (const [i, profile] of options.profiles.entries()) {
    const record = await dispatch({
      ...options,
      profile,
      isolation: 'worktree',
      title: `${title} (${i + 1}/${of})`,
      base: candidates[0]?.baseSha ?? options.base,
      bestOf: { group, index: i + 1, of },
    });
    candidates.push(record);
  }
  return candidates;
}

/** The candidates of a Best of N group, in their order. */
export function candidatesOf(records: readonly AgentRecord[], group: string): AgentRecord[] {
  return records
    .filter((r) => r.bestOf?.group === group)
    .sort((a, b) => (a.bestOf?.index ?? 0) - (b.bestOf?.index ?? 0));
}
