/**
 * Ask Agent to Resolve Conflicts: merges the branch an agent conflicts with into the agent's branch
 * in its worktree (core/landing/conflictRepair.ts), sends the conflicts as a follow-up, and shows
 * the forecast made when the agent's run ends. The workspace is never touched: the user merges.
 */
import * as vscode from 'vscode';
import { commands } from '../../constants';
import type { AgentRecord } from '../../core/agent';
import { isActive } from '../../core/agent';
import { StackRepair, type AgentManager, type ParentRepairStart, type StackRepairGit } from '../../core/agents';
import { AgentError } from '../../core/errors';
import { ConflictRepair, type RepairEnd, type RepairStart, type RepairTarget } from '../../core/landing';
import type { Logger } from '../../core/ports';
import { joinPath } from '../../util/paths';
import { statusText } from '../agentsView/presentation';
import { pickAgentId } from './agentPick';
import { agentIdOf, cancelled, reportError } from './commandRunner';

export interface ResolveConflictsDeps {
  readonly manager: AgentManager;
  readonly git: StackRepairGit;
  readonly logger?: Logger;
}

interface ResolveArgs {
  /** The branch to merge into the agent's; asked when there is a choice. */
  readonly target?: string;
  /** Merge the work of the agent's parent as it is now (a stacked agent whose Rebase on Parent conflicts). */
  readonly parent?: boolean;
  /** Added to the follow-up; asked (optional) when absent. */
  readonly instructions?: string;
  /** Resolve only once the agent's run has ended and it is forecast again. */
  readonly wait?: boolean;
}

export interface ResolveOutcome {
  readonly start: RepairStart | ParentRepairStart;
  /** Set when the command waited (`wait`, or a clean merge, which is forecast at once). */
  readonly end?: RepairEnd;
}

/** Agents the last forecast found in conflict, or stacked on another agent, that can take a follow-up now. */
function canResolve(r: AgentRecord): boolean {
  return (
    (r.forecastConflicts !== undefined || r.stackedOn !== undefined) &&
    !!r.branch &&
    r.worktreePresent !== false &&
    !['merged', 'discarded'].includes(r.status)
  );
}

export function resolveConflictsCommand(deps: ResolveConflictsDeps) {
  const { manager } = deps;
  const repair = new ConflictRepair(manager, deps.git);
  const stacked = new StackRepair(manager, deps.git);
  const quiet: Logger = { info() {}, warn() {}, error() {} };
  return async (arg?: unknown): Promise<ResolveOutcome> => {
    const o = (arg && typeof arg === 'object' ? arg : {}) as ResolveArgs;
    const named = agentIdOf(arg);
    if (named === undefined && !manager.list().some(canResolve)) {
      throw new AgentError('noForecastConflicts', {});
    }
    const id = await pickAgentId(manager, arg, {
      filter: canResolve,
      describe: (r) => r.forecastConflicts?.files.join(', '),
      takeOnlyOne: true,
    });
    const record = manager.get(id);
    if (!record.forecastConflicts && !o.parent && !record.stackedOn) {
      throw new AgentError('agentHasNoConflicts', { title: record.title });
    }
    if (isActive(record.status)) {
      throw new AgentError('agentStillRunning', { title: record.title });
    }
    // A stacked agent the forecast found no conflict for: its Rebase on Parent is what conflicts.
    const parentOnly = !record.forecastConflicts && o.target === undefined;
    const picked: RepairTarget =
      o.parent || parentOnly
        ? { branch: stacked.parentOf(id).title, parent: true }
        : o.target !== undefined
          ? { branch: o.target }
          : await pickTarget(repair, manager, record);
    const instructions = o.instructions ?? (await askInstructions(record));
    if (picked.parent) {
      return resolveWithParent(stacked, repair, {
        manager,
        id,
        instructions,
        wait: o.wait,
        logger: deps.logger ?? quiet,
      });
    }
    const target = picked.branch;
    const start = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Merging {0} into the branch of agent "{1}"…', target, record.title),
      },
      () => repair.start(id, target, instructions),
    );
    const follow = { manager, id, wait: o.wait, logger: deps.logger ?? quiet };
    if (start.kind === 'merged') {
      const said = vscode.l10n.t(
        'Merged {0} into the branch of agent "{1}" without conflicts; nothing was sent to the agent.',
        target,
        record.title,
      );
      return mergedCleanly(start, said, repair, follow);
    }
    return followRun(start, record.title, () => repair.finish(id, target), follow);
  };
}

/** The agent whose run a repair follows, and how the command follows it. */
interface Follow {
  readonly manager: AgentManager;
  readonly id: string;
  /** Await the run's end (its forecast) before returning. */
  readonly wait?: boolean;
  readonly logger: Logger;
}

interface ParentResolve extends Follow {
  readonly instructions: string;
}

/** The merge was clean (both paths): `said` is shown, and the agent forecast again at once. */
async function mergedCleanly(
  start: RepairStart | ParentRepairStart,
  said: string,
  repair: ConflictRepair,
  f: Follow,
): Promise<ResolveOutcome> {
  void vscode.window.showInformationMessage(said);
  const end = await repair.reforecast(f.id);
  void showEnd(f.manager, f.id, end);
  return { start, end };
}

