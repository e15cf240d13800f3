/** The one quick pick that asks which agent a command acts on. */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { statusText } from '../agentsView/presentation';
import { agentIdOf, cancelled } from './commandRunner';

export interface AgentChoice {
  /** Which agents are offered; all by default. */
  readonly filter?: (record: AgentRecord) => unknown;
  /** Each item's description; "profile · status" by default. */
  readonly describe?: (record: AgentRecord) => string | undefined;
  /** When no agent is offered: fail with this error (without it, an empty pick opens). */
  readonly none?: 'noAgentApplies' | 'noMissingAgent';
  /** A single agent on offer is taken without asking. */
  readonly takeOnlyOne?: boolean;
}

/**
 * The id of the agent that `arg` names (a tree node, `{ id }`, `{ agentId }`, an id), else of the
 * one the user picks.
 */
export async function pickAgentId(manager: AgentManager, arg: unknown, choice: AgentChoice = {}): Promise<string> {
  const id = agentIdOf(arg);
  if (id) {
    return id;
  }
  const candidates = choice.filter ? manager.list().filter(choice.filter) : manager.list();
  if (candidates.length === 0 && choice.none !== undefined) {
    throw new AgentError(choice.none, {});
  }
  if (candidates.length === 1 && choice.takeOnlyOne) {
    return candidates[0].id;
  }
  const describe = choice.describe ?? ((r: AgentRecord) => `${r.profile} · ${statusText(r.status)}`);
  const picked = await vscode.window.showQuickPick(
    candidates.map((r) => ({ label: r.title, description: describe(r), id: r.id })),
    { placeHolder: vscode.l10n.t('Which agent?') },
  );
  return picked?.id ?? cancelled();
}
