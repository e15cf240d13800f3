/**
 * What ended runs left running in their process groups (a server an agent started), ended when the
 * agent's folder goes (AgentRunner.endLeftovers). A run's status names its group; a later run of the
 * same agent (a follow-up reuses its id) replaces that status, so the group of the run it replaces,
 * while something of it still runs, is first kept in a list beside it.
 */
import * as fs from 'node:fs';
import { endGroup } from '../supervisor/processGroup';
import { parseStatus } from '../supervisor/protocol';
import { type AgentGroup, ownGroup } from './supervisorStatus';

/** The list of earlier runs' groups kept beside a status file. */
export function leftoversPath(statusPath: string): string {
  return statusPath.replace(/\.status\.json$/, '.leftovers.json');
}

/** Before a new run replaces `statusPath`: the group the ended run there left running is kept. */
export function keepLeftovers(statusPath: string): void {
  const status = readStatusSync(statusPath);
  if (status?.state !== 'ended' || ownGroup(status) === undefined) {
    return;
  }
  const group: AgentGroup = { agentPid: status.agentPid, agentStart: status.agentStart, bootId: status.bootId };
  const kept = readGroups(leftoversPath(statusPath)).filter((g) => ownGroup(g) !== undefined);
  fs.writeFileSync(leftoversPath(statusPath), JSON.stringify([...kept, group]), { mode: 0o600 });
}

/**
 * Ends what the ended run of `statusPath`, and the earlier runs kept beside it, left running; a run
 * still going is left alone. Resolves once nothing of them is left.
 */
export async function endLeftovers(statusPath: string, graceMs: number): Promise<void> {
  const status = readStatusSync(statusPath);
  const groups = [...readGroups(leftoversPath(statusPath)), ...(status?.state === 'ended' ? [status] : [])];
  for (const group of groups) {
    const pgid = ownGroup(group);
    if (pgid !== undefined) {
      await endGroup(pgid, graceMs);
    }
  }
  fs.rmSync(leftoversPath(statusPath), { force: true });
}

function readStatusSync(statusPath: string) {
  try {
    return parseStatus(fs.readFileSync(statusPath, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The kept groups; a missing or damaged list keeps none. */
function readGroups(listPath: string): AgentGroup[] {
  try {
    const value = JSON.parse(fs.readFileSync(listPath, 'utf8')) as unknown;
    return Array.isArray(value)
      ? value.filter((g): g is AgentGroup => typeof (g as AgentGroup | null)?.agentPid === 'number')
      : [];
  } catch {
    return [];
  }
}