/**
 * The conflicts went to agent `title` (both paths): said in the status bar, then `finish` follows its
 * run; its end is shown when it comes, and returned when the command waits for it.
 */
async function followRun(
  start: Extract<RepairStart | ParentRepairStart, { kind: 'sent' }>,
  title: string,
  finish: () => Promise<RepairEnd>,
  f: Follow,
): Promise<ResolveOutcome> {
  void vscode.window.setStatusBarMessage(
    vscode.l10n.t(
      '$(git-merge) Sent {0} conflicted file(s) to agent "{1}"; it is forecast again when it ends.',
      start.files.length,
      title,
    ),
    6000,
  );
  const ending = finish().then((end) => {
    void showEnd(f.manager, f.id, end);
    return end;
  });
  if (f.wait) {
    return { start, end: await ending };
  }
  ending.catch((e: unknown) => reportError(e, f.logger));
  return { start };
}

/** Merges the work of a stacked agent's parent into its worktree (core/agents/stackRepair.ts). */
async function resolveWithParent(
  stacked: StackRepair,
  repair: ConflictRepair,
  p: ParentResolve,
): Promise<ResolveOutcome> {
  const record = p.manager.get(p.id);
  const parent = stacked.parentOf(p.id).title;
  const start = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Merging the work of "{0}" into the worktree of agent "{1}"…', parent, record.title),
    },
    () => stacked.start(p.id, p.instructions),
  );
  if (start.kind === 'merged') {
    const said = vscode.l10n.t(
      'Agent "{0}" now works on top of the work of "{1}" as it is now; the merge was clean, so nothing was sent to it.',
      record.title,
      parent,
    );
    return mergedCleanly(start, said, repair, p);
  }
  return followRun(start, record.title, () => stacked.finish(p.id, start.merge), p);
}

async function pickTarget(repair: ConflictRepair, manager: AgentManager, record: AgentRecord): Promise<RepairTarget> {
  const targets = await repair.targets(record.id);
  const agentTargets = targets.filter((t) => t.agentId !== undefined);
  // Offer the workspace's branch alone when the forecast named no other agent.
  if (agentTargets.length === 0) {
    return targets[0];
  }
  const picked = await vscode.window.showQuickPick(
    targets.map((t) => ({
      label: t.branch,
      description:
        t.agentId === undefined
          ? vscode.l10n.t("the workspace's branch")
          : t.parent
            ? vscode.l10n.t(
                'the work of its parent "{0}" as it is now, uncommitted files too: then Rebase on Parent applies',
                manager.get(t.agentId).title,
              )
            : vscode.l10n.t(
                'branch of agent "{0}": its work comes along when this agent is merged',
                manager.get(t.agentId).title,
              ),
      target: t,
    })),
    { title: vscode.l10n.t('Merge which branch into the branch of agent "{0}"?', record.title) },
  );
  return picked?.target ?? cancelled();
}

async function askInstructions(record: AgentRecord): Promise<string> {
  const text = await vscode.window.showInputBox({
    title: vscode.l10n.t('Ask Agent "{0}" to Resolve Conflicts', record.title),
    prompt: vscode.l10n.t(
      'Anything to add to the follow-up (optional)? It lists each conflicted file with its conflict markers.',
    ),
    placeHolder:
      record.profile === 'demo' ? 'resolve <file>: keep ours|theirs|both' : vscode.l10n.t('e.g. keep both versions'),
    ignoreFocusOut: true,
  });
  return text ?? cancelled();
}

async function showEnd(manager: AgentManager, id: string, end: RepairEnd): Promise<void> {
  const record = manager.get(id);
  if (end.kind === 'unresolved') {
    const open = vscode.l10n.t('Open Files');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Agent "{0}" ended with conflict markers left in {1}: the merge is still in progress in its worktree.',
        record.title,
        end.files.join(', '),
      ),
      open,
    );
    if (choice === open) {
      for (const file of end.files.slice(0, 5)) {
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(joinPath(record.cwd, file)));
      }
    }
    return;
  }
  if (end.kind === 'runFailed') {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'The run of agent "{0}" ended {1}: its merge is left in progress in its worktree, uncommitted.',
        record.title,
        statusText(end.status),
      ),
    );
    return;
  }
  if (end.conflicts.length === 0) {
    const merge = vscode.l10n.t('Merge Agent');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t('Agent "{0}" now merges cleanly into {1}.', record.title, end.currentBranch ?? 'HEAD'),
      merge,
    );
    if (choice === merge) {
      await vscode.commands.executeCommand(commands.merge, id);
    }
    return;
  }
  const title = (other: string) => manager.list().find((r) => r.id === other)?.title ?? other;
  const withWhom = end.conflicts.map((c) =>
    c.otherId === undefined ? (end.currentBranch ?? 'HEAD') : title(c.agentId === id ? c.otherId : c.agentId),
  );
  const files = [...new Set(end.conflicts.flatMap((c) => c.files))];
  const again = vscode.l10n.t('Ask Agent to Resolve');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Agent "{0}" still conflicts with {1} in {2}.', record.title, withWhom.join(', '), files.join(', ')),
    again,
  );
  if (choice === again) {
    await vscode.commands.executeCommand(commands.resolveConflicts, id);
  }
}
