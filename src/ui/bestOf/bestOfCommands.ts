/** Compare, Diff and Pick for the candidates of a Best of N (core/agents/bestOf.ts). */
import * as vscode from 'vscode';
import type { AgentRecord } from '../../core/agent';
import type { AgentManager } from '../../core/agents';
import type { PlanService } from '../../core/plans';
import { AgentError } from '../../core/errors';
import {
  type AgentLanding,
  candidateHasFolder,
  candidatePairs,
  type CandidateSide,
  diffPartners,
  discardOtherCandidates,
  groupOf,
  type MergeResult,
} from '../../core/landing';
import { statusText } from '../agentsView/presentation';
import { BaseContentProvider } from '../diff/baseContentProvider';
import { pickAgentId } from '../commands/agentPick';
import { cancelled } from '../commands/commandRunner';
import { CompareDocuments } from './compareDocument';

export interface BestOfDeps {
  readonly manager: AgentManager;
  readonly landing: Pick<AgentLanding, 'discard' | 'removeMergedWorktree'>;
  /** The Merge Agent command: forecast, strategy, and its questions (commit first, stash, conflicts). */
  readonly merge: (arg: unknown) => Promise<MergeResult>;
  /** A candidate of a plan's Best of N task is picked for the plan: merged into its integration branch. */
  readonly plans: Pick<PlanService, 'pick'>;
}

interface PickArgs {
  readonly id?: string;
  /** false: no dialogs (Merge Agent's `confirm: false`; `commit: true` commits uncommitted work first). */
  readonly confirm?: boolean;
  readonly commit?: boolean;
}

type Candidate = AgentRecord & { bestOf: NonNullable<AgentRecord['bestOf']> };

export function bestOfCommands({ manager, landing, merge, plans }: BestOfDeps) {
  const candidate = async (arg: unknown, filter: (r: AgentRecord) => unknown = () => true): Promise<Candidate> => {
    const id = await pickAgentId(manager, arg, {
      filter: (r) => r.bestOf && filter(r),
      none: 'noAgentApplies',
      describe: (r) => `${r.profile} · ${statusText(r.status)}`,
    });
    groupOf(manager, id);
    return manager.get(id) as Candidate;
  };

  return {
    compare: async (arg?: unknown) => {
      const record = await candidate(arg);
      await vscode.window.showTextDocument(CompareDocuments.uri(record), { preview: true });
    },
    diff: async (arg?: unknown) => {
      const a = await candidate(arg, candidateHasFolder);
      const others = diffPartners(manager, a.id);
      const b =
        others.length === 1
          ? others[0]
          : manager.get(
              await pickAgentId(manager, undefined, {
                filter: (r) => others.some((o) => o.id === r.id),
                none: 'noAgentApplies',
                describe: (r) => `${r.profile} · ${statusText(r.status)}`,
              }),
            );
      for (const r of [a, b]) {
        if (!candidateHasFolder(r)) {
          throw new AgentError('noWorktreeBranch', { title: r.title });
        }
      }
      const pairs = candidatePairs(a, b);
      if (pairs.length === 0) {
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Neither "{0}" nor "{1}" has changed any file.', a.title, b.title),
        );
        return;
      }
      const resources = pairs.map((p) => [vscode.Uri.file(p.b.file), uriOf(p.a), uriOf(p.b)]);
      await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('{0} ↔ {1}', a.title, b.title), resources);
    },
    pick: async (arg?: unknown) => {
      const record = await candidate(arg, (r) => r.status !== 'merged' && r.status !== 'discarded');
      const o = (arg && typeof arg === 'object' ? arg : {}) as PickArgs;
      if (record.plan) {
        await pickForPlan(plans, record, o.confirm !== false);
        return { plan: record.plan };
      }
      const others = groupOf(manager, record.id).filter(
        (r) => r.id !== record.id && r.status !== 'merged' && r.status !== 'discarded',
      );
      if (o.confirm !== false) {
        await confirmPick(record, others.length);
      }
      const result = await merge({ id: record.id, confirm: o.confirm, commit: o.commit, quietOnMerge: true });
      if (result.kind !== 'merged') {
        // Refused or sent to be resolved: Merge Agent said why; every candidate stays.
        return { merge: result, discarded: [] };
      }
      const discarded = await discardOtherCandidates(manager, landing, record.id);
      if (o.confirm !== false) {
        const remove = vscode.l10n.t('Remove Worktree');
        void vscode.window
          .showInformationMessage(
            vscode.l10n.t(
              'Picked "{0}": merged into {1}. {2} other candidates discarded; their work is saved (Restore Agent).',
              record.title,
              result.target,
              discarded.length,
            ),
            remove,
          )
          .then((choice) => (choice === remove ? landing.removeMergedWorktree(record.id) : undefined));
      }
      return { merge: result, discarded };
    },
  };
}

/** A candidate's version of a file: its file, or the file at its base commit (empty when it deleted it). */
function uriOf(side: CandidateSide): vscode.Uri {
  return side.kind === 'folder' ? vscode.Uri.file(side.file) : BaseContentProvider.uri(side.file, side.query);
}

/** A plan task's candidate: the plan merges it into its integration branch, then discards the others. */
async function pickForPlan(plans: Pick<PlanService, 'pick'>, record: Candidate, confirm: boolean): Promise<void> {
  const plan = record.plan as NonNullable<AgentRecord['plan']>;
  if (confirm) {
    const pick = vscode.l10n.t('Pick');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('Pick "{0}" for task "{1}"?', record.title, plan.taskId),
      {
        modal: true,
        detail: vscode.l10n.t(
          "It is merged into the plan's integration branch and the plan goes on. Then the other candidates are discarded: their worktrees and branches are removed, their work saved first (Restore Agent brings it back).",
        ),
      },
      pick,
    );
    if (choice !== pick) {
      cancelled();
    }
  }
  await plans.pick(plan.runId, plan.taskId, record.id);
}

async function confirmPick(record: AgentRecord, others: number): Promise<void> {
  const pick = vscode.l10n.t('Pick');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Pick "{0}"?', record.title),
    {
      modal: true,
      detail: vscode.l10n.t(
        'It is merged into the current branch as Merge Agent does. Then the {0} other candidates are discarded: their worktrees and branches are removed, their work saved first (Restore Agent brings it back).',
        others,
      ),
    },
    pick,
  );
  if (choice !== pick) {
    cancelled();
  }
}
